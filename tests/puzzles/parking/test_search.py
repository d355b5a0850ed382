"""Tests of parking's search engine: ``LayeredSearch`` walks the breadth-first layers of a plain BFS."""

from __future__ import annotations

import numpy as np
import pytest

from vgau_data.errors import VgauError
from vgau_data.puzzles.parking.generator import TIGHTNESS, _board, _targets
from vgau_data.puzzles.parking.search import (
    LayeredSearch,
    Search,
    SearchLimitError,
    car_mask,
    mobile_cars,
)
from vgau_data.registry import get_family

SPEC = get_family("parking")
POSITIONS_CAP = 20_000
"""Positions compared per board, so a loose board's cluster stays quick."""


def _reference_layers(search: Search, sources: list[int]) -> list[set[int]]:
    """Breadth-first layers from ``sources`` with Python ints and a dict, slide by slide."""
    occupied = {key: _occupancy(search, key) for key in sources}
    layers, frontier, count = [set(sources)], list(sources), len(sources)
    while frontier and count < POSITIONS_CAP:
        layer = []
        for key in frontier:
            for shift, unit, table in search.moves:
                head, head_flip, tail, tail_flip = table[(key >> shift) & 7]
                for free, new, flip in ((head, key + unit, head_flip), (tail, key - unit, tail_flip)):
                    if not occupied[key] & free and new not in occupied:
                        occupied[new] = occupied[key] ^ flip
                        layer.append(new)
        if layer:
            layers.append(set(layer))
        frontier, count = layer, count + len(layer)
    return layers


def _occupancy(search: Search, key: int) -> int:
    offsets = search.offsets(key)
    return (search.occupied & (1 << 64)) | sum(car_mask((*car[:3], o)) for car, o in zip(search.cars, offsets))


def _numpy_layers(search: Search, sources: list[int], depth: int) -> list[set[int]]:
    layers = LayeredSearch(search).layers(np.array(sources, dtype=np.uint64), 10**7)
    return [set(layer.tolist()) for _, layer in zip(range(depth), layers)]


def _boards(count: int, difficulty: str, seed: int) -> list[list]:
    """Boards as the generator draws them, over a bucket's row targets."""
    rng = np.random.default_rng(seed)
    boards = []
    while len(boards) < count:
        slot = SPEC.slot(difficulty, len(boards))
        cars = _board(_targets(difficulty, slot), TIGHTNESS[difficulty], rng)
        if cars is not None:
            boards.append(cars)
    return boards


@pytest.mark.parametrize("difficulty", ["easy", "medium", "hard"])
def test_layered_search__the_layers_of_a_plain_bfs(difficulty) -> None:
    deep = 0
    for cars in _boards(6, difficulty, 7):
        for held in ((), (0,)):  # as solved, and with R held as the generator searches
            search = Search(cars, held)
            expected = _reference_layers(search, [search.key])
            got = _numpy_layers(search, [search.key], len(expected))
            assert got == expected, cars
            deep += len(expected) >= 10
    assert deep >= 3


def test_layered_search__layers_are_sorted_and_distinct_from_many_sources() -> None:
    cars = _boards(1, "hard", 3)[0]
    search = Search(cars, held=(0,))
    reference = _reference_layers(search, [search.key])
    sources = sorted(reference[0] | reference[1] | reference[2])  # three layers as one source set
    expected = _reference_layers(search, sources)
    layers = list(LayeredSearch(search).layers(np.array(sources[::-1] * 2, dtype=np.uint64), 10**7))
    assert [set(layer.tolist()) for layer in layers[: len(expected)]] == expected
    for layer in layers:
        assert (np.diff(layer.astype(np.int64)) > 0).all()
    assert not set(sources) & set(np.concatenate(layers[1:]).tolist())


def test_layered_search__occupancy_and_offsets_of_a_layer() -> None:
    cars = _boards(1, "medium", 5)[0]
    search = Search(cars)
    layered = LayeredSearch(search)
    layer = next(iter(layered.layers(np.array([search.key], dtype=np.uint64), 10)))
    assert layered.occupancy(layer).tolist() == [search.occupied & ((1 << 64) - 1)]
    for j, i in enumerate(search.slots):
        assert layered.offsets(layer, j).tolist() == [cars[i][3]]


def test_layered_search__gives_up_past_its_budget() -> None:
    cars = _boards(1, "easy", 1)[0]  # a loose board
    search = Search(cars)
    with pytest.raises(SearchLimitError):
        list(LayeredSearch(search).layers(np.array([search.key], dtype=np.uint64), 50))


def test_layered_search__refuses_more_cars_than_a_word_holds() -> None:
    stacked = [("v", 2, column, top) for column in range(8) for top in (0, 2, 4)]  # each column drops into rows 6-7
    search = Search(stacked)
    assert len(search.slots) == 24
    with pytest.raises(VgauError, match="at most 21"):
        LayeredSearch(search)


def test_mobile_cars__held_cars_never_move_nor_free_others() -> None:
    red, above, free = ("h", 2, 3, 0), ("v", 3, 0, 0), ("h", 2, 6, 3)  # the truck's only way down is R's cell
    assert mobile_cars([red, above, free]) == [0, 1, 2]
    assert mobile_cars([red, above, free], held=(0,)) == [2]
