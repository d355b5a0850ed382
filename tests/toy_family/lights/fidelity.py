"""What each cell of a Lights Out image shows, and boards perturbed by k cells."""

from __future__ import annotations

import numpy as np

from tests.toy_family.lights.state import OFF, ON, LightsState
from vgau_data.puzzles.capabilities import Fidelity, pick_edits


def cell_labels(state: LightsState) -> tuple[str, ...]:
    """``lit`` or ``dark`` per cell, row-major."""
    return tuple("lit" if char == ON else "dark" for row in state.lights for char in row)


def palette_states() -> tuple[LightsState, ...]:
    """A board showing both looks."""
    return (LightsState(("#.#", ".#.", "#.#")),)


def perturb(state: LightsState, k: int, rng: np.random.Generator) -> LightsState:
    """``state`` with ``k`` lamps switched."""
    rows = [list(row) for row in state.lights]
    cells = [(r, c) for r in range(len(rows)) for c in range(len(rows[0]))]
    for r, c in pick_edits([[(1, cell)] for cell in cells], k, rng):
        rows[r][c] = OFF if rows[r][c] == ON else ON
    return LightsState(tuple("".join(row) for row in rows))


FIDELITY = Fidelity(cell_labels=cell_labels, palette_states=palette_states, perturb=perturb)
