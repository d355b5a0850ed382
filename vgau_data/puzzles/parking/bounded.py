"""Bound-pruned breadth-first search over numpy layers: parking's exact solver for boards of up to 21 mobile cars.

The A* of ``astar`` meets a few hundred thousand positions on a long row, one Python
dict operation at a time (about 0.1-0.2 M positions/s). The same search in numpy layers
(``LayeredSearch``) meets several times more per second: every position whose slides so
far plus ``CorridorBound`` stay within a limit, layer by layer. The bound is consistent, so

- every position of a shortest answer of at most ``limit`` slides is kept, at its true
  distance, and the first layer holding an exit is the optimum once ``limit`` reaches it;
- a kept position's neighbours lie in the layer before, its own or the next, as in a plain
  breadth-first search, so ``LayeredSearch.expand`` dedups against two layers only.

``fewest_slides`` raises the limit to the smallest bound-plus-slides it pruned until an
exit is kept, each walk grown out of the last (``BoundedSearch.deepen``). Its answer is canonical: walking back from the smallest exit position, each
step takes the smallest position one layer nearer the start among those whose distance
plus bound is within the optimum, a set that no larger limit changes.
"""

from __future__ import annotations

from typing import Final

import numpy as np

from vgau_data.puzzles.parking.astar import UNREACHABLE, CorridorBound, without_search
from vgau_data.puzzles.parking.search import (
    MAX_LAYERED_SLOTS,
    SIZE,
    LayeredSearch,
    Search,
    SearchLimitError,
    _members,
)

_NO_WAY: Final = 1 << 20
"""The slides of a way out that does not exist (a vertical car off the exit row costs 0 instead)."""
_NEVER: Final = 1 << 40
"""A limit past any answer: what a search that pruned nothing reports as its next limit."""


class LayeredBound:
    """``CorridorBound`` of every position of a numpy layer at once."""

    __slots__ = ("_bound", "_tables")

    def __init__(self, bound: CorridorBound) -> None:
        self._bound = bound
        self._tables = tuple(
            (np.uint64(shift), column, *_option_tables(options)) for shift, column, options in bound.verticals
        )

    def estimates(self, layered: LayeredSearch, layer: np.ndarray) -> np.ndarray:
        """The bound of each position (int64; ``UNREACHABLE`` or more: ``R`` never gets out)."""
        bound, seven = self._bound, np.uint64(7)
        occupied = layered.occupancy(layer)
        red = ((layer >> np.uint64(bound.red_shift)) & seven).astype(np.int64)
        total = bound.goal - red
        corridor = red + bound.red_length
        for shift, column, slides, cells in self._tables:
            top = ((layer >> shift) & seven).astype(np.intp)
            best = slides[top, 0] + _popcount(occupied & cells[top, 0]).astype(np.int64)
            best = np.minimum(best, slides[top, 1] + _popcount(occupied & cells[top, 1]).astype(np.int64))
            total += np.where(column >= corridor, best, 0)
        return total


def _option_tables(options: tuple[tuple[tuple[int, int], ...] | None, ...]) -> tuple[np.ndarray, np.ndarray]:
    """One vertical car's ways out of the exit row per offset, as ``slides[top, way]`` and ``cells[top, way]``.

    Off the row it has a free way (0 slides, no cells); a missing way costs ``_NO_WAY``.
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


def _swar_popcount(values: np.ndarray) -> np.ndarray:
    """Set bits per uint64 (SWAR), for numpy 1.x, which lacks ``np.bitwise_count``."""
    v = values - ((values >> np.uint64(1)) & np.uint64(0x5555555555555555))
    v = (v & np.uint64(0x3333333333333333)) + ((v >> np.uint64(2)) & np.uint64(0x3333333333333333))
    v = (v + (v >> np.uint64(4))) & np.uint64(0x0F0F0F0F0F0F0F0F)
    return (v * np.uint64(0x0101010101010101)) >> np.uint64(56)


_popcount = getattr(np, "bitwise_count", _swar_popcount)
"""Set bits per uint64: numpy 2's one ufunc (about 10x fewer passes), else SWAR (same counts)."""


