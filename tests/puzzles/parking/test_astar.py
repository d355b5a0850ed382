"""Tests of the solver's A*: the same optimum as the plain BFS, and a bound that never overshoots."""

from __future__ import annotations

import numpy as np
import pytest

from vgau_data.puzzles.parking.astar import UNREACHABLE, CorridorBound, fewest_slides
from vgau_data.puzzles.parking.generator import EXIT_ROW, TIGHTNESS, _board, _targets
from vgau_data.puzzles.parking.search import (
    OFF_BOARD,
    LayeredSearch,
    Search,
    SearchLimitError,
    car_mask,
    shortest_exit,
)
from vgau_data.puzzles.parking.solver import _car
from vgau_data.registry import get_family

RED = 0  # the generator's boards list R first
BFS_CAP = 15_000
"""Positions the reference BFS may meet per board in the fast test (bigger boards are skipped)."""


def _random_board(rng: np.random.Generator, vehicles: int) -> list:
    """R anywhere on row 3, then up to ``vehicles - 1`` cars wherever they fit (any mix, some in its way)."""
    cars = [("h", 2, EXIT_ROW, int(rng.integers(6)))]
    taken = car_mask(cars[0])
    for _ in range(200):
        if len(cars) == vehicles:
            break
        orientation, length = "hv"[int(rng.integers(2))], int(rng.integers(2, 4))
        car = (orientation, length, int(rng.integers(8)), int(rng.integers(9 - length)))
        if orientation == "h" and car[2] == EXIT_ROW:
            continue  # a car ahead of R in its own row: trivially unsolvable
        if not car_mask(car) & taken:
            cars.append(car)
            taken |= car_mask(car)
    return cars


def _boards(count: int, seed: int) -> list[list]:
    """Random sparse boards (5-16 vehicles) and the generator's own draws, half and half."""
    rng = np.random.default_rng(seed)
    boards = []
    for index in range(count):
        if index % 2:
            boards.append(_random_board(rng, int(rng.integers(5, 17))))
            continue
        difficulty = ("easy", "medium", "hard")[index % 3]
        cars = None
        while cars is None:
            cars = _board(
                _targets(difficulty, get_family("parking").slot(difficulty, index)), TIGHTNESS[difficulty], rng
            )
        boards.append(cars)
    return boards


def _compare(boards: list[list], cap: int) -> list[int | None]:
    """The optima both searches agree on, for every board the BFS decides within ``cap``."""
    agreed = []
    for cars in boards:
        try:
            expected, _ = shortest_exit(Search(cars), RED, (EXIT_ROW, 7), cap)
        except SearchLimitError:
            continue
        slides, _ = fewest_slides(Search(cars), RED, EXIT_ROW, 10 * cap)
        assert (None if slides is None else len(slides)) == (None if expected is None else len(expected)), cars
        if slides is not None:
            _replays(cars, slides)
        agreed.append(None if expected is None else len(expected))
    return agreed


def _replays(cars: list, slides: list[tuple[int, bool]]) -> None:
    """The slides are legal, one cell each, and end with R at the exit."""
    cars = list(cars)
    for index, forward in slides:
        orientation, length, fixed, offset = cars[index]
        moved = (orientation, length, fixed, offset + (1 if forward else -1))
        others = sum(car_mask(car) for i, car in enumerate(cars) if i != index)
        assert 0 <= moved[3] <= 8 - length and not car_mask(moved) & others
        cars[index] = moved
    assert cars[RED][3] == 6


def test_fewest_slides__same_optimum_as_the_plain_bfs() -> None:
    optima = _compare(_boards(110, 11), BFS_CAP)
    solved = [o for o in optima if o is not None]
    assert len(optima) >= 60 and len(solved) >= 45
    assert max(solved) >= 9 and None in optima  # long answers and unsolvable boards both covered


@pytest.mark.slow
def test_fewest_slides__same_optimum_as_the_plain_bfs_on_many_large_boards() -> None:
    optima = _compare(_boards(600, 12), 400_000)
    assert len(optima) >= 500 and max(o for o in optima if o is not None) >= 18


def _generated(difficulty: str, indices: range) -> list[list]:
    """The generator's rows, as its cars (R first)."""
    spec = get_family("parking")
    boards = []
    for index in indices:
        state = spec.generate(difficulty, np.random.default_rng(index), spec.slot(difficulty, index))
        boards.append([_car(v) for v in sorted(state.vehicles, key=lambda v: v.id != "R")])
    return boards


