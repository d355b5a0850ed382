"""Tests of parking's generator: the authors' structure per row, exact optima, determinism.

The bucket means of a whole build against the authors' are ``benchmarks/structure.py``'s
job; here each row is checked against its own targets.
"""

from __future__ import annotations

import statistics

import numpy as np
import pytest

from vgau_data.errors import GenerationError
from vgau_data.puzzles.base import BUCKET_SIZES, Slot
from vgau_data.puzzles.parking.generator import (
    BUCKETS,
    EXIT_ROW,
    LENGTH_MIX,
    TIGHTNESS,
    VEHICLE_RANGE,
    _board,
    _free_slides,
    _targets,
    generate,
)
from vgau_data.puzzles.parking.solver import solve
from vgau_data.puzzles.parking.structure import AUTHORS, measure
from vgau_data.registry import get_family
from vgau_data.seeding import rng_for

SPEC = get_family("parking")


@pytest.mark.parametrize("difficulty", list(BUCKETS))
def test_targets__average_the_authors_figures_over_a_bucket(difficulty) -> None:
    rows = [_targets(difficulty, SPEC.slot(difficulty, i)) for i in range(BUCKET_SIZES[difficulty])]
    authors = AUTHORS[difficulty]
    assert statistics.fmean(1 + t.others for t in rows) == pytest.approx(authors["vehicles"], rel=0.05)
    assert statistics.fmean(t.trucks for t in rows) == pytest.approx(authors["trucks"], rel=0.1)
    assert statistics.fmean(t.vertical for t in rows) == pytest.approx(authors["vertical"], rel=0.1)
    assert statistics.fmean(t.blockers for t in rows) == pytest.approx(authors["blockers"], rel=0.1)
    assert statistics.fmean(t.red_distance for t in rows) == pytest.approx(authors["red_distance"], rel=0.05)
    fewest, most = VEHICLE_RANGE[difficulty]
    for t in rows:
        assert t.trucks <= t.others and t.blockers <= min(t.vertical, t.red_distance) <= t.others
        assert fewest <= 1 + t.others <= most
    by_length = sorted((SPEC.slot(difficulty, i).length, 1 + t.others) for i, t in enumerate(rows))
    half = len(rows) // 2
    assert statistics.fmean(v for _, v in by_length[half:]) > statistics.fmean(v for _, v in by_length[:half])


def test_length_mix__the_authors_histogram_up_to_their_longest_row() -> None:
    assert {d: sum(mix.values()) for d, mix in LENGTH_MIX.items()} == dict(BUCKET_SIZES)
    assert max(LENGTH_MIX["hard"]) == 34 and LENGTH_MIX["hard"][31] == 2


@pytest.mark.parametrize("difficulty", list(BUCKETS))
def test_board__meets_its_targets(difficulty) -> None:
    rng = np.random.default_rng(4)
    drawn = 0
    for index in range(2000):
        if drawn == 8:
            break
        targets = _targets(difficulty, SPEC.slot(difficulty, index % BUCKET_SIZES[difficulty]))
        cars = _board(targets, TIGHTNESS[difficulty], rng)
        if cars is None:
            continue
        drawn += 1
        red, others = cars[0], cars[1:]
        assert red == ("h", 2, EXIT_ROW, 6 - targets.red_distance)
        assert len(others) == targets.others
        assert sum(car[1] == 3 for car in others) == targets.trucks
        assert sum(car[0] == "v" for car in others) == targets.vertical
        crossing = [c for c in others if c[0] == "v" and c[2] >= red[3] + 2 and c[3] <= EXIT_ROW < c[3] + c[1]]
        assert len(crossing) == targets.blockers
        assert not any(c[0] == "h" and c[2] == EXIT_ROW and c[3] > red[3] for c in others)
        assert _free_slides(cars) <= TIGHTNESS[difficulty]
    assert drawn == 8


@pytest.mark.parametrize(
    ("difficulty", "indices"), [("easy", range(0, 20, 3)), ("medium", range(0, 30, 6)), ("hard", (0, 3))]
)
def test_generate__rows_built_to_their_slot_and_targets(difficulty, indices) -> None:
    for index in indices:
        slot = SPEC.slot(difficulty, index)
        state = generate(difficulty, np.random.default_rng(index), slot)
        solution = solve(state)
        assert solution.optimal_length == slot.length
        targets = _targets(difficulty, slot)
        measures = measure(state, solution.answer)
        assert state.exit_row == EXIT_ROW
        assert measures["vehicles"] == 1 + targets.others
        assert (measures["trucks"], measures["vertical"]) == (targets.trucks, targets.vertical)
        assert measures["red_distance"] == targets.red_distance
        assert abs(measures["blockers"] - targets.blockers) <= 2


def test_generate__the_row_of_a_seed_is_always_the_same() -> None:
    slot = SPEC.slot("hard", 1)
    first = generate("hard", rng_for(1234), slot)
    assert generate("hard", rng_for(1234), slot) == first
    assert generate("hard", rng_for(1235), slot) != first


def test_generate__gives_up_after_its_attempts() -> None:
    with pytest.raises(GenerationError, match="no state of length 34 in 1 boards"):
        generate("hard", np.random.default_rng(0), Slot(34, 0.5), max_attempts=1)


@pytest.mark.parametrize(("difficulty", "length"), [("easy", 8), ("tiny", 3)])
def test_generate__rejects_a_bad_request(difficulty, length) -> None:
    with pytest.raises(ValueError):
        generate(difficulty, np.random.default_rng(0), Slot(length, 0.0))
