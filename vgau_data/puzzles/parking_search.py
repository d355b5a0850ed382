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
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Final

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


def expand(frontier: list[tuple[int, int]], moves: list, seen: dict[int, int], depth: int) -> list[tuple[int, int]]:
    """One BFS layer: every unseen neighbour of ``frontier``, recorded in ``seen`` at ``depth``."""
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
    return layer


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
