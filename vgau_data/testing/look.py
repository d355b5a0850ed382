"""The oracle aid's look: the board with the red grid (dashed where ``dashed_grid``) and ``(r,c)`` labels on ``labelled_cells``.

Checked from the pixels, so a family whose aid drew labels on the wrong cells, or a
solid grid where its prompts say dashed, fails here: the aid has the board's size,
differs from it, has a red pixel on the top grid line at the first cell's edge (and, if
dashed, a gap along it), and differs from the board near a cell's centre, where its label
goes, exactly on the labelled cells (Tables 18-23: every cell, except sokoban's walls).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from vgau_data.oracle_aids import GRID_RED, annotate, oracle_aid, oracle_states
from vgau_data.puzzles.base import FamilySpec


def check_look(spec: FamilySpec, state: Any, answer: tuple[Any, ...], expect: Callable[[object, str], None]) -> None:
    """The aid of ``state`` and the oracle state images of ``answer``."""
    name, geometry = spec.name, spec.geometry
    board_image = spec.render(state)
    aid_image = oracle_aid(spec, state)
    expect(aid_image.size == board_image.size, f"{name}: the oracle aid is {aid_image.size}, the board {board_image.size}")
    if aid_image.size != board_image.size:
        return
    board, aid = np.asarray(board_image), np.asarray(aid_image)
    expect((board != aid).any(), f"{name}: the oracle aid is the plain board")
    y = geometry.margin_top
    line = [tuple(aid[y, x]) == GRID_RED[:3] for x in range(geometry.margin_left, geometry.margin_left + geometry.cell_px)]
    expect(any(line), f"{name}: no red grid line along the top edge of the first cell")
    expect(all(line) != spec.dashed_grid, f"{name}: the grid line is {'solid' if all(line) else 'dashed'}, but "
           f"dashed_grid is {spec.dashed_grid}")  # fmt: skip
    quarter = geometry.cell_px // 4
    labelled = set()
    for r in range(geometry.rows):
        for c in range(geometry.cols):
            cx, cy = geometry.center((r, c))
            window = np.s_[cy - quarter // 2 : cy + quarter // 2, cx - quarter : cx + quarter]
            if (board[window] != aid[window]).any():
                labelled.add((r, c))
    every = {(r, c) for r in range(geometry.rows) for c in range(geometry.cols)}
    expected = every if spec.labelled_cells is None else set(spec.labelled_cells(state))
    expect(expected <= every, f"{name}: labelled_cells names cells off the board: {sorted(expected - every)[:4]}")
    expect(labelled == expected, f"{name}: the aid labels {len(labelled)} cells, labelled_cells says {len(expected)} "
           f"(first differences: {sorted(labelled ^ expected)[:4]})")  # fmt: skip
    try:
        annotate(spec, board_image.resize((geometry.size[0] // 2, geometry.size[1] // 2)), state)
    except ValueError:
        pass
    else:
        expect(False, f"{name}: annotate accepted a board of another size")
    images = oracle_states(spec, state, answer)
    expect(len(images) == len(spec.trajectory(state, answer)), f"{name}: one oracle state image per trajectory state")
    expect(all(image.size == geometry.size for image in images), f"{name}: oracle state images of another size")
