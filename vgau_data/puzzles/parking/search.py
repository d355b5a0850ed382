"""The bit-board search engine behind parking's solver and generator.

Kept apart from the rules, generation and prompts because it is a different kind of code:
a compact encoding tuned for searches over millions of positions, knowing nothing of
vehicle ids, JSON or pictures.

Encoding:
    A *car* is ``(orientation, length, fixed, offset)``: ``fixed`` is the row of a
    horizontal car (the column of a vertical one) and ``offset`` the coordinate that
    moves. Cars that can never move are found first (``mobile_cars``) and become walls, as
    do cars a search holds in place. A *position* is the int holding each mobile car's
    offset in 3 bits ("slot" j at bit 3j); the board occupancy is a 64-bit mask carried
    along with it, plus the always-set bit 64 that stands for "off the board", so the
    legality of a slide is one AND.

Three searches walk that graph: ``shortest_exit``, a plain forward breadth-first search
(the reference every faster search is tested against); ``astar.fewest_slides``, the
solver's A*; and ``LayeredSearch``, breadth-first layers over numpy arrays, for the
generator's searches of whole clusters.
"""

from __future__ import annotations

import functools
from collections.abc import Collection, Iterator, Sequence
from typing import Final

import numpy as np

from vgau_data.errors import SearchLimitError, VgauError

SIZE: Final = 8
"""The board's side: positions pack offsets 0-7 into 3 bits and occupancy into 64 bits."""

Car = tuple[str, int, int, int]
"""``(orientation, length, fixed, offset)``."""
OFF_BOARD: Final = 1 << (SIZE * SIZE)
MAX_LAYERED_SLOTS: Final = 21
"""Mobile cars a ``LayeredSearch`` packs into one 64-bit word (3 bits each)."""


def cell_of(orientation: str, fixed: int, offset: int) -> tuple[int, int]:
    """The ``(r, c)`` cell at ``offset`` along a car's line."""
    return (fixed, offset) if orientation == "h" else (offset, fixed)


def car_cells(car: Car) -> list[tuple[int, int]]:
    """The cells a car covers."""
    orientation, length, fixed, offset = car
    return [cell_of(orientation, fixed, offset + k) for k in range(length)]


def bit(cell: tuple[int, int]) -> int:
    """The occupancy bit of a cell."""
    return 1 << (cell[0] * SIZE + cell[1])


def car_mask(car: Car) -> int:
    """The occupancy bits of a car's cells."""
    return sum(bit(cell) for cell in car_cells(car))


@functools.cache
def _slide_table(orientation: str, length: int, fixed: int) -> tuple[tuple[int, int, int, int], ...]:
    """Per offset: (cell a forward slide enters, occupancy xor) and the same backward.

    An impossible slide (off the board) tests the always-set off-board bit.
    """
    table = []
    for offset in range(8):
        if offset + length > SIZE:
            table.append((OFF_BOARD, 0, OFF_BOARD, 0))
            continue
        head = bit(cell_of(orientation, fixed, offset + length)) if offset + length < SIZE else OFF_BOARD
        tail = bit(cell_of(orientation, fixed, offset - 1)) if offset > 0 else OFF_BOARD
        first = bit(cell_of(orientation, fixed, offset))
        last = bit(cell_of(orientation, fixed, offset + length - 1))
        table.append((head, head | first if head != OFF_BOARD else 0, tail, tail | last if tail != OFF_BOARD else 0))
    return tuple(table)


def mobile_cars(cars: Sequence[Car], held: Collection[int] = ()) -> list[int]:
    """Indices of the cars that may ever move (a sound over-approximation); ``held`` cars never do.

    A car is mobile when a cell it could slide into is empty, or held by a mobile car
    that can leave that cell within its span (the offsets it can reach when only the
    immobile cars and the board edges block it). Iterated to a fixed point.
    """
    n = len(cars)
    owner = [-1] * (SIZE * SIZE)  # cell index r * SIZE + c -> car
    lines = []  # a car's cell at offset p is base + p * step
    for i, (orientation, length, fixed, offset) in enumerate(cars):
        base, step = (fixed * SIZE, 1) if orientation == "h" else (fixed, SIZE)
        lines.append((base, step))
        for k in range(length):
            owner[base + (offset + k) * step] = i
    mobile = [False] * n
    spans: list[tuple[int, int] | None] = [None] * n  # None: immobile, or mobile since this round
    grew = True
    while grew:
        grew = False
        for i, (_, length, _, offset) in enumerate(cars):
            if mobile[i]:
                base, step = lines[i]
                low = offset
                while low > 0 and (owner[base + (low - 1) * step] < 0 or mobile[owner[base + (low - 1) * step]]):
                    low -= 1
                high = offset
                while high + length < SIZE and (
                    owner[base + (high + length) * step] < 0 or mobile[owner[base + (high + length) * step]]
                ):
                    high += 1
                spans[i] = (low, high)
        for i, (_, length, _, offset) in enumerate(cars):
            if mobile[i] or i in held:
                continue
            base, step = lines[i]
            for position in (offset - 1, offset + length):
                if not 0 <= position < SIZE:
                    continue
                cell = base + position * step
                u = owner[cell]
                if u >= 0:
                    span = spans[u]
                    if span is None:
                        continue
                    r, c = divmod(cell, SIZE)
                    along = c if cars[u][0] == "h" else r  # the cell's offset along u's line
                    if not (span[0] < along - cars[u][1] + 1 or span[1] > along):
                        continue
                mobile[i] = True
                grew = True
                break
    return [i for i in range(n) if mobile[i]]


