"""Sokoban symmetries: D4 with moves remapped; the player counts only by the region it can walk.

A board rotated or reflected is the same puzzle. Two boards that differ only in where the
player stands inside the floor region it can reach without pushing the box are the same
push problem (the answers differ by a walk), so ``form`` names the player by the first
cell (row-major) of that region: one key for the whole walk before each push. This is a
coarser key than the state, on purpose: a training row that reaches a test instance's
push problem gives its pushes away.
"""

from __future__ import annotations

import functools

from vgau_data.puzzles.capabilities import Symmetry
from vgau_data.puzzles.sokoban.state import FLOOR, SokobanState
from vgau_data.puzzles.symmetry import D4, map_cell, map_direction, map_grid
from vgau_data.types import DELTAS, Cell, Direction


def apply(state: SokobanState, transform: str) -> SokobanState:
    """``state`` seen through ``transform``."""
    size = len(state.grid)
    return SokobanState(
        map_grid(transform, state.grid),
        map_cell(transform, state.player, size),
        map_cell(transform, state.box, size),
        map_cell(transform, state.target, size),
    )


def map_step(step: Direction, transform: str, state: SokobanState) -> Direction:
    return map_direction(transform, step)


def player_region(state: SokobanState) -> list[Cell]:
    """The floor cells the player reaches without moving the box (its own cell included)."""
    grid = state.grid
    rows, cols = len(grid), len(grid[0])
    seen = {state.player}
    queue = [state.player]
    for r, c in queue:
        for dr, dc in DELTAS.values():
            cell = (r + dr, c + dc)
            if (0 <= cell[0] < rows and 0 <= cell[1] < cols and grid[cell[0]][cell[1]] == FLOOR
                    and cell != state.box and cell not in seen):
                seen.add(cell)
                queue.append(cell)
    return queue


def _form(grid: tuple[str, ...], box: Cell, target: Cell, player: Cell) -> str:
    return f"{''.join(grid)}|{box[0]},{box[1]}|{target[0]},{target[1]}|{player[0]},{player[1]}"


def form(state: SokobanState) -> str:
    """``grid|box|target|first cell of the player's region``."""
    return _form(state.grid, state.box, state.target, min(player_region(state)))


def forms(state: SokobanState) -> list[str]:
    """``form`` under every transform, with the player's region searched once."""
    return list(_region_forms(state.grid, state.box, state.target, frozenset(player_region(state))))


@functools.lru_cache(maxsize=256)
def _region_forms(grid: tuple[str, ...], box: Cell, target: Cell, region: frozenset[Cell]) -> tuple[str, ...]:
    """Cached: every walking step of a trajectory between two pushes has the same forms."""
    size = len(grid)
    return tuple(
        _form(map_grid(name, grid), map_cell(name, box, size), map_cell(name, target, size),
              min(map_cell(name, cell, size) for cell in region))
        for name in D4
    )


SYMMETRY = Symmetry(transforms=D4, apply=apply, map_step=map_step, form=form, fast_forms=forms)
