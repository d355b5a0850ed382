"""What a sokoban image shows cell by cell, and its drawn solution (``FamilySpec.fidelity`` and ``FamilySpec.vr``).

Kept apart from the rules; it reads a state's ``grid``, ``player``, ``box`` and ``target``
and builds new states with ``dataclasses.replace``.
"""

from __future__ import annotations

import dataclasses
import operator
from collections.abc import Sequence

import numpy as np

from vgau_data.puzzles.base import DELTAS, Cell, Direction
from vgau_data.puzzles.capabilities import Fidelity, Sketch, SolutionSketch, pick_edits, route_directions
from vgau_data.puzzles.sokoban.state import FLOOR, WALL, SokobanState, from_ascii


def cell_labels(state: SokobanState) -> tuple[str, ...]:
    """Row-major: ``wall``, ``floor``, ``target``, ``player``, ``player+target``, ``box``, ``box+target``."""
    labels = ["wall" if char == WALL else "floor" for row in state.grid for char in row]
    width = len(state.grid[0])

    def mark(cell: Cell, name: str) -> None:
        labels[cell[0] * width + cell[1]] = name

    mark(state.target, "target")
    mark(state.player, "player+target" if state.player == state.target else "player")
    mark(state.box, "box+target" if state.box == state.target else "box")
    return tuple(labels)


def palette_states() -> tuple[SokobanState, ...]:
    """Boards showing walls, floor, the target, and the player and box on floor and on the target."""
    rest = ["#." * 5] * 9
    return tuple(from_ascii([first, *rest]) for first in ("P.BT#.....", "+.B.#.....", "P.*.#....."))


def perturb(state: SokobanState, k: int, rng: np.random.Generator) -> SokobanState:
    """``state`` with ``k`` cells other than the player's, the box's and the target's flipped between wall and floor."""
    fixed = {state.player, state.box, state.target}
    cells = [(r, c) for r, row in enumerate(state.grid) for c in range(len(row)) if (r, c) not in fixed]
    grid = [list(row) for row in state.grid]
    for r, c in pick_edits([[(1, cell)] for cell in cells], k, rng):
        grid[r][c] = FLOOR if grid[r][c] == WALL else WALL
    return dataclasses.replace(state, grid=tuple("".join(row) for row in grid))


def _walk(state: SokobanState, moves: Sequence[Direction]) -> tuple[list[Cell], Cell]:
    """The player's cells and the box's last cell when ``moves`` are played (legality not checked)."""
    (r, c), box = state.player, state.box
    cells = [(r, c)]
    for move in moves:
        dr, dc = DELTAS[move]
        r, c = r + dr, c + dc
        if (r, c) == box:
            box = (r + dr, c + dc)
        cells.append((r, c))
    return cells, box


def sketch(state: SokobanState, answer: Sequence[Direction]) -> Sketch:
    """The player's red route from its cell to the cell from which the final push happens (Table 31).

    When that is the player's own cell (one push solves the row), the push itself is drawn:
    a route is a stroke, and an empty drawing reads as no route.
    """
    cells, _ = _walk(state, answer)
    return Sketch(routes=(tuple(cells[:-1] if len(cells) > 2 else cells),))


def route_answer(state: SokobanState, cells: Sequence[Cell]) -> tuple[Direction, ...]:
    """The moves of a player route read from an image, plus the final push it implies.

    The route ends where the player stands before pushing the box onto the target; when
    the box then lies next to it with the target straight behind, that push is appended.
    """
    moves = route_directions(cells)
    player, box = _walk(state, moves)
    if box != state.target:
        for direction, (dr, dc) in DELTAS.items():
            if (player[-1][0] + dr, player[-1][1] + dc) == box and (box[0] + dr, box[1] + dc) == state.target:
                return (*moves, direction)  # type: ignore[return-value]
    return moves


FIDELITY = Fidelity(cell_labels=cell_labels, palette_states=palette_states, perturb=perturb)
"""What a sokoban image shows cell by cell (``FamilySpec.fidelity``)."""
VR = SolutionSketch(sketch=sketch, route_start=operator.attrgetter("player"), route_answer=route_answer)
"""The drawn solution of a sokoban board (``FamilySpec.vr``)."""