class Search:
    """A board compiled for search: slide tables of its mobile cars and the start position.

    ``moves`` holds ``(shift, unit, slide table)`` per mobile car (slot), ``key`` the
    start position and ``occupied`` its occupancy mask. Cars in ``held`` stay where they
    are, like walls (the generator holds ``R`` to search the cars around it).
    """

    __slots__ = ("cars", "key", "moves", "occupied", "slots")

    def __init__(self, cars: Sequence[Car], held: Collection[int] = ()) -> None:
        self.cars = list(cars)
        self.slots = mobile_cars(cars, held)
        self.moves = [(3 * j, 1 << 3 * j, _slide_table(*cars[i][:3])) for j, i in enumerate(self.slots)]
        self.key = sum(cars[i][3] << 3 * j for j, i in enumerate(self.slots))
        self.occupied = OFF_BOARD | sum(car_mask(car) for car in cars)

    def offsets(self, key: int) -> list[int]:
        """Every car's offset in the position ``key``."""
        offsets = [car[3] for car in self.cars]
        for j, i in enumerate(self.slots):
            offsets[i] = (key >> 3 * j) & 7
        return offsets


class LayeredSearch:
    """Breadth-first layers of a ``Search`` over numpy arrays of positions.

    A layer is a sorted array of distinct uint64 positions. Slides are reversible, so a
    neighbour of layer d lies in layer d-1, d or d+1, and ``expand(layer, before)`` only
    checks the layer and the one ``before`` it. Occupancy is recomputed from the offsets
    (one lookup per car), not carried along. Layers are sorted, so what a generator draws
    from them depends only on the board.
    """

    __slots__ = ("_slots", "_walls")

    def __init__(self, search: Search) -> None:
        n = len(search.slots)
        if n > MAX_LAYERED_SLOTS:
            raise VgauError(f"a layered search packs at most {MAX_LAYERED_SLOTS} mobile cars, got {n}")
        everything = (1 << 64) - 1  # an off-board cell: never free
        slots = []
        for j, i in enumerate(search.slots):
            orientation, length, fixed, _ = search.cars[i]
            table = _slide_table(orientation, length, fixed)
            heads = np.array([everything if head & OFF_BOARD else head for head, _, _, _ in table], dtype=np.uint64)
            tails = np.array([everything if tail & OFF_BOARD else tail for _, _, tail, _ in table], dtype=np.uint64)
            cells = np.array(
                [
                    car_mask((orientation, length, fixed, offset)) if offset + length <= SIZE else 0
                    for offset in range(8)
                ],
                dtype=np.uint64,
            )
            slots.append((np.int64(3 * j), np.uint64(1 << 3 * j), heads, tails, cells))
        self._slots = tuple(slots)
        moving = set(search.slots)
        self._walls = np.uint64(sum(car_mask(car) for i, car in enumerate(search.cars) if i not in moving))

    def offsets(self, layer: np.ndarray, slot: int) -> np.ndarray:
        """The offset of ``slot`` in every position of ``layer``."""
        return (layer >> np.uint64(3 * slot)) & np.uint64(7)

    def occupancy(self, layer: np.ndarray) -> np.ndarray:
        """The occupied cells of every position of ``layer`` (without the off-board bit)."""
        return self._occupancy(layer, self._all_offsets(layer))

    def _all_offsets(self, layer: np.ndarray) -> list[np.ndarray]:
        signed, seven = layer.view(np.int64), np.int64(7)  # positions use at most 63 bits
        return [(signed >> shift) & seven for shift, _, _, _, _ in self._slots]

    def _occupancy(self, layer: np.ndarray, offsets: list[np.ndarray]) -> np.ndarray:
        occupied = np.full(len(layer), self._walls, dtype=np.uint64)
        for (_, _, _, _, cells), offset in zip(self._slots, offsets):
            occupied |= cells[offset]
        return occupied

    def expand(self, layer: np.ndarray, before: np.ndarray) -> np.ndarray:
        """The next layer after ``layer``, whose own previous layer is ``before``.

        One sort does the work of three: the old positions (flag bit 0) and the children
        (flag 1) are sorted together, each already in sorted runs (a slide adds the same
        number to every position of a sorted layer), and a child is new when no old copy
        sorts before it. Positions use at most 63 bits, so the flag fits.
        """
        offsets = self._all_offsets(layer)
        occupied = self._occupancy(layer, offsets)
        one = np.uint64(1)
        flagged = (layer << one) | one
        parts = [layer << one, before << one]
        for (_, unit, heads, tails, _), offset in zip(self._slots, offsets):
            parts.append(flagged[(heads[offset] & occupied) == 0] + (unit << one))
            parts.append(flagged[(tails[offset] & occupied) == 0] - (unit << one))
        merged = np.concatenate(parts)
        merged.sort(kind="stable")
        values = merged >> one
        first = np.empty(len(merged), dtype=bool)
        first[:1] = True
        np.not_equal(values[1:], values[:-1], out=first[1:])
        first &= (merged & one).astype(bool)
        return values[first]

    def layers(
        self, sources: np.ndarray, max_states: int, within: np.ndarray | None = None
    ) -> Iterator[np.ndarray]:
        """The breadth-first layers from ``sources`` (any positions), the sources first.

        ``within`` (sorted positions) restricts the walk to those positions: distances are
        then those of the positions' own graph, never shorter than the whole board's.

        Raises:
            SearchLimitError: once the layers so far hold more than ``max_states`` positions.
        """
        layer, before = _distinct(sources.astype(np.uint64)), np.zeros(0, dtype=np.uint64)
        count = 0
        while len(layer):
            count += len(layer)
            if count > max_states:
                raise SearchLimitError(f"parking layers: more than {max_states} positions")
            yield layer
            layer, before = self.expand(layer, before), layer
            if within is not None:
                layer = layer[_members(layer, within)]


