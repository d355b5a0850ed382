"""What a path image shows cell by cell, its perturbations, and its drawn solution (the red route)."""

from __future__ import annotations

import dataclasses
import operator
from collections.abc import Sequence

import numpy as np

from vgau_data.puzzles.base import Cell
from vgau_data.puzzles.capabilities import Fidelity, Sketch, SolutionSketch, pick_edits, route_directions
from vgau_data.puzzles.path.render import text_marks
from vgau_data.puzzles.path.rules import _here, _route
from vgau_data.puzzles.path.state import ROAD, WALL, PathState, PathStep, from_ascii


def cell_labels(state: PathState) -> tuple[str, ...]:
    """Row-major: ``wall``, ``road``, ``end`` or a letter, with the orange marker triangle as ``marker``
    on a plain road cell (the start, until it moves) and ``+marker`` on a letter or the destination.

    Example:
        >>> cell_labels(PathState(("...",), (0, 0), (0, 2), (("A", (0, 1)),), (0, 1)))
        ('road', 'A+marker', 'end')
    """
    marks = {state.end: "end"} | {cell: letter for letter, cell in state.labels}
    labels = [marks.get((r, c), "wall" if char == WALL else "road") for r, row in enumerate(state.grid) for c, char in enumerate(row)]
    here = _here(state)
    index = here[0] * len(state.grid[0]) + here[1]
    labels[index] = "marker" if labels[index] == "road" else f"{labels[index]}+marker"
    return tuple(labels)


def palette_states() -> tuple[PathState, ...]:
    """A board with every mark: the marker on the start, a road cell, the destination and each letter."""
    base = from_ascii(["SABCDET..."] + ["#." * 5] * 9)
    spots = [(0, 7), base.end, *(cell for _, cell in base.labels)]
    return (base, *(PathState(base.grid, base.start, base.end, base.labels, spot) for spot in spots))


def perturb(state: PathState, k: int, rng: np.random.Generator) -> PathState:
    """``state`` with ``k`` unmarked cells (no start, end, letter or marker) flipped between wall and road."""
    fixed = {state.start, state.end, state.position, *(cell for _, cell in state.labels)}
    cells = [(r, c) for r in range(len(state.grid)) for c in range(len(state.grid[0])) if (r, c) not in fixed]
    grid = [list(row) for row in state.grid]
    for r, c in pick_edits([[(1, cell)] for cell in cells], k, rng):
        grid[r][c] = ROAD if grid[r][c] == WALL else WALL
    return dataclasses.replace(state, grid=tuple("".join(row) for row in grid))


def sketch(state: PathState, answer: Sequence[str]) -> Sketch:
    """The red route from the start to the destination along the road (whatever ``answer`` is)."""
    route = _route(state.grid, state.start, state.end)
    if route is None:
        raise ValueError("the destination is unreachable from the start")
    return Sketch(routes=(route,))


def route_answer(state: PathState, cells: Sequence[Cell]) -> tuple[PathStep, ...]:
    """The walk along a drawn route's cells, declaring each letter when the route first enters it.

    Example:
        >>> route_answer(from_ascii(["SA.T"]), [(0, 0), (0, 1), (0, 2), (0, 3)])[0]
        PathStep(move='right', hit_labels=('A',))
    """
    letter_at = {cell: letter for letter, cell in state.labels}
    seen = set(cells[:1])
    steps = []
    for move, cell in zip(route_directions(cells), cells[1:]):
        steps.append(PathStep(move, (letter_at[cell],) if cell in letter_at and cell not in seen else ()))
        seen.add(cell)
    return tuple(steps)


FIDELITY = Fidelity(cell_labels=cell_labels, palette_states=palette_states, perturb=perturb, text_marks=text_marks)
"""What a path image shows cell by cell (``FamilySpec.fidelity``)."""
VR = SolutionSketch(sketch=sketch, route_start=operator.attrgetter("start"), route_answer=route_answer)
"""The drawn solution of a path board (``FamilySpec.vr``)."""
