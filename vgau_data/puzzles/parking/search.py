"""The bit-board search engine behind parking's solver and generator.

Kept apart from ``parking.py`` (rules, generation, prompts) because it is a different
kind of code: a compact encoding tuned for breadth-first search over millions of
positions, knowing nothing of vehicle ids, JSON or pictures.

Encoding:
    A *car* is ``(orientation, length, fixed, offset)``: ``fixed`` is the row of a
    horizontal car (the column of a vertical one) and ``offset`` the coordinate that
    moves. Cars that can never move are found first (``mobile_cars``) and become walls. A
    *position* is the int holding each mobile car's offset in 3 bits ("slot" j at bit
    3j); the board occupancy is a 64-bit mask carried along with it, plus the always-set
    bit 64 that stands for "off the board", so the legality of a slide is one AND.

Two engines walk the same graph: ``expand`` (Python ints and a ``seen`` dict) for the small
searches, and ``LayeredSearch`` (numpy arrays, one layer at a time) for the retrograde
searches of the generator, whose layers run to thousands of positions. Both list a layer's
positions in the same order: by position of the layer before, then slot, forward first.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Final

import numpy as np

from vgau_data.errors import VgauError

SIZE: Final = 8
"""The board's side: positions pack offsets 0-7 into 3 bits and occupancy into 64 bits."""

Car = tuple[str, int, int, int]
"""``(orientation, length, fixed, offset)``."""
OFF_BOARD: Final = 1 << (SIZE * SIZE)


class SearchLimitError(VgauError, RuntimeError):
    """A search met more positions than its ``max_states`` before deciding."""


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


def mobile_cars(cars: Sequence[Car]) -> list[int]:
    """Indices of the cars that may ever move (a sound over-approximation).

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
            if mobile[i]:
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
                    held = c if cars[u][0] == "h" else r  # the cell's offset along u's line
                    if not (span[0] < held - cars[u][1] + 1 or span[1] > held):
                        continue
                mobile[i] = True
                grew = True
                break
    return [i for i in range(n) if mobile[i]]


def independent_positions(cars: Sequence[Car], held: int) -> int:
    """A lower bound on the positions reachable while car ``held`` stays put (cheap: no search).

    Each other car's range is the offsets it reaches alone; cars whose ranges sweep
    disjoint cells never block each other, so every combination of their offsets is
    reachable, and the product of their range sizes is at most the true count.
    """
    occupied = 0
    for car in cars:
        for cell in car_cells(car):
            occupied |= bit(cell)
    swept_by_any, product = 0, 1
    for i, (orientation, length, fixed, offset) in enumerate(cars):
        if i == held:
            continue
        base, step = (fixed * SIZE, 1) if orientation == "h" else (fixed, SIZE)
        low = offset
        while low > 0 and not occupied >> (base + (low - 1) * step) & 1:
            low -= 1
        high = offset
        while high + length < SIZE and not occupied >> (base + (high + length) * step) & 1:
            high += 1
        swept = sum(1 << (base + p * step) for p in range(low, high + length))
        if high > low and not swept & swept_by_any:
            swept_by_any |= swept
            product *= high - low + 1
    return product


class Search:
    """A board compiled for BFS: slide tables of its mobile cars and the start position.

    ``moves`` holds ``(shift, unit, slide table)`` per mobile car (slot), ``key`` the
    start position and ``occupied`` its occupancy mask.
    """

    __slots__ = ("cars", "key", "moves", "occupied", "slots")

    def __init__(self, cars: Sequence[Car]) -> None:
        self.cars = list(cars)
        self.slots = mobile_cars(cars)
        self.moves = [(3 * j, 1 << 3 * j, _slide_table(*cars[i][:3])) for j, i in enumerate(self.slots)]
        self.key = sum(cars[i][3] << 3 * j for j, i in enumerate(self.slots))
        occupied = OFF_BOARD
        for car in cars:
            for cell in car_cells(car):
                occupied |= bit(cell)
        self.occupied = occupied

    def offsets(self, key: int) -> list[int]:
        """Every car's offset in the position ``key``."""
        offsets = [car[3] for car in self.cars]
        for j, i in enumerate(self.slots):
            offsets[i] = (key >> 3 * j) & 7
        return offsets