def test_fewest_slides__generated_medium_rows_same_optimum_as_the_plain_bfs() -> None:
    optima = _compare(_generated("medium", range(0, 30, 11)), 2_000_000)
    assert len(optima) == 3 and min(optima) >= 8


@pytest.mark.slow
def test_fewest_slides__generated_hard_rows_same_optimum_as_the_plain_bfs() -> None:
    optima = _compare(_generated("hard", range(0, 50, 5)), 8_000_000)
    assert len(optima) >= 8 and min(optima) >= 18


def _exact_distances(cars: list, cap: int) -> tuple[Search, dict[int, int]] | None:
    """Every position of the board's cluster and its true distance (retrograde BFS from the exits)."""
    search = Search(cars)
    layered = LayeredSearch(search)
    try:
        cluster = np.concatenate(list(layered.layers(np.array([search.key], dtype=np.uint64), cap)))
    except SearchLimitError:
        return None
    out = cluster[layered.offsets(cluster, search.slots.index(RED)) == 6]
    distances = {}
    for depth, layer in enumerate(layered.layers(out, cap)):
        distances.update(dict.fromkeys(layer.tolist(), depth))
    return search, distances


def test_corridor_bound__never_above_the_true_distance_and_consistent() -> None:
    checked = positions = 0
    for cars in _boards(60, 21):
        if RED not in Search(cars).slots:
            continue
        exact = _exact_distances(cars, 30_000)
        if exact is None:
            continue
        search, distances = exact
        bound = CorridorBound(search, RED, EXIT_ROW)
        occupancy = LayeredSearch(search).occupancy
        keys = np.array(sorted(distances), dtype=np.uint64)
        for key, occupied in zip(keys.tolist(), occupancy(keys).tolist()):
            occupied |= OFF_BOARD  # what the slide tables test for a slide off the board
            estimate = bound.estimate(key, occupied)
            assert estimate <= distances[key], (cars, key)
            for shift, unit, table in search.moves:  # one slide lowers it by one at most
                head, head_flip, tail, tail_flip = table[(key >> shift) & 7]
                for free, new, flip in ((head, key + unit, head_flip), (tail, key - unit, tail_flip)):
                    if not occupied & free:
                        assert estimate <= 1 + bound.estimate(new, occupied ^ flip)
            positions += 1
        checked += 1
    assert checked >= 6 and positions >= 30_000


def _packed_row(row: int) -> list:
    return [("h", 2, row, column) for column in (0, 2, 4, 6)]  # a full row: none of them ever moves


def test_corridor_bound__a_walled_in_blocker_is_unreachable() -> None:
    # rows 0 and 6 are walls; the truck over rows 1-3 of column 5 can slide (down twice) but
    # never clear row 3: up it needs row 0, down it needs row 6
    cars = [("h", 2, 3, 0), ("v", 3, 5, 1), *_packed_row(0), *_packed_row(6)]
    search = Search(cars)
    assert search.slots == [0, 1]
    assert CorridorBound(search, RED, 3).estimate(search.key, search.occupied) == UNREACHABLE
    assert fewest_slides(search, RED, 3, 10_000) == (None, 1)
    assert shortest_exit(Search(cars), RED, (3, 7), 10_000)[0] is None


@pytest.mark.parametrize(
    "cars",
    [
        [("h", 2, 3, 0), ("h", 2, 3, 4)],  # a car ahead of R in its own row
        [("h", 2, 3, 0), ("v", 2, 4, 2), ("v", 2, 4, 0), ("v", 2, 4, 4), ("v", 2, 4, 6)],  # an immobile column
    ],
)
def test_fewest_slides__walled_in_boards_need_no_search(cars) -> None:
    assert fewest_slides(Search(cars), RED, 3, 1) == (None, 1)  # decided before a single position is met


def test_fewest_slides__gives_up_past_its_budget() -> None:
    cars = [("h", 2, 3, 0), ("v", 3, 4, 2), ("h", 3, 5, 3), ("h", 2, 1, 2), ("v", 2, 7, 0)]
    with pytest.raises(SearchLimitError):
        fewest_slides(Search(cars), RED, 3, 3)
    slides, states = fewest_slides(Search(cars), RED, 3, 10_000)
    assert slides is not None and states > 3
