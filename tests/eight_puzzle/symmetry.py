"""8-puzzle symmetries: the transpose with the letters renamed to match (the goal is its own image).

Reflecting the tray in its main diagonal keeps the blank's goal cell (bottom right) and sends
the goal's letter at (r, c) to (c, r); renaming each letter to the goal letter of its new cell
gives the goal back, so a transposed tray is the same puzzle, its slides transposed (up <-> left).
No other square symmetry keeps the blank's corner, and a renaming alone changes the goal.
"""

from __future__ import annotations

from typing import Final

from tests.eight_puzzle.state import BLANK, GOAL, SIZE, EightState
from vgau_data.puzzles.base import Direction
from vgau_data.puzzles.capabilities import Symmetry
from vgau_data.puzzles.symmetry import map_direction

TRANSFORMS: Final = ("identity", "transpose")
_RENAME: Final = {GOAL[r * SIZE + c]: GOAL[c * SIZE + r] for r in range(SIZE) for c in range(SIZE)}


def apply(state: EightState, transform: str) -> EightState:
    """``state`` seen through ``transform`` (``identity`` or ``transpose``, letters renamed)."""
    if transform == "identity":
        return state
    if transform != "transpose":
        raise ValueError(f"eight_puzzle has no transform {transform!r}; it has {', '.join(TRANSFORMS)}")
    tiles = [BLANK] * (SIZE * SIZE)
    for index, letter in enumerate(state.tiles):
        r, c = divmod(index, SIZE)
        tiles[c * SIZE + r] = _RENAME.get(letter, letter)
    return EightState("".join(tiles))


def map_step(step: Direction, transform: str, state: EightState) -> Direction:
    return map_direction(transform, step)


def form(state: EightState) -> str:
    return state.tiles


SYMMETRY = Symmetry(transforms=TRANSFORMS, apply=apply, map_step=map_step, form=form)
