"""Tests of the bound-pruned numpy solver: A*'s optima, legal answers, one canonical answer per board."""

from __future__ import annotations

import numpy as np
import pytest

from tests.puzzles.parking.test_astar import RED, _boards, _replays
from vgau_data.puzzles.parking import astar, bounded, solver
from vgau_data.puzzles.parking.generator import EXIT_ROW
from vgau_data.puzzles.parking.search import SIZE, LayeredSearch, Search, SearchLimitError
from vgau_data.puzzles.parking.state import from_ascii
from vgau_data.registry import get_family

SPEC = get_family("parking")


def test_fewest_slides__same_optimum_as_astar_and_answers_replay() -> None:
    optima = []
    for cars in _boards(60, 31):
        try:
            expected, _ = astar.fewest_slides(Search(cars), RED, EXIT_ROW, 60_000)
        except SearchLimitError:
            continue
        slides, _ = bounded.fewest_slides(Search(cars), RED, EXIT_ROW, 2_000_000)
        assert (None if slides is None else len(slides)) == (None if expected is None else len(expected)), cars
        if slides is not None:
            _replays(list(cars), slides)
        optima.append(None if expected is None else len(expected))
    assert len(optima) >= 40 and None in optima and max(o for o in optima if o is not None) >= 9


def test_layered_bound__the_bound_of_each_position() -> None:
    for cars in _boards(12, 5):
        search = Search(cars)
        if RED not in search.slots:
            continue
        layered = LayeredSearch(search)
        layers = []
        for layer in layered.layers(np.array([search.key], dtype=np.uint64), 10**6):
            layers.append(layer)
            if sum(map(len, layers)) > 2000:
                break
        positions = np.concatenate(layers)[:2000]
        bound = astar.CorridorBound(search, RED, EXIT_ROW)
        got = bounded.LayeredBound(bound).estimates(layered, positions)
        for key, estimate in zip(positions.tolist(), got.tolist()):
            occupied = int(layered.occupancy(np.array([key], dtype=np.uint64))[0]) | (1 << SIZE * SIZE)
            expected = bound.estimate(key, occupied)
            assert estimate == expected or min(estimate, expected) >= astar.UNREACHABLE


def test_answer_within__none_below_the_optimum_and_the_same_answer_at_or_above_it() -> None:
    state = SPEC.generate("medium", np.random.default_rng(3), SPEC.slot("medium", 7))
    search, red = solver._search(state)
    optimum = len(bounded.fewest_slides(search, red, state.exit_row, 10**6)[0])
    assert bounded.answer_within(search, red, state.exit_row, optimum - 1, 10**6) is None
    at = bounded.answer_within(search, red, state.exit_row, optimum, 10**6)
    above = bounded.answer_within(search, red, state.exit_row, optimum + 4, 10**6)
    assert at == above == bounded.fewest_slides(search, red, state.exit_row, 10**6)[0]


def test_solve_at__the_answer_solve_finds_cold() -> None:
    state = SPEC.generate("hard", np.random.default_rng(11), SPEC.slot("hard", 2))
    length = SPEC.slot("hard", 2).length
    solver._PROVED.clear()
    solver.solve.cache_clear()
    cold = solver.solve(state)
    assert solver.solve_at(state, length - 1) is None
    assert solver.solve_at(state, length) == cold and cold.optimal_length == length
    solver.solve.cache_clear()
    assert solver.solve(state) == cold  # from the proved answers now, the same one


def test_solve__boards_past_21_mobile_cars_go_to_astar() -> None:
    rows = ["BB.CC.DD", "EE.FF.GG", "HH.II.JJ", "RR......>", "KK.LL.MM", "NN.OO.PP", "QQ.SS.TT", "UU.VV.WW"]
    state = from_ascii(rows)
    search, _ = solver._search(state)
    assert len(search.slots) == 22 and not bounded.supports(search)
    assert solver.solve(state).answer == (("R", "right"),) * 6


def test_fewest_slides__gives_up_past_its_budget() -> None:
    cars = _boards(3, 12)[1]
    with pytest.raises(SearchLimitError):
        bounded.fewest_slides(Search(cars), RED, EXIT_ROW, 1)



def test_popcount__swar_counts_as_python_does() -> None:
    values = np.random.default_rng(5).integers(0, 2**63, 500, dtype=np.uint64) | np.uint64(1 << 63)
    values[:3] = (0, 1, 2**64 - 1)
    expected = [int(v).bit_count() for v in values.tolist()]
    assert bounded._swar_popcount(values).tolist() == expected == bounded._popcount(values).tolist()


def _walks_from_scratch(walker: bounded.BoundedSearch, cap: int, max_states: int) -> list[np.ndarray] | None:
    """The walks ``deepen`` grows, each walked again from the start (its reference)."""
    start = np.array([walker.search.key], dtype=np.uint64)
    limit = int(walker.bound.estimates(walker.layered, start)[0])
    while limit <= cap:
        layers, before, next_limit = [start], np.zeros(0, dtype=np.uint64), 1 << 40
        while not len(walker.exits(layers[-1])):
            children = walker.layered.expand(layers[-1], before)
            totals = len(layers) + walker.bound.estimates(walker.layered, children)
            if not (totals <= limit).all():
                next_limit = min(next_limit, int(totals[totals > limit].min()))
            if not (totals <= limit).any():
                break
            if sum(map(len, layers)) + int((totals <= limit).sum()) > max_states:
                raise SearchLimitError("past max_states")
            before = layers[-1]
            layers.append(children[totals <= limit])
        else:
            return layers
        limit = next_limit
    return None


def test_deepen__the_layers_of_each_walk_from_scratch_at_every_cap_and_budget() -> None:
    decided = 0
    for cars in _boards(16, 8):
        search = Search(cars)
        if RED not in search.slots:
            continue
        walker = bounded.BoundedSearch(search, RED, EXIT_ROW)
        try:
            expected = _walks_from_scratch(walker, 60, 20_000)
        except SearchLimitError:
            continue
        got = walker.deepen(60, 20_000)
        assert (got is None) == (expected is None), cars
        if expected is None:
            continue
        decided += 1
        assert len(got) == len(expected) and all(np.array_equal(a, b) for a, b in zip(got, expected)), cars
        optimum, met = len(expected) - 1, sum(map(len, expected))
        assert walker.deepen(optimum - 1, 20_000) is None and len(walker.deepen(optimum, 20_000)) == optimum + 1
        assert walker.deepen(60, met) is not None  # the walk that reaches the exit holds exactly ``met`` positions
        with pytest.raises(SearchLimitError):
            walker.deepen(60, met - 1)
    assert decided >= 6
