"""A* over the bit-board: the solver's exact search for sparse boards.

Plain breadth-first search meets every position nearer than the optimum; on the authors'
sparse boards (5-14 vehicles) that is up to millions. A* with an admissible, consistent
bound meets only the positions that bound cannot rule out, and still returns a shortest
answer (``tests/puzzles/parking/test_astar.py`` checks it against ``search.shortest_exit``).

The bound (``CorridorBound``): ``R`` still has to drive its distance to the exit, and every
vertical car standing in its corridor (the exit row, right of ``R``) has to leave the row,
up or down, by at least the cells that direction needs; every cell it must slide into that
another car holds now must be vacated by that car, one slide per cell (a slide frees one
cell). Blockers stand in different columns, so those cells are all different and no slide
is counted twice; a way through an immobile car is no way. One slide lowers the bound by
one at most, so it is consistent: a position is expanded once, at its true distance.
"""

from __future__ import annotations

from typing import Final

import numpy as np

from vgau_data.puzzles.parking.search import SIZE, LayeredSearch, Search, SearchLimitError, bit, car_mask

UNREACHABLE: Final = (1 << 16) - 1
"""The bound of a position from which ``R`` can never leave (a blocker walled in); also
past the slides a position's record holds (16 bits)."""
_SLIDES_MASK: Final = UNREACHABLE
"""The bits of a position's record that hold its slides."""

Options = tuple[tuple[int, int], ...]
"""A blocker's ways out of the exit row: ``(slides it needs, cells it slides into)`` each."""


class CorridorBound:
    """The admissible bound of one board (see the module docstring)."""

    __slots__ = ("goal", "red_length", "red_shift", "verticals")

    def __init__(self, search: Search, red: int, exit_row: int) -> None:
        _, self.red_length, _, _ = search.cars[red]
        self.goal = SIZE - self.red_length
        self.red_shift = 3 * search.slots.index(red)
        walls = sum(car_mask(car) for i, car in enumerate(search.cars) if i not in search.slots)
        verticals: list[tuple[int, int, tuple[Options | None, ...]]] = []
        for j, i in enumerate(search.slots):
            orientation, length, column, _ = search.cars[i]
            if orientation == "v":
                options = tuple(_ways_out(length, column, top, exit_row, walls) for top in range(8))
                verticals.append((3 * j, column, options))
        self.verticals = tuple(verticals)

    def estimates(self, layered: LayeredSearch, layer: np.ndarray) -> np.ndarray:
        """``estimate`` of every position of ``layer`` at once (int64; ``UNREACHABLE`` or more: never out)."""
        occupied = layered.occupancy(layer)
        red = ((layer >> np.uint64(self.red_shift)) & np.uint64(7)).astype(np.int64)
        total = self.goal - red
        corridor = red + self.red_length
        for shift, column, options in self.verticals:
            slides, cells = _option_tables(options)
            top = ((layer >> np.uint64(shift)) & np.uint64(7)).astype(np.intp)
            best = np.full(len(layer), UNREACHABLE, dtype=np.int64)
            for way in range(slides.shape[1]):
                cost = slides[top, way] + _popcount(occupied & cells[top, way])
                best = np.minimum(best, cost)
            total += np.where(column >= corridor, best, 0)
        return total

    def estimate(self, key: int, occupied: int) -> int:
        """The bound of a position: a lower bound on its remaining slides."""
        red = (key >> self.red_shift) & 7
        total = self.goal - red
        corridor = red + self.red_length
        for shift, column, options in self.verticals:
            if column < corridor:
                continue
            ways = options[(key >> shift) & 7]
            if ways is None:
                continue
            best = UNREACHABLE
            for slides, cells in ways:
                cost = slides + (occupied & cells).bit_count()
                best = min(best, cost)
            if best == UNREACHABLE:
                return UNREACHABLE
            total += best
        return total


def _ways_out(length: int, column: int, top: int, exit_row: int, walls: int) -> Options | None:
    """How a vertical car at ``top`` leaves the exit row; None when it is not on it."""
    if top + length > SIZE or not top <= exit_row < top + length:
        return None
    ways = []
    up = top + length - exit_row  # until its bottom cell is above the row
    if top - up >= 0:
        ways.append((up, sum(bit((row, column)) for row in range(top - up, top))))
    down = exit_row + 1 - top  # until its top cell is below the row
    if top + length + down <= SIZE:
        ways.append((down, sum(bit((row, column)) for row in range(top + length, top + length + down))))
    return tuple((slides, cells) for slides, cells in ways if not cells & walls)


_NO_WAY: Final = 1 << 20
"""The slides of a way out that does not exist (a vertical car off the exit row costs 0 instead)."""


def _option_tables(options: tuple[Options | None, ...]) -> tuple[np.ndarray, np.ndarray]:
    """One vertical car's ways out per offset as arrays ``slides[top, way]`` and ``cells[top, way]``.

    An offset off the exit row has a free way (0 slides, no cells); a missing way costs
    ``_NO_WAY``, so a blocker with none reaches ``UNREACHABLE``.
    """
    slides = np.full((8, 2), _NO_WAY, dtype=np.int64)
    cells = np.zeros((8, 2), dtype=np.uint64)
    for top, ways in enumerate(options):
        if ways is None:
            slides[top, 0] = 0
            continue
        for way, (count, mask) in enumerate(ways):
            slides[top, way], cells[top, way] = count, mask
    return slides, cells


