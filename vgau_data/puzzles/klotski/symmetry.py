"""Klotski symmetries: the left-right mirror (the goal, bottom centre, is its own mirror image).

An up-down flip or a turn would move the goal, so they are not the same puzzle. Blocks of
one shape are already interchangeable in a state (its cell codes name kinds, not blocks),
so the relabelling of same-shape blocks is built into ``form``: the cell string itself.
"""

from __future__ import annotations

from vgau_data.puzzles.capabilities import Symmetry
from vgau_data.puzzles.klotski.state import _CODES, SHAPES, SIZE, KlotskiState, Step
from vgau_data.puzzles.symmetry import map_direction

TRANSFORMS = ("identity", "mirror")


def apply(state: KlotskiState, transform: str) -> KlotskiState:
    """``state`` seen through ``transform`` (``identity`` or the left-right ``mirror``)."""
    if transform == "identity":
        return state
    if transform != "mirror":
        raise ValueError(f"klotski has no transform {transform!r}; it has {', '.join(TRANSFORMS)}")
    chars = ["."] * (SIZE * SIZE)
    for block in state.blocks:
        codes = iter(_CODES[block.kind])
        col = SIZE - block.col - block.width
        for r in range(block.row, block.row + block.height):
            for c in range(col, col + block.width):
                chars[r * SIZE + c] = next(codes)
    return KlotskiState("".join(chars))


def map_step(step: Step, transform: str, state: KlotskiState) -> Step:
    """The step's block named by its top-left cell on the mirrored board."""
    if transform == "identity":
        return step
    (r, c), direction = step
    kind = next((block.kind for block in state.blocks if (block.row, block.col) == (r, c)), None)
    if kind is None:
        raise ValueError(f"klotski: no block has its top-left cell at {(r, c)}")
    return ((r, SIZE - c - SHAPES[kind][1]), map_direction(transform, direction))


def form(state: KlotskiState) -> str:
    return state.cells


SYMMETRY = Symmetry(transforms=TRANSFORMS, apply=apply, map_step=map_step, form=form)
