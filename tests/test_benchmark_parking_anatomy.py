"""``benchmarks/parking_anatomy.py``: tracing a parking row's boards changes no row, and its books balance."""

from __future__ import annotations

import runpy
from pathlib import Path

from vgau_data.puzzles.parking import generator
from vgau_data.registry import FAMILIES
from vgau_data.seeding import rng_for, training_seed
from vgau_data.training.bands import Band, candidate_slot

ANATOMY = runpy.run_path(str(Path(__file__).resolve().parents[1] / "benchmarks" / "parking_anatomy.py"))


def test_traced_rows_are_the_untraced_rows_and_each_kept_board_is_proved_once() -> None:
    band = Band(8, 16)
    states, per_row, total = ANATOMY["trace_band"](band, 3)
    for index, (state, boards) in enumerate(zip(states, per_row)):
        bucket, slot = candidate_slot(FAMILIES["parking"], band, index)
        untraced = generator.generate(bucket, rng_for(training_seed(0, "parking", band.name, "train", index)), slot)
        assert state == untraced
        kept = boards[-1]
        assert kept.outcome == "deep" and [ok for ok, _ in kept.proofs].count(True) == 1 and kept.proofs[-1][0]
        assert all(not any(ok for ok, _ in board.proofs) for board in boards[:-1])
        assert all(board.walked in (1, 2) and board.walks > 0 for board in boards)
    assert 0 < ANATOMY["floor_seconds"](per_row) <= total
    assert generator.solve_at.__name__ == "solve_at", "the tracing is undone after each row"