def expand(
    frontier: list[tuple[int, int]], moves: list, seen: dict[int, int], depth: int, limit: int = 1 << 62
) -> list[tuple[int, int]]:
    """One BFS layer: every unseen neighbour of ``frontier``, recorded in ``seen`` at ``depth``.

    Stops early, with a partial layer, once it holds more than ``limit`` positions (a caller
    that drops boards past a size cap knows enough by then).
    """
    layer: list[tuple[int, int]] = []
    append = layer.append
    for key, occupied in frontier:
        for shift, unit, table in moves:
            head, head_xor, tail, tail_xor = table[(key >> shift) & 7]
            if not occupied & head:
                new = key + unit
                if new not in seen:
                    seen[new] = depth
                    append((new, occupied ^ head_xor))
            if not occupied & tail:
                new = key - unit
                if new not in seen:
                    seen[new] = depth
                    append((new, occupied ^ tail_xor))
        if len(layer) > limit:
            break
    return layer


Layer = tuple[np.ndarray, np.ndarray, np.ndarray]
"""A BFS layer as uint64 arrays ``(low, high, occupied)``: a position's slots 0-20 in ``low``,
the rest in ``high`` (the int key is ``low | high << 63``), and its occupancy without the
off-board bit."""
LOW_SLOTS: Final = 21
"""Slots packed in the low 63 bits of a layer's ``low`` word; dense boards have up to 26."""
_LOW_MASK: Final = (1 << 3 * LOW_SLOTS) - 1
EMPTY_LAYER: Final[Layer] = (np.zeros(0, dtype=np.uint64),) * 3
"""The layer before the first."""


def to_layer(positions: Sequence[tuple[int, int]]) -> Layer:
    """``(key, occupied)`` positions as a ``Layer``."""
    return (
        np.array([key & _LOW_MASK for key, _ in positions], dtype=np.uint64),
        np.array([key >> 3 * LOW_SLOTS for key, _ in positions], dtype=np.uint64),
        np.array([occupied & ~OFF_BOARD for _, occupied in positions], dtype=np.uint64),
    )


def positions_of(layer: Layer, indices: Sequence[int]) -> list[tuple[int, int]]:
    """The ``(key, occupied)`` positions at ``indices`` of a layer."""
    low, high, occupied = layer
    return [(int(low[i]) | int(high[i]) << 3 * LOW_SLOTS, int(occupied[i]) | OFF_BOARD) for i in indices]