def _distinct(values: np.ndarray) -> np.ndarray:
    """The distinct values, sorted (``np.unique`` hashes uint64 about 50x slower than this sort)."""
    ordered = np.sort(values)
    keep = np.ones(len(ordered), dtype=bool)
    keep[1:] = ordered[1:] != ordered[:-1]
    return ordered[keep]


def _members(values: np.ndarray, sorted_keys: np.ndarray) -> np.ndarray:
    """Which of ``values`` occur in the sorted array ``sorted_keys``."""
    if not len(sorted_keys):
        return np.zeros(len(values), dtype=bool)
    index = np.minimum(np.searchsorted(sorted_keys, values), len(sorted_keys) - 1)
    return sorted_keys[index] == values


def shortest_exit(
    search: Search, red: int, exit_cell: tuple[int, int], max_states: int
) -> tuple[list[tuple[int, bool]] | None, int]:
    """The fewest slides that bring car ``red`` (horizontal) to the last column, by forward BFS.

    The plain exhaustive search, kept as the reference the solver's A* is tested against.

    Returns ``(slides, states)``: the slides as ``(car index, forward)`` pairs (``[]`` when
    the car is already there, None when no sequence of slides gets it there) and the
    positions met.

    Raises:
        SearchLimitError: when more than ``max_states`` positions were met first.
    """
    length, offset = search.cars[red][1], search.cars[red][3]
    goal = SIZE - length
    if offset == goal:
        return [], 1
    if red not in search.slots:
        return None, 1
    shift = 3 * search.slots.index(red)
    exit_bit = bit(exit_cell)
    last = goal - 1  # the car's offset one slide before the goal
    parent = {search.key: -1}
    frontier = [(search.key, search.occupied)]
    moves = search.moves
    while frontier:
        layer = []
        append = layer.append
        for key, occupied in frontier:
            if (key >> shift) & 7 == last and not occupied & exit_bit:
                parent[key + (1 << shift)] = key
                return trace_slides(parent, key + (1 << shift), search), len(parent)
            for slot_shift, unit, table in moves:
                head, head_xor, tail, tail_xor = table[(key >> slot_shift) & 7]
                if not occupied & head:
                    new = key + unit
                    if new not in parent:
                        parent[new] = key
                        append((new, occupied ^ head_xor))
                if not occupied & tail:
                    new = key - unit
                    if new not in parent:
                        parent[new] = key
                        append((new, occupied ^ tail_xor))
        if len(parent) > max_states:
            raise SearchLimitError(f"parking solve: more than {max_states} positions; board too loose")
        frontier = layer
    return None, len(parent)


def trace_slides(parent: dict[int, int], key: int, search: Search) -> list[tuple[int, bool]]:
    """The slides from the start to ``key`` along ``parent`` links (the start's parent is -1)."""
    slides: list[tuple[int, bool]] = []
    while parent[key] >= 0:
        before = parent[key]
        slot = ((key ^ before).bit_length() - 1) // 3
        slides.append((search.slots[slot], key > before))
        key = before
    slides.reverse()
    return slides
