"""Structure statistics of our buckets beside the authors' (and the paper's Tables 5-6 for maze).

    python benchmarks/structure.py                          # generate a seed-0 build's states (no images)
    python benchmarks/structure.py --dataset DIR            # read a folder written by `vgau-data build`
    python benchmarks/structure.py --paper-data /work/paper-data/data   # theirs recomputed from their files
    python benchmarks/structure.py --paper-data DIR --authors-literal   # print each family's `structure.AUTHORS` anew

After the table, parking's loose boards (``parking.structure.is_loose``: more than 300,000
positions with ``R`` held), ours beside the authors' per bucket (theirs from ``--paper-data``,
or the counts ``AUTHORS_LOOSE`` records).

Each cell is ``ours / authors [/ paper] (difference to the authors)``; a ``!`` marks a
difference beyond 20% (for maze: beyond 15% of the paper). Without ``--dataset`` the
states are generated row by row exactly as a build of ``--seed`` derives them (slots and
seeds, no images; a build would replace the rare duplicate state). The authors' figures
default to the numbers each family declares (``AUTHORS`` in ``vgau_data/puzzles/<family>/structure.py``).
Families that declare no structure statistics are left out.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Sequence

from vgau_data.builders import structure
from vgau_data.builders.instances import RowTask, generate_verified
from vgau_data.builders.load import read_config_columns
from vgau_data.puzzles.base import BUCKET_SIZES, DIFFICULTIES
from vgau_data.puzzles.parking import structure as parking_structure
from vgau_data.registry import FAMILIES

AUTHOR_TOLERANCE = 0.20
PAPER_TOLERANCE = 0.15


LOOSE_STATES: list[tuple[str, object]] = []
"""``(difficulty, state)`` of the parking rows measured, for the loose-board count."""


def generated(seed: int, families: Sequence[str]) -> list[tuple[str, str, structure.Measures]]:
    """Measures of the rows a build of ``seed`` holds, generated without images."""
    measured = []
    for family in families:
        spec = FAMILIES[family]
        if spec.structure is None:
            continue
        for difficulty in DIFFICULTIES:
            for index in range(BUCKET_SIZES[difficulty]):
                task = RowTask(family, difficulty, index, seed)
                state, solution = generate_verified(family, difficulty, task.seed, task.slot)
                if family == "parking":
                    LOOSE_STATES.append((difficulty, state))
                measured.append((family, difficulty, structure.measure(spec.name, state, solution.answer)))
    return measured


def from_dataset(folder: str, families: Sequence[str]) -> list[tuple[str, str, structure.Measures]]:
    if "parking" in families:
        spec = FAMILIES["parking"]
        for row in read_config_columns(folder, "parking", ["difficulty", "state"]):
            LOOSE_STATES.append((row["difficulty"], spec.from_json(row["state"])))
    measured = (
        (family, row["difficulty"], structure.measure_row(row))
        for family in families
        if FAMILIES[family].structure is not None
        for row in read_config_columns(folder, family, ["task", "difficulty", "state", "solution"])
    )
    return [(family, difficulty, measures) for family, difficulty, measures in measured if measures is not None]


def loose_counts(states: Sequence[tuple[str, object]]) -> dict[str, tuple[int, int]]:
    """Per bucket, ``(loose boards, boards)``."""
    counts: dict[str, list[int]] = {}
    for difficulty, state in states:
        tally = counts.setdefault(difficulty, [0, 0])
        tally[0] += parking_structure.is_loose(state)  # type: ignore[arg-type]
        tally[1] += 1
    return {difficulty: (loose, rows) for difficulty, (loose, rows) in counts.items()}


def authors_loose(paper_data: str) -> dict[str, tuple[int, int]]:
    """The authors' loose parking boards per bucket, from their ``data/`` folder."""
    import json
    from pathlib import Path

    from vgau_data.puzzles.parking.paper import PAPER
    from vgau_data.puzzles.parking.state import from_json

    records = json.loads((Path(paper_data) / PAPER.manifest).read_text(encoding="utf-8"))
    states = []
    for record in records:
        read = PAPER.read(record, None)
        states.append((read.difficulty, from_json(json.dumps(read.state))))
    return loose_counts(states)