def _popcount(values: np.ndarray) -> np.ndarray:
    """Set bits per uint64 (SWAR: ``np.bitwise_count`` needs numpy 2), as int64."""
    v = values - ((values >> np.uint64(1)) & np.uint64(0x5555555555555555))
    v = (v & np.uint64(0x3333333333333333)) + ((v >> np.uint64(2)) & np.uint64(0x3333333333333333))
    v = (v + (v >> np.uint64(4))) & np.uint64(0x0F0F0F0F0F0F0F0F)
    return ((v * np.uint64(0x0101010101010101)) >> np.uint64(56)).astype(np.int64)


def exits_within(search: Search, red: int, exit_row: int, limit: int, max_states: int) -> bool:
    """Whether car ``red`` gets out in at most ``limit`` slides: ``fewest_slides``'s question, in numpy.

    Breadth-first layers of numpy positions (``LayeredSearch``), keeping only positions
    whose slides so far plus ``CorridorBound`` stay within ``limit``. The bound is
    consistent, so every position of a shortest answer of at most ``limit`` slides is kept
    at its true distance, and a kept position's neighbours lie in the layer before, its own
    or the next, as in a plain BFS. The generator proves "no answer shorter than the row's"
    with it, tens of times faster than the A* in pure Python.

    Raises:
        SearchLimitError: when the layers so far hold more than ``max_states`` positions.
    """
    _, red_length, _, red_offset = search.cars[red]
    if red_offset == SIZE - red_length:
        return True
    if red not in search.slots or _walled_in(search, red, exit_row):
        return False
    bound = CorridorBound(search, red, exit_row)
    layered = LayeredSearch(search)
    layer, before = np.array([search.key], dtype=np.uint64), np.zeros(0, dtype=np.uint64)
    if bound.estimates(layered, layer)[0] > limit:
        return False
    red_offsets, count = np.uint64(bound.red_shift), 1
    for slides in range(1, limit + 1):
        children = layered.expand(layer, before)
        children = children[slides + bound.estimates(layered, children) <= limit]
        if np.any(((children >> red_offsets) & np.uint64(7)) == bound.goal):
            return True
        count += len(children)
        if count > max_states:
            raise SearchLimitError(f"parking bounded search: more than {max_states} positions")
        if not len(children):
            return False
        layer, before = children, layer
    return False


def fewest_slides(
    search: Search, red: int, exit_row: int, max_states: int
) -> tuple[list[tuple[int, bool]] | None, int]:
    """A shortest answer for car ``red`` (horizontal, on ``exit_row``), by A* with ``CorridorBound``.

    Returns ``(slides, states)``: the slides as ``(car index, forward)`` pairs (``[]`` when
    the car is already out, None when it never gets out) and the positions met.

    Raises:
        SearchLimitError: when more than ``max_states`` positions were met first.
    """
    _, red_length, _, red_offset = search.cars[red]
    if red_offset == SIZE - red_length:
        return [], 1
    if red not in search.slots or _walled_in(search, red, exit_row):
        return None, 1
    bound = CorridorBound(search, red, exit_row)
    start = search.key
    first = bound.estimate(start, search.occupied)
    if first >= UNREACHABLE:
        return None, 1
    best = {start: 0}  # position -> (the position before it) << 16 | fewest slides found so far
    buckets: list[list[tuple[int, int, int]]] = [[] for _ in range(first + 1)]
    buckets[first].append((start, search.occupied, 0))
    red_shift, goal, estimate = bound.red_shift, bound.goal, bound.estimate
    slides = [  # each car's slide forward and back: (shift, key change, per offset (cell entered, occupancy flip))
        (shift, sign * unit, tuple((entry[side], entry[side + 1]) for entry in table))
        for shift, unit, table in search.moves
        for sign, side in ((1, 0), (-1, 2))
    ]
    f = first
    while f < len(buckets):
        bucket = buckets[f]
        if not bucket:
            f += 1
            continue
        key, occupied, g = bucket.pop()  # the latest first: ties go deep
        if best[key] & _SLIDES_MASK < g:
            continue  # a shorter way here was found after this entry was queued
        if (key >> red_shift) & 7 == goal:
            return _trace(best, key, start, search), len(best)
        g += 1
        for shift, step, table in slides:
            enter, flip = table[(key >> shift) & 7]
            if occupied & enter:
                continue
            new = key + step
            if best.get(new, _SLIDES_MASK) & _SLIDES_MASK > g:
                after = occupied ^ flip
                total = g + estimate(new, after)
                if total < UNREACHABLE:
                    best[new] = key << 16 | g
                    while len(buckets) <= total:
                        buckets.append([])
                    buckets[total].append((new, after, g))
        if len(best) > max_states:
            raise SearchLimitError(f"parking solve: more than {max_states} positions; board too loose")
    return None, len(best)


def _walled_in(search: Search, red: int, exit_row: int) -> bool:
    """A car that can never clear ``R``'s corridor: horizontal on the exit row ahead of it, or immobile there."""
    _, red_length, _, red_offset = search.cars[red]
    corridor = sum(bit((exit_row, column)) for column in range(red_offset + red_length, SIZE))
    for i, car in enumerate(search.cars):
        if i != red and car_mask(car) & corridor and (car[0] == "h" or i not in search.slots):
            return True
    return False


def _trace(best: dict[int, int], key: int, start: int, search: Search) -> list[tuple[int, bool]]:
    """The slides from ``start`` to ``key`` along the positions' records."""
    slides: list[tuple[int, bool]] = []
    while key != start:
        before = best[key] >> 16
        slot = ((key ^ before).bit_length() - 1) // 3
        slides.append((search.slots[slot], key > before))
        key = before
    slides.reverse()
    return slides
