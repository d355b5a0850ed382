"""Throughput and peak memory of every training exporter, on training shards with a stored trace.

    python benchmarks/export.py                      # 400 maze rows, every format
    python benchmarks/export.py --rows 2000 --formats trl verl --shard-rows 100

Writes ``--rows`` maze training rows (the builder's instances, master seed 0, the
``visual_cot`` trace stored) as ``vgau-data generate`` lays them out, then runs each
exporter in a fresh process and prints its rows per second, output megabytes and peak
resident memory. Memory is bounded by a shard, not the export: compare the peak at two
``--rows`` with the same ``--shard-rows``.
"""

from __future__ import annotations

import argparse
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

FAMILY = "maze"
KIND = "visual_cot"


def write_rows(root: Path, count: int) -> Path:
    """``count`` maze training rows in one shard, with the ``visual_cot`` trace stored."""
    from datasets import Dataset, Features, Image, Value

    from vgau_data.builders.instances import RowTask, generate_verified
    from vgau_data.registry import get_family
    from vgau_data.rendering import png_bytes
    from vgau_data.training.traces import get_trace_kind, trace_rng

    spec = get_family(FAMILY)
    kind = get_trace_kind(KIND)
    features = Features({
        "id": Value("string"), "family": Value("string"), "split": Value("string"), "band": Value("string"),
        "seed": Value("int64"), "optimal_length": Value("int32"), "state": Value("string"),
        "solution": Value("string"), "prompt": Value("string"), "image": Image(), **kind.features(),
    })  # fmt: skip

    def rows():  # noqa: ANN202
        difficulties = list(spec.buckets)
        for index in range(count):
            difficulty = difficulties[index % len(difficulties)]
            task = RowTask(FAMILY, difficulty, index // len(difficulties), 0)
            state, solution = generate_verified(FAMILY, difficulty, task.seed, task.slot)
            yield {
                "id": task.row_id, "family": FAMILY, "split": "train", "band": difficulty, "seed": task.seed,
                "optimal_length": solution.optimal_length, "state": spec.to_json(state),
                "solution": spec.answer_payload(solution.answer), "prompt": spec.question(state, "text_cot"),
                "image": {"bytes": png_bytes(spec.render(state)), "path": None},
                **kind.columns(spec, state, solution.answer, trace_rng(task.seed, KIND)),
            }  # fmt: skip

    path = root / FAMILY / "train-00000-of-00001.parquet"
    path.parent.mkdir(parents=True)
    Dataset.from_generator(rows, features=features).to_parquet(str(path))
    return root


def run_one(source: str, name: str, out: str, shard_rows: int) -> None:
    """Child process: export once and print seconds and peak memory."""
    from vgau_data.training.exporters import export_training, get_exporter

    exporter = get_exporter(name)
    options = {"traces": KIND} if exporter.default_traces else {"protocol": "text_cot"}
    began = time.perf_counter()
    export_training(source, exporter, out, shard_rows=shard_rows, progress=False, **options)  # type: ignore[arg-type]
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"{time.perf_counter() - began:.3f} {peak_mb:.0f}")


def main() -> None:
    from vgau_data.training.exporters import EXPORTERS

    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rows", type=int, default=400)
    parser.add_argument("--formats", nargs="+", default=list(EXPORTERS), choices=list(EXPORTERS))
    parser.add_argument("--shard-rows", type=int, default=100)
    parser.add_argument("--child", nargs=3, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        run_one(*args.child, args.shard_rows)
        return
    with tempfile.TemporaryDirectory(prefix="vgau-export-bench-") as tmp:
        began = time.perf_counter()
        source = write_rows(Path(tmp) / "rows", args.rows)
        print(f"wrote {args.rows} {FAMILY} rows with {KIND} traces in {time.perf_counter() - began:.1f} s")
        for name in args.formats:
            out = Path(tmp) / name
            child = [
                sys.executable,
                __file__,
                "--shard-rows",
                str(args.shard_rows),
                "--child",
                str(source),
                name,
                str(out),
            ]
            seconds, peak = subprocess.run(child, capture_output=True, text=True, check=True).stdout.split()[-2:]
            size = sum(p.stat().st_size for p in out.rglob("*") if p.is_file()) / 2**20
            print(f"{name:<13} {args.rows / float(seconds):8.1f} rows/s  {size:8.1f} MB  peak RSS {peak:>5} MB")


if __name__ == "__main__":
    main()
