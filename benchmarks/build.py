"""Full-build wall time, download size, time per family, and the render+encode floor of the same images.

    python benchmarks/build.py [--workers 2] [--out DIR]

The size is what a user downloads: the Parquet files (images embedded, encoded per
``instances.COLUMN_CODECS``). The floor re-renders and re-encodes exactly the images of the
built dataset (board, aid, every oracle state with and without the grid) from the stored
states and solutions, with no generation or solving, over the same number of worker processes.
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import resource
import tempfile
import time
from pathlib import Path

from vgau_data.builders import build_dataset
from vgau_data.builders.hub_folder import parquet_path
from vgau_data.builders.instances import COLUMN_CODECS
from vgau_data.oracle_aids import annotate
from vgau_data.registry import FAMILIES
from vgau_data.rendering import encode_image


def render_row(item: tuple[str, str, str]) -> tuple[str, float, int]:
    family_name, state_json, solution_payload = item
    family = FAMILIES[family_name]
    start = time.perf_counter()
    state = family.from_json(state_json)
    answer = family.solve(state).answer if family_name == "path" else None
    if answer is None:
        answer = family.parse_answer(_wrap(family_name, solution_payload))
    board = family.render(state)
    steps = [family.render(s) for s in family.trajectory(state, answer)]
    columns = {"image": [board], "oracle_aid": [annotate(family, board, state)], "oracle_states": steps,
               "oracle_aug_states": [annotate(family, s, state) for s in steps]}
    encoded = sum(len(encode_image(im, COLUMN_CODECS[c])) for c, images in columns.items() for im in images)
    return family_name, time.perf_counter() - start, encoded


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
    args = parser.parse_args()
    out = Path(args.out or tempfile.mkdtemp(prefix="vgau-bench-"))

    cpu_before = cpu_seconds()
    report = build_dataset(out, workers=args.workers, progress=False)
    cpu = cpu_seconds() - cpu_before
    size = sum(parquet_path(out, family).stat().st_size for family in FAMILIES)
    print(f"full build: {sum(map(len, report.lengths.values()))} rows in {report.wall_seconds:.1f} s wall "
          f"({args.workers} workers); {cpu:.1f} s CPU (user+sys, this process and its workers)")
    print(f"download size: {size / 1e6:.0f} MB of Parquet (codecs: {COLUMN_CODECS})")
    for family, seconds in report.family_seconds.items():
        print(f"  {family:<8} {seconds:6.1f} s worker time")
    if args.no_floor:
        return

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
          f"({sum(r[2] for r in results) / 1e6:.0f} MB encoded)")
    for family, seconds in per_family.items():
        print(f"  {family:<8} {seconds:6.1f} s worker time")
    print(f"build / floor = {report.wall_seconds / floor:.2f}x")


if __name__ == "__main__":
    main()
