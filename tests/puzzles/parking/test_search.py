"""Tests of parking's search engine: the numpy ``LayeredSearch`` walks exactly the layers of ``expand``."""

from __future__ import annotations

import numpy as np
import pytest

from vgau_data.puzzles.parking.generator import BUCKETS, GOAL_CAP, _sample_board
from vgau_data.puzzles.parking.search import (
    EMPTY_LAYER,
    LOW_SLOTS,
    LayeredSearch,
    Search,
    expand,
    independent_positions,
    positions_of,
    to_layer,
)

LAYERS = 40
"""Layers compared per board: past the deepest a hard row draws from (30 plus slack)."""
POSITIONS_CAP = 15_000
"""Positions compared per board, so a loose board's huge cluster stays quick."""


def _dict_layers(search: Search, sources: list[tuple[int, int]]) -> list[list[tuple[int, int]]]:
    """Breadth-first layers from ``sources`` by the dict engine."""
    seen = dict.fromkeys((key for key, _ in sources), 0)
    layers, frontier, count = [sources], sources, len(sources)
    while frontier and len(layers) < LAYERS and count < POSITIONS_CAP:
        frontier = expand(frontier, search.moves, seen, len(layers))
        layers.append(frontier)
        count += len(frontier)
    return layers


def _numpy_layers(search: Search, sources: list[tuple[int, int]], depth: int) -> list[list[tuple[int, int]]]:
    """The first ``depth`` layers from ``sources`` by ``LayeredSearch``, as positions."""
    layered = LayeredSearch(search)
    frontier, before = to_layer(sources), EMPTY_LAYER
    layers = [frontier]
    while len(layers) < depth:
        frontier, before = layered.expand(frontier, before), frontier
        layers.append(frontier)
    return [positions_of(layer, range(len(layer[0]))) for layer in layers]


def _boards(count: int) -> list[list]:
    """Dense boards as the generator packs them (``R`` parked on the exit), every bucket's mix."""
    rng = np.random.default_rng(7)
    boards = []
    for index in range(count):
        difficulty = list(BUCKETS)[index % 3]
        boards.append(_sample_board(int(rng.integers(8)), difficulty, rng))
    return boards


def test_layered_search__same_layers_in_the_same_order_as_expand() -> None:
    wide = deep = 0
    for cars in _boards(16):
        search = Search(cars)
        goals = [(search.key, search.occupied)]
        expected = _dict_layers(search, goals)
        assert _numpy_layers(search, goals, len(expected)) == expected, cars
        wide += len(search.slots) > LOW_SLOTS  # slots packed in the high word too
        deep += len(expected) >= 15
    assert wide >= 5 and deep >= 5  # the boards cover both words and long searches


def test_layered_search__from_many_sources_and_sources_reached_again() -> None:
    """A multi-source start (the generator's goal positions) and layers that revisit none of them."""
    cars = next(c for c in _boards(30) if len(Search(c).slots) > LOW_SLOTS)
    search = Search(cars)
    sources = _dict_layers(search, [(search.key, search.occupied)])
    goals = sources[0] + sources[1] + sources[2]  # three layers as one source set
    expected = _dict_layers(search, goals)
    got = _numpy_layers(search, goals, len(expected))
    assert got == expected
    keys = {key for key, _ in goals}
    assert not any(key in keys for layer in got[1:] for key, _ in layer)


@pytest.mark.parametrize("slot", [0, LOW_SLOTS - 1, LOW_SLOTS, LOW_SLOTS + 3])
def test_layer__round_trips_positions_and_reads_offsets(slot) -> None:
    search = Search([("h", 2, 0, 0)])  # the layer's width does not depend on the board
    positions = [(sum(((j + i) % 7) << 3 * j for j in range(LOW_SLOTS + 4)), search.occupied | i) for i in range(3)]
    layer = to_layer(positions)
    assert positions_of(layer, [2, 0, 1]) == [positions[2], positions[0], positions[1]]
    assert LayeredSearch(search).offsets(layer, slot).tolist() == [(slot + i) % 7 for i in range(3)]


def _count_held(cars: list, cap: int) -> int:
    """Positions reachable with ``cars[0]`` held, by the dict engine (stops past ``cap``)."""
    search = Search(cars)
    moves = [move for j, move in enumerate(search.moves) if search.slots[j] != 0]
    frontier = [(search.key, search.occupied)]
    seen = {search.key: 0}
    count = 1
    while frontier and count <= cap:
        frontier = expand(frontier, moves, seen, 0)
        count += len(frontier)
    return count


def test_independent_positions__never_exceeds_the_reachable_count() -> None:
    pruned = 0
    for cars in _boards(200):
        bound = independent_positions(cars, 0)
        assert bound <= _count_held(cars, bound), cars
        pruned += bound > GOAL_CAP
    assert 30 <= pruned <= 170  # it decides for many boards, not all


def test_independent_positions__exact_for_cars_that_never_meet() -> None:
    red = ("h", 2, 3, 6)
    assert independent_positions([red], 0) == 1
    # two vertical cars alone in their columns: 7 offsets each, in every combination
    cars = [red, ("v", 2, 0, 0), ("v", 2, 1, 3)]
    assert independent_positions(cars, 0) == _count_held(cars, 10**6) == 7 * 7
    # a truck on row 0 stops the second car at row 1 and is stopped by the first: ranges of
    # 7, 6 and 5 offsets that sweep apart; the cars do meet once moved, so there are more
    cars.append(("h", 3, 0, 1))
    assert independent_positions(cars, 0) == 7 * 6 * 5 < _count_held(cars, 10**6)
