"""What a klotski image shows cell by cell, and its drawn solution (``FamilySpec.fidelity`` and ``FamilySpec.vr``).

Kept apart from the rules; it reads a state's 36-character ``cells`` string of per-cell
codes and builds new states with ``dataclasses.replace``.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any

import numpy as np

from vgau_data.puzzles.base import Cell
from vgau_data.puzzles.capabilities import Fidelity, Sketch, SketchMove, SolutionSketch, pick_edits
from vgau_data.puzzles.klotski.render import text_marks
from vgau_data.puzzles.klotski.state import EXAMPLE, KlotskiState

SIZE = 6
KIND_OF_CODE = {
    "A": "target", "B": "target", "C": "target", "D": "target",
    "v": "vertical", "w": "vertical", "h": "horizontal", "i": "horizontal",
    "s": "single", ".": "empty",
}  # fmt: skip
"""Cell codes of ``KlotskiState.cells`` and the block kind each belongs to."""


def cell_labels(state: KlotskiState) -> tuple[str, ...]:
    """Row-major: ``target``, ``vertical``, ``horizontal``, ``single`` or ``empty``
    (blocks of one kind look alike, so a cell shows only its block's kind)."""
    return tuple(KIND_OF_CODE[code] for code in state.cells)


def palette_states() -> tuple[KlotskiState, ...]:
    """A board showing every kind of block and the empty cells (``state.EXAMPLE``)."""
    return (EXAMPLE,)


def perturb(state: KlotskiState, k: int, rng: np.random.Generator) -> KlotskiState:
    """``state`` with ``k`` cells changed: singles removed, empty cells filled with a single,
    2-cell blocks split into two singles or removed (the target is never touched)."""
    options: list[list[tuple[int, Any]]] = []
    for index, code in enumerate(state.cells):
        if code == "s":
            options.append([(1, ((index, "."),))])
        elif code == ".":
            options.append([(1, ((index, "s"),))])
        elif code in "vh":
            other = index + (SIZE if code == "v" else 1)
            options.append([(2, ((index, "s"), (other, "s"))), (2, ((index, "."), (other, ".")))])
    cells = list(state.cells)
    for edit in pick_edits(options, k, rng):
        for index, code in edit:
            cells[index] = code
    return dataclasses.replace(state, cells="".join(cells))


def sketch(state: KlotskiState, answer: Sequence[tuple[Cell, str]]) -> Sketch:
    """A numbered arrow per slide from the block's top-left cell (the answer's ``from``) (Table 35)."""
    return Sketch(moves=tuple(SketchMove(cell, direction) for cell, direction in answer))  # type: ignore[arg-type]


FIDELITY = Fidelity(cell_labels=cell_labels, palette_states=palette_states, perturb=perturb, text_marks=text_marks)
"""What a klotski image shows cell by cell (``FamilySpec.fidelity``)."""
VR = SolutionSketch(sketch=sketch)
"""The drawn solution of a klotski board (``FamilySpec.vr``)."""
