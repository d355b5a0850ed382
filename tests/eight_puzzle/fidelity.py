"""What each cell of a tray image shows, trays perturbed by k cells (``FIDELITY``), and the drawn solution (``VR``)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from tests.eight_puzzle.render import text_marks
from tests.eight_puzzle.rules import apply_step, source
from tests.eight_puzzle.state import BLANK, LETTERS, SIZE, EightState
from vgau_data.puzzles.base import Direction, Illegal
from vgau_data.puzzles.capabilities import Fidelity, Sketch, SketchMove, SolutionSketch, pick_edits


def cell_labels(state: EightState) -> tuple[str, ...]:
    """``tile`` or ``blank`` per cell, row-major (tiles look alike but for their letters, which ``text_marks`` give)."""
    return tuple("blank" if letter == BLANK else "tile" for letter in state.tiles)


def palette_states() -> tuple[EightState, ...]:
    """A tray with tiles and the blank in the middle (every tile touches the frame or the blank)."""
    return (EightState("ABCD.EFGH"),)


def perturb(state: EightState, k: int, rng: np.random.Generator) -> EightState:
    """``state`` with ``k`` cells changed: tiles taken off (the cell shows felt) or the blank filled with a
    tile (the letter of a tile already there: such a tray is drawn, never solved)."""
    options = [
        [(1, (index, BLANK if letter != BLANK else LETTERS[int(rng.integers(len(LETTERS)))]))]
        for index, letter in enumerate(state.tiles)
    ]
    tiles = list(state.tiles)
    for index, letter in pick_edits(options, k, rng):
        tiles[index] = letter
    return EightState("".join(tiles))


def sketch(state: EightState, answer: Sequence[Direction]) -> Sketch:
    """A numbered arrow per slide, from the sliding tile's cell the way it slides."""
    moves = []
    for direction in answer:
        index = source(state, direction)
        after = apply_step(state, direction)
        if index is None or isinstance(after, Illegal):
            raise ValueError(f"eight_puzzle: {direction!r} slides no tile on {state.tiles!r}")
        moves.append(SketchMove(divmod(index, SIZE), direction))
        state = after
    return Sketch(moves=tuple(moves))


FIDELITY = Fidelity(cell_labels=cell_labels, palette_states=palette_states, perturb=perturb, text_marks=text_marks)
VR = SolutionSketch(sketch=sketch)
