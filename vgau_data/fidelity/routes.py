"""Read the red route a model drew for self-VR (maze, sokoban, path) and score it by replay.

The strokes are found edge by edge: two neighbouring cells are joined when red covers
the segment between their centres near the shared edge (three sample points, each with
a few red pixels within a little slack across the segment, so stray red pixels join
nothing). A red grid line lies along edges, not across them, so it joins nothing. A
reading is a walk from the family's ``route_start`` cell (``FamilySpec.vr``) that uses
every stroke at most once and ends where no unused stroke is left. A drawing with no
stroke the reader can follow from the start is no route at all (``no_answer``), whatever
the puzzle: a route is drawn, never the absence of one.

The walked cells become interactive steps (``route_answer``: sokoban adds the final push
the route implies, path declares each letter as the route enters it), which are replayed
like an interactive episode's answer: an illegal move (a route through a wall) is
rejected with its code, a route that stops short is ``not_solved``.

A simple route has one reading. Where a route meets itself (a sokoban player circling a
box) or walks back over its own stroke (drawn once in pixels), pixels do not say which
way it went on, so readings are tried: unused strokes first, straight on first, each
stroke walked at most twice. The shortest reading that walks every stroke and replays as
a solution is taken; if none does, the first reading (every stroke once, straight on at
crossings) is reported, marked ``ambiguous`` when there were others.
"""

from __future__ import annotations

import dataclasses
import itertools
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, Final

import numpy as np
from PIL import Image

from vgau_data.puzzles.base import DELTAS, DIRECTIONS, Cell, Direction, FamilySpec, Illegal, Replay
from vgau_data.puzzles.capabilities import route_directions
from vgau_data.rendering import BoardGeometry

READING_VERSION: Final = 2
"""Bumped whenever a drawing's reading changes, so cached readings are measured again
(2: a drawing with no stroke from the start is no route; a stroke needs a few red pixels)."""
RED_MIN: Final = 170
"""A red pixel has R at least this, G and B at most ``OTHER_MAX``, and R above both by ``MARGIN``."""
OTHER_MAX: Final = 90
MARGIN: Final = 110
SAMPLES: Final = (0.25, 0.5, 0.75)
"""Where along a centre-to-centre segment red is looked for (fractions of a cell)."""
SLACK: Final = 0.15
"""How far across the segment (fraction of a cell) a sample may find its red pixels."""
MIN_RED_PIXELS: Final = 3
"""Red pixels a sample needs (a stroke 3 px wide gives 9): stray red pixels, such as
Gaussian noise's (1.6% of its pixels), join no cells."""
MAX_WALK_STEPS: Final = 20_000
"""Bound on the steps tried over all readings of one drawing (loops make several)."""
OPPOSITE: Final[dict[str, Direction]] = {"up": "down", "down": "up", "left": "right", "right": "left"}


@dataclass(frozen=True, slots=True)
class RouteReading:
    """A route read from an image: the cells walked, the steps they make and their verdict."""

    cells: tuple[Cell, ...]
    steps: tuple[Any, ...]
    replay: Replay
    ambiguous: bool = False
    """The drawing could be read more than one way and no reading solved the puzzle."""

    def to_dict(self) -> dict[str, Any]:
        return {
            "route_cells": len(self.cells),
            "route_length": self.replay.length,
            "route_feasible": self.replay.feasible,
            "route_error": self.replay.error,
            "route_ambiguous": self.ambiguous,
        }


def red_mask(image: Image.Image) -> np.ndarray:
    """Boolean ``(height, width)``: where ``image`` is clearly red."""
    pixels = np.asarray(image.convert("RGB"), dtype=np.int16)
    r, g, b = pixels[..., 0], pixels[..., 1], pixels[..., 2]
    return (r >= RED_MIN) & (g <= OTHER_MAX) & (b <= OTHER_MAX) & (r - np.maximum(g, b) >= MARGIN)


def _joined(mask: np.ndarray, centre: tuple[int, int], dr: int, dc: int, cell_px: int) -> bool:
    """Red covers the segment from ``centre`` one cell towards ``(dr, dc)`` near its middle: each
    sample point has ``MIN_RED_PIXELS`` red pixels within the slack across the segment."""
    x0, y0 = centre
    slack = max(1, round(SLACK * cell_px))
    for fraction in SAMPLES:
        x, y = round(x0 + dc * fraction * cell_px), round(y0 + dr * fraction * cell_px)
        across_x, across_y = (slack, 1) if dr else (1, slack)
        window = mask[max(0, y - across_y) : y + across_y + 1, max(0, x - across_x) : x + across_x + 1]
        if np.count_nonzero(window) < MIN_RED_PIXELS:
            return False
    return True