def print_loose(ours: dict[str, tuple[int, int]], theirs: dict[str, tuple[int, int]]) -> None:
    """Parking's loose boards per bucket, ours beside the authors', with a ``!`` past 20% of theirs."""
    print(f"parking boards with more than {parking_structure.LOOSE:,} positions with R held:")
    for difficulty in DIFFICULTIES:
        mine, their = ours.get(difficulty), theirs.get(difficulty)
        if mine is None:
            continue
        share = mine[0] / mine[1]
        text = f"  {difficulty:6s} ours {mine[0]}/{mine[1]} = {share:.0%}"
        if their is not None:
            reference = their[0] / their[1]
            off = reference > 0 and abs(share / reference - 1) > AUTHOR_TOLERANCE
            text += f"  authors {their[0]}/{their[1]} = {reference:.0%}{' !' if off else ''}"
        print(text)


def flagged(row: structure.Comparison, difficulty: str) -> bool:
    difference = row.difference(difficulty)
    paper = row.paper[difficulty]
    ours = row.ours[difficulty]
    if paper is not None and ours is not None and abs(ours / paper - 1) > PAPER_TOLERANCE:
        return True
    return difference is not None and abs(difference) > AUTHOR_TOLERANCE


def print_table(rows: Sequence[structure.Comparison]) -> None:
    print(f"{'family':8s} {'statistic':44s} " + " ".join(f"{d:>30s}" for d in DIFFICULTIES))
    for row in rows:
        cells = []
        for difficulty in DIFFICULTIES:
            text = structure.cell_text(row, difficulty)
            cells.append(f"{text + (' !' if flagged(row, difficulty) else '  '):>30s}")
        print(f"{row.family:8s} {row.statistic.label:44s} " + " ".join(cells))


def authors_literal(authors: structure.BucketMeans) -> str:
    """The figures as the Python source of each family's ``AUTHORS`` (two decimals)."""
    lines = []
    for family, by_difficulty in authors.items():
        lines.append(f"# vgau_data/puzzles/{family}/structure.py")
        lines.append("AUTHORS: Final[dict[str, Measures]] = {")
        for difficulty, means in by_difficulty.items():
            items = [f'"{key}": {round(value, 2)}' for key, value in means.items()]
            line = f'    "{difficulty}": {{{", ".join(items)}}},'
            if len(line) > 120:
                inner = [f"        {item}," for item in items]
                line = "\n".join([f'    "{difficulty}": {{', *inner, "    },"])
            lines.append(line)
        lines.append("}")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seed", type=int, default=0, help="master seed of the generated build (default 0)")
    parser.add_argument("--dataset", help="a folder written by `vgau-data build` (default: generate the states)")
    parser.add_argument("--families", nargs="+", default=list(FAMILIES), choices=list(FAMILIES))
    parser.add_argument("--paper-data", help="the authors' data/ folder: recompute their figures from it")
    parser.add_argument("--authors-literal", action="store_true", help="print their figures as Python source, stop")
    args = parser.parse_args()

    authors = structure.bucket_means(structure.read_authors(args.paper_data)) if args.paper_data else None
    if args.authors_literal:
        if authors is None:
            parser.error("--authors-literal needs --paper-data")
        print(authors_literal(authors))
        return
    began = time.perf_counter()
    measured = from_dataset(args.dataset, args.families) if args.dataset else generated(args.seed, args.families)
    source = args.dataset or f"generated seed {args.seed}"
    print(f"ours: {source} ({len(measured)} rows, {time.perf_counter() - began:.1f} s); "
          f"authors: {args.paper_data or 'structure.AUTHORS'}")
    print_table(structure.compare(structure.bucket_means(measured), authors))
    if LOOSE_STATES:
        theirs = authors_loose(args.paper_data) if args.paper_data else parking_structure.AUTHORS_LOOSE
        print_loose(loose_counts(LOOSE_STATES), theirs)


if __name__ == "__main__":
    main()