class LayeredSearch:
    """Breadth-first layers of a ``Search`` over numpy arrays.

    ``expand(layer, before)`` gives the same positions in the same order as ``expand`` with
    a ``seen`` that holds every earlier layer: slides are reversible, so a neighbour of
    layer d lies in layer d-1, d or d+1, and only ``before`` (d-1) and ``layer`` (d) need
    checking. Duplicates keep their first occurrence (a stable sort), so layers, and what a
    generator draws from them, do not depend on the engine.
    """

    __slots__ = ("_delta_high", "_delta_low", "_flip", "_low", "_shift_high", "_shift_low", "_blocked", "_slots")

    def __init__(self, search: Search) -> None:
        tables = [table for _, _, table in search.moves]
        n = len(tables)
        self._slots = n
        self._low = min(n, LOW_SLOTS)
        self._shift_low = np.array([3 * j for j in range(self._low)], dtype=np.uint64)
        self._shift_high = np.array([3 * (j - LOW_SLOTS) for j in range(self._low, n)], dtype=np.uint64)
        unit_low = np.array([1 << 3 * j if j < LOW_SLOTS else 0 for j in range(n)], dtype=np.uint64)
        unit_high = np.array([0 if j < LOW_SLOTS else 1 << 3 * (j - LOW_SLOTS) for j in range(n)], dtype=np.uint64)
        self._delta_low = np.stack((unit_low, -unit_low), axis=1)  # (slot, forward/backward), mod 2**64
        self._delta_high = np.stack((unit_high, -unit_high), axis=1)
        everything = (1 << 64) - 1  # an off-board cell: the board always holds R, so this never passes
        self._blocked = np.array(
            [[[everything if head & OFF_BOARD else head, everything if tail & OFF_BOARD else tail]
              for head, _, tail, _ in table] for table in tables],
            dtype=np.uint64,
        ).reshape(n * 8, 2)  # row: slot * 8 + offset
        self._flip = np.array(
            [[[head_xor, tail_xor] for _, head_xor, _, tail_xor in table] for table in tables], dtype=np.uint64
        ).reshape(n * 8, 2)

    def offsets(self, layer: Layer, slot: int) -> np.ndarray:
        """The offset of ``slot`` in every position of ``layer``."""
        word, shift = (layer[0], 3 * slot) if slot < LOW_SLOTS else (layer[1], 3 * (slot - LOW_SLOTS))
        return (word >> np.uint64(shift)) & np.uint64(7)

    def expand(self, layer: Layer, before: Layer) -> Layer:
        """The next layer after ``layer``, whose own previous layer is ``before``."""
        low, high, occupied = layer
        offsets = np.empty((len(low), self._slots), dtype=np.uint64)
        offsets[:, : self._low] = (low[:, None] >> self._shift_low) & np.uint64(7)
        offsets[:, self._low :] = (high[:, None] >> self._shift_high) & np.uint64(7)
        rows = (offsets + np.arange(0, 8 * self._slots, 8, dtype=np.uint64)).astype(np.intp)
        free = (self._blocked[rows] & occupied[:, None, None]) == 0  # (position, slot, forward/backward)
        source, slot, backward = np.nonzero(free)  # C order: the order ``expand`` appends in
        new_low = low[source] + self._delta_low[slot, backward]
        new_high = high[source] + self._delta_high[slot, backward]
        new_occupied = occupied[source] ^ self._flip[rows[source, slot], backward]
        earlier = len(before[0]) + len(low)
        all_low = np.concatenate((before[0], low, new_low))
        all_high = np.concatenate((before[1], high, new_high))
        order = np.lexsort((all_low, all_high))  # stable: earlier copies of a key come first
        sorted_low, sorted_high = all_low[order], all_high[order]
        first = np.ones(len(order), dtype=bool)
        first[1:] = (sorted_low[1:] != sorted_low[:-1]) | (sorted_high[1:] != sorted_high[:-1])
        keep = order[first]
        keep = np.sort(keep[keep >= earlier]) - earlier
        return new_low[keep], new_high[keep], new_occupied[keep]


def shortest_exit(search: Search, red: int, exit_cell: tuple[int, int], max_states: int) -> list[tuple[int, bool]] | None:
    """The fewest slides that bring car ``red`` (horizontal) to the last column, by forward BFS.

    Returns the slides as ``(car index, forward)`` pairs, ``[]`` when the car is already
    there, or None when no sequence of slides gets it there.

    Raises:
        SearchLimitError: when more than ``max_states`` positions were met first.
    """
    length, offset = search.cars[red][1], search.cars[red][3]
    goal = SIZE - length
    if offset == goal:
        return []
    if red not in search.slots:
        return None
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
                return _slides(parent, key + (1 << shift), search)
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
    return None


def _slides(parent: dict[int, int], key: int, search: Search) -> list[tuple[int, bool]]:
    slides: list[tuple[int, bool]] = []
    while parent[key] >= 0:
        before = parent[key]
        slot = ((key ^ before).bit_length() - 1) // 3
        slides.append((search.slots[slot], key > before))
        key = before
    slides.reverse()
    return slides
