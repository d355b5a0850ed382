"""Maze symmetries: the 8 rotations and reflections of the square board (D4), moves remapped.

Walls, agent and goal all turn with the board; nothing is labelled, so ``form`` is the
board itself: the walls row-major, then the agent's and the goal's cells.
"""

from __future__ import annotations

from vgau_data.puzzles.capabilities import Symmetry
from vgau_data.puzzles.maze.state import MazeState
from vgau_data.puzzles.symmetry import D4, map_cell, map_direction, map_grid
from vgau_data.types import Direction


def apply(state: MazeState, transform: str) -> MazeState:
    """``state`` seen through ``transform``."""
    size = len(state.grid)
    return MazeState(map_grid(transform, state.grid), map_cell(transform, state.start, size),
                     map_cell(transform, state.goal, size))


def map_step(step: Direction, transform: str, state: MazeState) -> Direction:
    return map_direction(transform, step)


def form(state: MazeState) -> str:
    """``grid|agent|goal`` as one string."""
    return f"{''.join(state.grid)}|{state.start[0]},{state.start[1]}|{state.goal[0]},{state.goal[1]}"


SYMMETRY = Symmetry(transforms=D4, apply=apply, map_step=map_step, form=form)