class BoundedSearch:
    """One board compiled for bound-pruned layers (``red`` horizontal on ``exit_row``)."""

    __slots__ = ("_goal", "_red", "bound", "layered", "search")

    def __init__(self, search: Search, red: int, exit_row: int) -> None:
        self.search = search
        self.layered = LayeredSearch(search)
        self.bound = LayeredBound(CorridorBound(search, red, exit_row))
        self._red = np.uint64(3 * search.slots.index(red))
        self._goal = np.uint64(SIZE - search.cars[red][1])

    def exits(self, layer: np.ndarray) -> np.ndarray:
        """The positions of ``layer`` with ``R`` out."""
        return layer[((layer >> self._red) & np.uint64(7)) == self._goal]

    def deepen(self, cap: int, max_states: int) -> list[np.ndarray] | None:
        """The layers of the walk at the smallest limit that reaches an exit, or None when none within ``cap`` does.

        A walk at limit L keeps, layer by layer, every position whose slides plus bound stay
        within L, up to the first layer that holds an exit; the next limit is the smallest
        slides plus bound it pruned. Each walk grows out of the last instead of starting
        again: a position kept at one limit is kept at every larger one at the same depth,
        so a walk only adds the pruned children that fit now (kept with their totals) and
        the children of what it adds. A slide moves one car one cell, so positions of depth
        g have the parity of g: children of depth g-1 never meet depth g-1, and a pruned
        child of depth g can only have joined depth g-2 since.

        Raises:
            SearchLimitError: when a walk's layers hold more than ``max_states`` positions
                (each walk's layers are the ones a walk from scratch at its limit keeps).
        """
        start = np.array([self.search.key], dtype=np.uint64)
        limit = int(self.bound.estimates(self.layered, start)[0])
        kept: list[np.ndarray] = [start]
        pruned: list[tuple[np.ndarray, np.ndarray]] = [(_NONE, _NO_TOTALS)]  # per depth: positions, totals
        added = [start]  # per depth: the positions this walk added
        while limit <= cap:
            count, depth, next_limit = 1, 0, _NEVER
            while not len(self.exits(kept[depth])):
                depth += 1
                if depth == len(pruned):
                    pruned.append((_NONE, _NO_TOTALS))
                    added.append(_NONE)
                older = kept[depth - 2] if depth >= 2 else _NONE
                here = kept[depth] if depth < len(kept) else _NONE
                children = self.layered.expand(added[depth - 1], older) if len(added[depth - 1]) else _NONE
                positions, totals = pruned[depth]
                if depth >= 2 and len(added[depth - 2]):
                    stay = ~_members(positions, added[depth - 2])
                    positions, totals = positions[stay], totals[stay]
                children = children[~(_members(children, here) | _members(children, positions))]
                positions = np.concatenate([positions, children])
                totals = np.concatenate([totals, depth + self.bound.estimates(self.layered, children)])
                order = np.argsort(positions, kind="stable")
                positions, totals = positions[order], totals[order]
                fits = totals <= limit
                added[depth] = positions[fits]
                pruned[depth] = positions[~fits], totals[~fits]
                if len(pruned[depth][1]):
                    next_limit = min(next_limit, int(pruned[depth][1].min()))
                layer = np.sort(np.concatenate([here, added[depth]])) if len(here) else added[depth]
                if not len(layer):
                    break
                count += len(layer)
                if count > max_states:
                    raise SearchLimitError(f"parking solve: more than {max_states} positions; board too loose")
                if depth < len(kept):
                    kept[depth] = layer
                else:
                    kept.append(layer)
            else:
                return kept[: depth + 1]
            added = [_NONE] * len(added)
            limit = next_limit
        return None


_NONE: Final = np.zeros(0, dtype=np.uint64)
_NO_TOTALS: Final = np.zeros(0, dtype=np.int64)


def supports(search: Search) -> bool:
    """Whether the board's mobile cars fit a numpy position (``MAX_LAYERED_SLOTS``)."""
    return len(search.slots) <= MAX_LAYERED_SLOTS


def answer_within(
    search: Search, red: int, exit_row: int, limit: int, max_states: int
) -> list[tuple[int, bool]] | None:
    """The canonical shortest answer if one takes at most ``limit`` slides, else None.

    Deepens as ``fewest_slides`` does and stops past ``limit``: a board whose optimum is
    well below ``limit`` (most of the generator's rejected candidates) is decided by a
    cheap walk at its own optimum, not by one walk at ``limit``, which meets every
    position whose slides plus bound stay within ``limit`` up to that optimum. Each walk
    meets a subset of what the walk at ``limit`` meets, so ``max_states`` binds no sooner.

    Raises:
        SearchLimitError: when one walk's layers hold more than ``max_states`` positions.
    """
    return fewest_slides(search, red, exit_row, max_states, limit)[0]


def fewest_slides(
    search: Search, red: int, exit_row: int, max_states: int, limit: int = UNREACHABLE - 1
) -> tuple[list[tuple[int, bool]] | None, int]:
    """A shortest answer for car ``red``, as ``astar.fewest_slides`` returns it (the canonical one, see above).

    ``limit``: answers of more slides are not looked for (None is returned instead).

    Raises:
        SearchLimitError: when one walk's layers hold more than ``max_states`` positions.
    """
    decided, answer = without_search(search, red, exit_row)
    if decided:
        return answer, 1
    walker = BoundedSearch(search, red, exit_row)
    layers = walker.deepen(limit, max_states)
    if layers is None:
        return None, 1
    return _trace(walker, layers, int(walker.exits(layers[-1]).min())), sum(map(len, layers))


def _trace(walker: BoundedSearch, layers: list[np.ndarray], key: int) -> list[tuple[int, bool]]:
    """The canonical answer ending at ``key`` (in the last layer), walked back layer by layer."""
    optimum = len(layers) - 1
    units = [1 << 3 * j for j in range(len(walker.search.slots))]
    slides: list[tuple[int, bool]] = []
    for depth in range(optimum - 1, -1, -1):
        offsets = [(key >> 3 * j) & 7 for j in range(len(units))]
        before = [(key - unit, j, True) for j, unit in enumerate(units) if offsets[j] > 0]
        before += [(key + unit, j, False) for j, unit in enumerate(units) if offsets[j] < 7]
        keys = np.array([k for k, _, _ in before], dtype=np.uint64)
        layer = layers[depth]
        index = np.minimum(np.searchsorted(layer, keys), len(layer) - 1)
        within = (layer[index] == keys) & (depth + walker.bound.estimates(walker.layered, keys) <= optimum)
        key, slot, forward = min(item for item, ok in zip(before, within.tolist()) if ok)
        slides.append((walker.search.slots[slot], forward))
    slides.reverse()
    return slides
