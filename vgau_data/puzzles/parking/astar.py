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

from vgau_data.puzzles.parking.search import SIZE, Search, SearchLimitError, bit, car_mask

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


def fewest_slides(
    search: Search, red: int, exit_row: int, max_states: int
) -> tuple[list[tuple[int, bool]] | None, int]:
    """A shortest answer for car ``red`` (horizontal, on ``exit_row``), by A* with ``CorridorBound``.

    Returns ``(slides, states)``: the slides as ``(car index, forward)`` pairs (``[]`` when
    the car is already out, None when it never gets out) and the positions met.

    Raises:
        SearchLimitError: when more than ``max_states`` positions were met first.
    """
    decided, answer = without_search(search, red, exit_row)
    if decided:
        return answer, 1
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


def without_search(search: Search, red: int, exit_row: int) -> tuple[bool, list[tuple[int, bool]] | None]:
    """``(True, [])`` when ``red`` is out already, ``(True, None)`` when it never gets out
    (immobile, or walled in); ``(False, None)`` when it takes a search to tell."""
    _, red_length, _, red_offset = search.cars[red]
    if red_offset == SIZE - red_length:
        return True, []
    if red not in search.slots or _walled_in(search, red, exit_row):
        return True, None
    return False, None


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