def _strokes(mask: np.ndarray, geometry: BoardGeometry) -> dict[Cell, dict[Direction, Cell]]:
    """Each cell's neighbours joined to it by red, by direction."""
    links: dict[Cell, dict[Direction, Cell]] = {}
    for r in range(geometry.rows):
        for c in range(geometry.cols):
            for direction in ("down", "right"):
                dr, dc = DELTAS[direction]
                other = (r + dr, c + dc)
                on_board = other[0] < geometry.rows and other[1] < geometry.cols
                if on_board and _joined(mask, geometry.center((r, c)), dr, dc, geometry.cell_px):
                    links.setdefault((r, c), {})[direction] = other
                    links.setdefault(other, {})[OPPOSITE[direction]] = (r, c)
    return links


def _walks(links: dict[Cell, dict[Direction, Cell]], start: Cell, strokes: int) -> Iterator[tuple[Cell, ...]]:
    """Walks from ``start`` using each stroke at most twice (a stroke walked back over is drawn
    once), yielded where they get stuck and wherever every one of the ``strokes`` has been
    walked. Unused strokes are preferred, going straight on first; at most ``MAX_WALK_STEPS``
    steps are tried over all walks."""
    budget = MAX_WALK_STEPS
    stack: list[tuple[tuple[Cell, ...], dict[frozenset[Cell], int], Direction | None]] = [((start,), {}, None)]
    while stack and budget > 0:
        cells, uses, heading = stack.pop()
        here = cells[-1]
        options = [
            (direction, cell)
            for direction, cell in links.get(here, {}).items()
            if uses.get(frozenset((here, cell)), 0) < 2
        ]
        covered = len(uses) == strokes
        if covered or not options:
            yield cells
        options.sort(key=lambda option: (uses.get(frozenset((here, option[1])), 0), option[0] != heading,
                                         DIRECTIONS.index(option[0])))  # fmt: skip
        for direction, cell in reversed(options):  # the stack pops the preferred option first
            budget -= 1
            edge = frozenset((here, cell))
            stack.append(((*cells, cell), {**uses, edge: uses.get(edge, 0) + 1}, direction))


def read_route(family: FamilySpec, image: Image.Image, state: Any) -> RouteReading:
    """The red route drawn on ``image`` (a board of ``state``), walked from the start and replayed.

    Example:
        >>> from vgau_data.registry import get_family
        >>> from vgau_data.oracle_aids.vr import oracle_vr
        >>> maze = get_family("maze")
        >>> state = maze.fidelity.palette_states()[0]
        >>> read_route(maze, oracle_vr(maze, state, ("right", "right")), state).replay.feasible
        True
    """
    vr = family.vr
    if vr is None or vr.route_start is None:
        raise ValueError(f"family {family.name!r} draws no red route (FamilySpec.vr.route_start)")
    geometry = family.geometry
    if image.size != geometry.size:
        image = image.resize(geometry.size, Image.Resampling.BILINEAR)
    links = _strokes(red_mask(image), geometry)
    start = vr.route_start(state)
    strokes = _component_strokes(links, start)
    if not strokes:
        return RouteReading((start,), (), Replay(False, 0, "no_answer", None))

    def reading_of(cells: tuple[Cell, ...]) -> RouteReading:
        steps = tuple(vr.route_answer(state, cells) if vr.route_answer else route_directions(cells))
        return RouteReading(cells, steps, _verdict(family, state, steps))

    walks = _walks(links, start, strokes)
    first = reading_of(next(walks))  # there is always one: the start cell alone at least
    readings = 1
    if first.replay.feasible and len(first.cells) - 1 == strokes:
        return first  # every stroke walked once: no reading is shorter
    best: RouteReading | None = first if first.replay.feasible else None
    for cells in walks:
        readings += 1
        if best is not None and len(cells) >= len(best.cells):
            continue
        reading = reading_of(cells)
        if reading.replay.feasible and len(set(map(frozenset, itertools.pairwise(cells)))) == strokes:
            best = reading
    return best or dataclasses.replace(first, ambiguous=readings > 1)


def _component_strokes(links: dict[Cell, dict[Direction, Cell]], start: Cell) -> int:
    """How many strokes are connected to ``start`` (a complete reading uses them all)."""
    seen, todo = {start}, [start]
    while todo:
        for cell in links.get(todo.pop(), {}).values():
            if cell not in seen:
                seen.add(cell)
                todo.append(cell)
    return sum(len(links.get(cell, {})) for cell in seen) // 2


def _verdict(family: FamilySpec, state: Any, steps: tuple[Any, ...]) -> Replay:
    """Replay route steps: illegal moves first, then the goal, then the answer they name."""
    current = state
    for index, step in enumerate(steps):
        current = family.apply_step(current, step)
        if isinstance(current, Illegal):
            return Replay(False, len(steps), current.code, index)
    if not family.is_goal(current):
        return Replay(False, len(steps), "not_solved", len(steps))
    return family.replay(state, steps)
