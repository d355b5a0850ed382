"""What an onet image shows cell by cell, its perturbations, and its drawn solution (one route per pair)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from vgau_data.puzzles.base import Cell, walk
from vgau_data.puzzles.capabilities import Fidelity, Sketch, SolutionSketch, pick_edits
from vgau_data.puzzles.onet.rules import _BITS, _flatten, _span, apply_step
from vgau_data.puzzles.onet.state import FRUIT_LETTERS, FRUITS, SIZE, OnetState, Step, from_ascii


def cell_labels(state: OnetState) -> tuple[str, ...]:
    """Row-major: the fruit on each cell, or ``empty``."""
    return tuple("empty" if cell is None else cell for row in state.board for cell in row)


def palette_states() -> tuple[OnetState, ...]:
    """Every fruit (each twice fills the board exactly) and an empty board."""
    letters = "".join(FRUIT_LETTERS[fruit] for fruit in FRUITS) * 2
    full = from_ascii([letters[r * SIZE : (r + 1) * SIZE] for r in range(SIZE)])
    return (full, OnetState(((None,) * SIZE,) * SIZE))


def perturb(state: OnetState, k: int, rng: np.random.Generator) -> OnetState:
    """``state`` with ``k`` cells changed: a tile becomes another fruit or empty, an empty cell gets a tile."""
    choices: tuple[str | None, ...] = (*FRUITS, None)
    options = [
        [(1, (r, c, other)) for other in choices if other != cell]
        for r, row in enumerate(state.board)
        for c, cell in enumerate(row)
    ]
    board = [list(row) for row in state.board]
    for r, c, fruit in pick_edits(options, k, rng):
        board[r][c] = fruit
    return OnetState(tuple(tuple(row) for row in board))


def connection(state: OnetState, step: Step) -> tuple[Cell, ...]:
    """The corners of the shortest <=2-turn route of empty cells joining a legal pair (ends included).

    Example:
        >>> connection(from_ascii(["A.....", "B.....", "A.....", *["B....."] + ["......"] * 2]), ((0, 0), (2, 0)))
        ((0, 0), (0, 1), (2, 1), (2, 0))
    """
    (ar, ac), (br, bc) = step
    _, occupied = _flatten(state)
    others = occupied & ~(_BITS[ar * SIZE + ac] | _BITS[br * SIZE + bc])
    best: tuple[int, tuple[Cell, ...]] | None = None
    for k in range(SIZE):
        for corners in (((ar, ac), (k, ac), (k, bc), (br, bc)), ((ar, ac), (ar, k), (br, k), (br, bc))):
            mask = _span(*corners[0], *corners[1]) | _span(*corners[1], *corners[2]) | _span(*corners[2], *corners[3])
            cells = mask.bit_count()
            if not mask & others and (best is None or cells < best[0]):
                best = (cells, corners)
    if best is None:
        raise ValueError(f"no route joins {step[0]} and {step[1]}")
    route = [best[1][0]]
    for corner in best[1][1:]:
        if corner != route[-1]:
            route.append(corner)
    return tuple(route)


def sketch(state: OnetState, answer: Sequence[Step]) -> Sketch:
    """One route per removed pair, in removal order, on the board as it is before that removal (Table 34)."""
    boards = [state, *walk(state, answer, apply_step)]
    return Sketch(routes=tuple(connection(board, step) for board, step in zip(boards, answer)))


FIDELITY = Fidelity(cell_labels=cell_labels, palette_states=palette_states, perturb=perturb)
"""What a onet image shows cell by cell (``FamilySpec.fidelity``)."""
VR = SolutionSketch(sketch=sketch)
"""The drawn solution of a onet board (``FamilySpec.vr``)."""
