"""Where a parking row's CPU goes, per band, and what no smarter choice of board could save.

    python benchmarks/parking_anatomy.py                 # the first 20 catalog candidates of each band
    python benchmarks/parking_anatomy.py --rows 50 --bands 18-34

A medium or hard row draws boards until one serves it (``generator.generate``). Each drawn
board that meets the row's targets has its held-``R`` cluster walked around it
(``_clearing_layer``: the region walk, then the walk from its clear positions) and ends one
of four ways: *pre-rejected* (the region walk alone shows no position can be deep enough),
*shallow* (the clear walk ends short of the row's depth), *deep* (a layer at the row's depth
exists), and then its candidates are *proved* or *fail* ``solve_at``. Boards are also
split by whether their region walk stopped at ``generator.REGION`` positions (*loose*:
the cluster is larger) or searched the whole cluster (*tight*).

Printed per band: boards per row and their outcomes, CPU seconds per stage, the CPU of the
boards that served no row, and the *floor*: the CPU per row had every row drawn its kept
board first and tried its proved candidate first (that board's walks plus one proof).
Nothing a generator does before the walks (which board to draw, which to reject) can make
a row cheaper than its floor without walking fewer positions per board. Catalog seeds and
slots are ``vgau-data generate``'s (``benchmarks/generate.py --rates`` uses the same), on
one core, CPU time.
"""

from __future__ import annotations

import argparse
import collections
import contextlib
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from vgau_data.puzzles.parking import generator
from vgau_data.registry import FAMILIES
from vgau_data.seeding import rng_for, training_seed
from vgau_data.training.bands import Band, candidate_slot, parse_band

MASTER_SEED = 0


@dataclass
class Board:
    """One searched board: its walks' outcome and CPU, and its candidates' proofs."""

    outcome: str = "pre-rejected"  # (or its region walk passed MAX_STATES), shallow, deep
    loose: bool = False
    walked: int = 0  # walks begun: the region's, then the clear positions'
    walks: float = 0.0
    proofs: list[tuple[bool, float]] = field(default_factory=list)


@contextlib.contextmanager
def _traced() -> Iterator[list[Board]]:
    """Record every board ``generator._cleared`` searches while the block runs."""
    boards: list[Board] = []
    clearing, solve_at, layers = generator._clearing_layer, generator.solve_at, generator.LayeredSearch.layers

    def traced_layers(self: Any, sources: Any, max_states: int, within: Any = None) -> Iterator[Any]:
        board, count = boards[-1], 0
        board.walked += 1
        if board.walked == 2:
            board.outcome = "shallow"  # until the walk from the clear positions reaches the depth
        for layer in layers(self, sources, max_states, within):
            count += len(layer)
            if board.walked == 1 and count >= generator.REGION:
                board.loose = True  # the region walk stopped at REGION: a larger cluster
            yield layer

    def traced_clearing(search: Any, layered: Any, depth: int) -> Any:
        boards.append(Board())
        began = time.process_time()
        layer = clearing(search, layered, depth)
        boards[-1].walks = time.process_time() - began
        if layer is not None:
            boards[-1].outcome = "deep"
        return layer

    def traced_solve_at(state: Any, length: int) -> Any:
        began, solution = time.process_time(), None
        try:
            solution = solve_at(state, length)
            return solution
        finally:  # a search past its limit is a failed proof too
            boards[-1].proofs.append((solution is not None, time.process_time() - began))

    generator._clearing_layer, generator.solve_at = traced_clearing, traced_solve_at
    generator.LayeredSearch.layers = traced_layers
    try:
        yield boards
    finally:
        generator._clearing_layer, generator.solve_at = clearing, solve_at
        generator.LayeredSearch.layers = layers


def trace_band(band: Band, rows: int) -> tuple[list[Any], list[list[Board]], float]:
    """Generate the band's first ``rows`` catalog candidates: the states, each row's boards, the CPU seconds."""
    spec = FAMILIES["parking"]
    states, per_row, total = [], [], 0.0
    for index in range(rows):
        bucket, slot = candidate_slot(spec, band, index)
        rng = rng_for(training_seed(MASTER_SEED, "parking", band.name, "train", index))
        with _traced() as boards:
            began = time.process_time()
            states.append(generator.generate(bucket, rng, slot))
            total += time.process_time() - began
        per_row.append(boards)
    return states, per_row, total


def floor_seconds(per_row: list[list[Board]]) -> float:
    """CPU seconds had each row searched only its kept board (its last) and proved only its proved candidate."""
    return sum(boards[-1].walks + next(t for ok, t in boards[-1].proofs if ok) for boards in per_row if boards)


def report(band: Band, per_row: list[list[Board]], total: float) -> None:
    """Print a band's boards by kind and outcome, its proofs, and its floor beside its CPU per row."""
    rows = len(per_row)
    searched = [board for boards in per_row for board in boards]
    print(
        f"parking {band.name}: {rows} rows, {total / rows * 1e3:.0f} ms CPU per row, "
        f"{len(searched) / rows:.1f} searched boards per row"
    )
    if not searched:
        return
    tally: collections.Counter[str] = collections.Counter()
    seconds: collections.Counter[str] = collections.Counter()
    for board in searched:
        kind = ("loose " if board.loose else "tight ") + board.outcome
        tally[kind] += 1
        seconds[kind] += board.walks + sum(t for _, t in board.proofs)
    for kind in sorted(tally):
        print(
            f"  {kind:20s} {tally[kind]:5d} boards  {seconds[kind]:7.2f} s  "
            f"({seconds[kind] / tally[kind] * 1e3:.0f} ms a board, walks and proofs)"
        )
    proofs = [proof for board in searched for proof in board.proofs]
    print(
        f"  proofs: {sum(ok for ok, _ in proofs)} proved / {len(proofs)} tried, "
        f"{sum(t for _, t in proofs):.2f} s; walks {sum(b.walks for b in searched):.2f} s"
    )
    floor = floor_seconds(per_row)
    print(
        f"  floor (kept board's walks + its proof): {floor / rows * 1e3:.0f} ms per row, "
        f"today's CPU is {total / floor:.1f}x the floor"
    )


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=20, help="catalog candidates per band (default 20)")
    parser.add_argument(
        "--bands",
        nargs="+",
        default=["8-16", "18-34"],
        metavar="LO-HI",
        help="bands to trace (default: the medium and hard ones; easy rows search no cluster)",
    )
    args = parser.parse_args(argv)
    if args.rows < 1:
        parser.error(f"--rows must be >= 1, got {args.rows}")
    for text in args.bands:
        band = parse_band(text)
        _, per_row, total = trace_band(band, args.rows)
        report(band, per_row, total)


if __name__ == "__main__":
    main()
