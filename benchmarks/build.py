"""Full-build wall time, download size, time per family, and the render+encode floor of the same images.

    python benchmarks/build.py [--workers 2] [--out DIR]
    python benchmarks/build.py --workers 1 --families maze parking --no-floor   # worker time, family beside family

The size is what a user downloads: the Parquet files (images embedded, encoded per
``instances.COLUMN_CODECS``). The floor re-renders and re-encodes exactly the images of the
built dataset (board, aid, every oracle state with and without the grid, the drawn solution)
from the stored states and solutions with the build's own ``assemble_row``, with no
generation or solving (path's answer is re-solved, a few ms), over the same number of worker
processes.
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import resource
import tempfile
import time
from pathlib import Path
from typing import Any

from vgau_data.builders import build_dataset
from vgau_data.builders.hub_folder import parquet_path
from vgau_data.builders.instances import COLUMN_CODECS, assemble_row
from vgau_data.registry import FAMILIES


def render_row(item: tuple[str, str, str, int]) -> tuple[str, float, int]:
    """Re-render and re-encode one built row's images exactly as the build does (``assemble_row``)."""
    family_name, state_json, solution_payload, optimal_length = item
    family = FAMILIES[family_name]
    start = time.perf_counter()
    state = family.from_json(state_json)
    answer = family.solve(state).answer if family_name == "path" else None
    if answer is None:
        answer = family.parse_answer(_wrap(family_name, solution_payload))
    row = assemble_row(family_name, "", "", state, answer, optimal_length, 0)
    encoded = sum(len(cell["bytes"]) for column in COLUMN_CODECS for cell in _cells(row[column]))
    return family_name, time.perf_counter() - start, encoded


def _cells(value: Any) -> list[dict[str, Any]]:
    return value if isinstance(value, list) else [value]


def cpu_seconds() -> float:
    """User+sys CPU of this process and its reaped children: robust to a busy machine, unlike wall time."""
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def _wrap(family: str, payload: str) -> str:
    tags = {"maze": "ANSWER_JSON", "sokoban": "ANSWER_JSON", "parking": "ANSWER_JSON", "onet": "answer_json"}
    return f"<{tags[family]}>{payload}</{tags[family]}>" if family in tags else payload


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--out", default=None, help="build folder (default: a temporary one)")
    parser.add_argument("--no-floor", action="store_true", help="time the build only")
    parser.add_argument("--families", nargs="+", choices=list(FAMILIES), default=list(FAMILIES),
                        help="build these families only (default: all)")
    args = parser.parse_args()
    if args.out:
        measure(args, Path(args.out))
        return
    with tempfile.TemporaryDirectory(prefix="vgau-bench-") as scratch:  # 400 MB: never left behind
        measure(args, Path(scratch) / "build")


def measure(args: argparse.Namespace, out: Path) -> None:
    """Build into ``out`` and print the figures; then, unless ``--no-floor``, the render+encode floor."""
    cpu_before = cpu_seconds()
    report = build_dataset(out, families=args.families, workers=args.workers, progress=False)
    cpu = cpu_seconds() - cpu_before
    size = sum(parquet_path(out, family).stat().st_size for family in args.families)
    print(f"full build: {sum(map(len, report.lengths.values()))} rows in {report.wall_seconds:.1f} s wall "
          f"({args.workers} workers); {cpu:.1f} s CPU (user+sys, this process and its workers)")
    print(f"download size: {size / 1e6:.0f} MB of Parquet (codecs: {COLUMN_CODECS})")
    for family, seconds in report.family_seconds.items():
        print(f"  {family:<8} {seconds:6.1f} s worker time")
    if args.no_floor:
        return

    import pyarrow.parquet as pq

    items = []
    for family in args.families:
        table = pq.read_table(parquet_path(out, family), columns=["state", "solution", "optimal_length"])
        items += [(family, row["state"], row["solution"], row["optimal_length"]) for row in table.to_pylist()]
    start = time.perf_counter()
    with multiprocessing.get_context("spawn").Pool(args.workers) as pool:
        results = pool.map(render_row, items, chunksize=4)
    floor = time.perf_counter() - start
    per_family: dict[str, float] = {}
    for family, seconds, _ in results:
        per_family[family] = per_family.get(family, 0.0) + seconds
    print(f"render+encode floor: {floor:.1f} s wall for the same images "
          f"({sum(r[2] for r in results) / 1e6:.0f} MB encoded)")
    for family, seconds in per_family.items():
        print(f"  {family:<8} {seconds:6.1f} s worker time")
    print(f"build / floor = {report.wall_seconds / floor:.2f}x")


if __name__ == "__main__":
    main()
