"""What a maze image shows cell by cell, its perturbations, and its drawn solution (a red route)."""

from __future__ import annotations

import operator
from collections.abc import Sequence

import numpy as np

from vgau_data.puzzles.base import Direction, walk
from vgau_data.puzzles.capabilities import Fidelity, Sketch, SolutionSketch, pick_edits
from vgau_data.puzzles.grids import OPEN, WALL
from vgau_data.puzzles.maze.rules import apply_step
from vgau_data.puzzles.maze.state import MazeState, from_ascii


def cell_labels(state: MazeState) -> tuple[str, ...]:
    """What each cell shows, row-major: ``wall``, ``open``, ``agent``, ``goal`` or ``agent+goal``.

    Example:
        >>> cell_labels(from_ascii(["S#G"]))
        ('agent', 'wall', 'goal')
    """
    marks = {state.start: "agent", state.goal: "goal"} if state.start != state.goal else {state.start: "agent+goal"}
    return tuple(
        marks.get((r, c), "wall" if char == WALL else "open") for r, row in enumerate(state.grid) for c, char in enumerate(row)
    )


def palette_states() -> tuple[MazeState, ...]:
    """Boards showing every label: walls, open cells, agent and goal apart and together."""
    rows = ["S.G#" + "." * 6] + ["#." * 5] * 9
    return (from_ascii(rows), from_ascii(["*" + rows[0][1:].replace("G", ".")] + rows[1:]))


def perturb(state: MazeState, k: int, rng: np.random.Generator) -> MazeState:
    """``state`` with ``k`` cells other than the agent's and the goal's flipped between wall and open."""
    cells = [(r, c) for r in range(len(state.grid)) for c in range(len(state.grid[0])) if (r, c) not in (state.start, state.goal)]
    grid = [list(row) for row in state.grid]
    for r, c in pick_edits([[(1, cell)] for cell in cells], k, rng):
        grid[r][c] = OPEN if grid[r][c] == WALL else WALL
    return MazeState(tuple("".join(row) for row in grid), state.start, state.goal)


def sketch(state: MazeState, answer: Sequence[Direction]) -> Sketch:
    """The red route of the agent from its cell through every cell it walks."""
    return Sketch(routes=((state.start, *(s.start for s in walk(state, answer, apply_step))),))


FIDELITY = Fidelity(cell_labels=cell_labels, palette_states=palette_states, perturb=perturb)
"""What a maze image shows cell by cell (``FamilySpec.fidelity``)."""
VR = SolutionSketch(sketch=sketch, route_start=operator.attrgetter("start"))
"""The drawn solution of a maze board (``FamilySpec.vr``)."""
