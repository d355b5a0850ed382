"""Full-build wall time, time per family, and the render+PNG-encode floor of the same images.

    python benchmarks/build.py [--workers 2] [--out DIR]

The floor re-renders and re-encodes exactly the images of the built dataset (board, aid,
every oracle state with and without the grid) from the stored states and solutions, with
no generation or solving, over the same number of worker processes.
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import tempfile
import time
from pathlib import Path

from vgau_data.builders import build_dataset
from vgau_data.builders.hub_folder import parquet_path
from vgau_data.oracle_aids import annotate
from vgau_data.registry import FAMILIES
from vgau_data.rendering import png_bytes


def render_row(item: tuple[str, str, str]) -> tuple[str, float, int]:
    family_name, state_json, solution_payload = item
    family = FAMILIES[family_name]
    start = time.perf_counter()
    state = family.from_json(state_json)
    answer = family.solve(state).answer if family_name == "path" else None
    if answer is None:
        answer = family.parse_answer(_wrap(family_name, solution_payload))
    board = family.render(state)
    images = [board, annotate(family, board, state)]
    steps = [family.render(s) for s in family.trajectory(state, answer)]
    images += steps + [annotate(family, s, state) for s in steps]
    encoded = sum(len(png_bytes(image)) for image in images)
    return family_name, time.perf_counter() - start, encoded


def _wrap(family: str, payload: str) -> str:
    tags = {"maze": "ANSWER_JSON", "sokoban": "ANSWER_JSON", "parking": "ANSWER_JSON", "onet": "answer_json"}
    return f"<{tags[family]}>{payload}</{tags[family]}>" if family in tags else payload


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--out", default=None, help="build folder (default: a temporary one)")
    args = parser.parse_args()
    out = Path(args.out or tempfile.mkdtemp(prefix="vgau-bench-"))

    report = build_dataset(out, workers=args.workers, progress=False)
    print(f"full build: {sum(map(len, report.lengths.values()))} rows in {report.wall_seconds:.1f} s wall "
          f"({args.workers} workers)")
    for family, seconds in report.family_seconds.items():
        print(f"  {family:<8} {seconds:6.1f} s worker time")

    import pyarrow.parquet as pq

    items = []
    for family in FAMILIES:
        table = pq.read_table(parquet_path(out, family), columns=["state", "solution"]).to_pylist()
        items += [(family, row["state"], row["solution"]) for row in table]
    start = time.perf_counter()
    with multiprocessing.get_context("spawn").Pool(args.workers) as pool:
        results = pool.map(render_row, items, chunksize=4)
    floor = time.perf_counter() - start
    per_family: dict[str, float] = {}
    for family, seconds, _ in results:
        per_family[family] = per_family.get(family, 0.0) + seconds
    print(f"render+encode floor: {floor:.1f} s wall for the same images "
          f"({sum(r[2] for r in results) / 1e6:.0f} MB of PNG)")
    for family, seconds in per_family.items():
        print(f"  {family:<8} {seconds:6.1f} s worker time")
    print(f"build / floor = {report.wall_seconds / floor:.2f}x")


if __name__ == "__main__":
    main()
