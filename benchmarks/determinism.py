"""Same seed, same rows: N builds and N generates in fresh processes, every row's columns diffed.

    python benchmarks/determinism.py                                   # 20 builds + 4 generates, 2 2 2 rows a bucket
    python benchmarks/determinism.py --builds 20 --counts 2 2 2 --generates 4 --n 2
    python benchmarks/determinism.py --builds 3 --counts 20 30 50      # full builds (slow)

Each run is its own ``python -m vgau_data build`` (or ``generate``) process with its own
``PYTHONHASHSEED`` and a worker count taken in turn from ``--workers``, so set and dict
order, process scheduling and which rows a worker drew before (its caches) all differ
between runs. Generates draw every image they can (``--render-variety --oracle-aid
--traces visual_cot aug_visual_cot``). Every Parquet row of every run is compared, column by
column, with the first run's; other files are compared byte for byte. It prints each run's
fingerprint (sha256 of every row's columns), every differing row (file, id, columns), the
other files that differ, and the totals; the exit status is 1 when any row differs.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq

from vgau_data.registry import FAMILIES

RowDigests = dict[tuple[str, int], tuple[str, dict[str, str]]]
"""(Parquet file, row index) -> (row id, {column: sha256 of its value})."""


def run(kind: str, out: Path, args: argparse.Namespace, index: int) -> tuple[int, int, float]:
    """Run the ``index``-th ``kind`` (build or generate) into ``out`` in a fresh process: its workers, hash seed and wall s."""
    workers = args.workers[index % len(args.workers)]
    hash_seed = (index * 2654435761 + 12345) % 4294967295
    common = ["--out", str(out), "--families", *args.families, "--workers", str(workers), "--no-progress"]
    if kind == "build":
        command = ["build", *common, "--seed", str(args.seed), "--counts", *map(str, args.counts)]
    else:
        command = ["generate", *common, "--seed", str(args.seed), "--n", str(args.n), "--render-variety",
                   "--oracle-aid", "--traces", "visual_cot", "aug_visual_cot"]  # fmt: skip
    env = dict(os.environ, PYTHONHASHSEED=str(hash_seed))
    start = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "vgau_data", *command], check=False, env=env, capture_output=True, text=True
    )
    if done.returncode != 0:
        raise SystemExit(f"{kind} {index} failed ({done.returncode}): {done.stderr.strip()[-2000:]}")
    return workers, hash_seed, time.perf_counter() - start


def digests(folder: Path) -> tuple[RowDigests, dict[str, str]]:
    """Every Parquet row's column digests, and every other file's sha256, by path relative to ``folder``."""
    rows: RowDigests = {}
    files: dict[str, str] = {}
    for path in sorted(p for p in folder.rglob("*") if p.is_file()):
        name = path.relative_to(folder).as_posix()
        if path.suffix != ".parquet":
            files[name] = hashlib.sha256(path.read_bytes()).hexdigest()
            continue
        table = pq.read_table(path)
        columns = {column: table.column(column).to_pylist() for column in table.column_names}
        for i in range(table.num_rows):
            cells = {column: hashlib.sha256(repr(values[i]).encode()).hexdigest() for column, values in columns.items()}
            row_id = str(columns["id"][i]) if "id" in columns else f"#{i}"
            rows[(name, i)] = (row_id, cells)
    return rows, files


def fingerprint(rows: RowDigests) -> str:
    """sha256 of every row's column digests, in file and row order."""
    digest = hashlib.sha256()
    for key in sorted(rows):
        digest.update(repr((key, sorted(rows[key][1].items()))).encode())
    return digest.hexdigest()[:16]


def differences(reference: RowDigests, rows: RowDigests) -> list[str]:
    """One line per row whose columns differ from the reference's (or that only one side has)."""
    lines = []
    for key in sorted(set(reference) | set(rows)):
        if key not in rows or key not in reference:
            lines.append(f"{key[0]} row {key[1]}: only in {'the reference' if key in reference else 'this run'}")
            continue
        (row_id, ours), (_, theirs) = rows[key], reference[key]
        columns = sorted(c for c in set(ours) | set(theirs) if ours.get(c) != theirs.get(c))
        if columns:
            lines.append(f"{key[0]} row {key[1]} ({row_id}): {', '.join(columns)}")
    return lines


def compare(kind: str, runs: int, args: argparse.Namespace, scratch: Path) -> int:
    """Run ``runs`` of ``kind``, diff each against the first; the number of differing rows."""
    reference: tuple[RowDigests, dict[str, str]] | None = None
    differing = 0
    for index in range(runs):
        out = scratch / f"{kind}-{index}"
        workers, hash_seed, wall = run(kind, out, args, index)
        rows, files = digests(out)
        if reference is None:
            reference = (rows, files)
        lines = differences(reference[0], rows)
        changed = sorted(n for n in set(files) | set(reference[1]) if files.get(n) != reference[1].get(n))
        differing += len(lines)
        print(
            f"{kind} {index:>2}: workers {workers}, PYTHONHASHSEED {hash_seed:>10}, {wall:5.1f} s, {len(rows)} rows, "
            f"fingerprint {fingerprint(rows)}, {len(lines)} rows differ"
            + (f", files differ: {changed}" if changed else "")
        )
        for line in lines[: args.show]:
            print(f"    {line}")
        if index:
            shutil.rmtree(out)  # only the reference is kept: the disk holds two runs at a time
    return differing


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--builds", type=int, default=20, help="build runs (default 20)")
    parser.add_argument("--generates", type=int, default=4, help="generate runs (default 4)")
    parser.add_argument("--families", nargs="+", default=list(FAMILIES), choices=list(FAMILIES))
    parser.add_argument("--counts", nargs=3, type=int, default=[2, 2, 2], metavar=("EASY", "MEDIUM", "HARD"),
                        help="build rows per bucket (default 2 2 2; 20 30 50 is the full build)")  # fmt: skip
    parser.add_argument("--n", type=int, default=2, help="generate rows per family and band (default 2)")
    parser.add_argument("--workers", nargs="+", type=int, default=[1, 2, 3], help="worker counts, taken in turn")
    parser.add_argument("--seed", type=int, default=0, help="master seed of every run")
    parser.add_argument("--show", type=int, default=20, help="differing rows printed per run")
    args = parser.parse_args()
    total: dict[str, Any] = {}
    with tempfile.TemporaryDirectory(prefix="vgau-determinism-") as scratch:
        for kind, runs in (("build", args.builds), ("generate", args.generates)):
            if runs:
                total[kind] = compare(kind, runs, args, Path(scratch))
    print(
        "differing rows: "
        + ", ".join(f"{kind} {count} over {getattr(args, kind + 's')} runs" for kind, count in total.items())
    )
    raise SystemExit(1 if any(total.values()) else 0)


if __name__ == "__main__":
    main()
