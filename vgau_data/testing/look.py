"""The oracle aid's look: the board with grid lines on the cell boundaries and ``(r,c)`` labels, as ``spec.aid`` says.

Checked from the pixels, so a family whose aid drew labels on the wrong cells, lines off
the cell boundaries, or a solid grid where its style says dashed, fails here: the aid has
the board's size, differs from it, its new pixels of the line colour sit on cell
boundaries, and it differs from the board where a label goes (the cell's centre or its
top-left corner, ``label_origin``) exactly on ``aid.labelled_cells`` (every cell when None).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from vgau_data.oracle_aids import annotate, label_origin, oracle_aid, oracle_states
from vgau_data.puzzles.base import FamilySpec


def check_look(spec: FamilySpec, state: Any, answer: tuple[Any, ...], expect: Callable[[object, str], None]) -> None:
    """The aid of ``state`` and the oracle state images of ``answer``."""
    name, geometry, style = spec.name, spec.geometry, spec.aid
    board_image = spec.render(state)
    aid_image = oracle_aid(spec, state)
    expect(aid_image.size == board_image.size, f"{name}: the oracle aid is {aid_image.size}, the board {board_image.size}")
    if aid_image.size != board_image.size:
        return
    board, aid = np.asarray(board_image).astype(int), np.asarray(aid_image).astype(int)
    expect((board != aid).any(), f"{name}: the oracle aid is the plain board")
    colour = np.array(style.line_rgb)
    drawn = (np.abs(aid - colour).max(axis=2) == 0) & ~(np.abs(board - colour).max(axis=2) == 0)
    ys, xs = np.nonzero(drawn)
    expect(len(xs) > 0, f"{name}: the oracle aid draws no line in its line colour {style.line_rgb}")
    off_x = (xs - geometry.margin_left + style.line_px) % geometry.cell_px
    off_y = (ys - geometry.margin_top + style.line_px) % geometry.cell_px
    off_boundary = ~((off_x <= 2 * style.line_px) | (off_y <= 2 * style.line_px))
    expect(not off_boundary.any(), f"{name}: {int(off_boundary.sum())} line pixels of the aid lie off the cell boundaries")
    if style.keep_clear is None:
        top = drawn[geometry.margin_top, geometry.margin_left : geometry.margin_left + geometry.cell_px]
        expect(top.all() == (style.dash is None), f"{name}: the grid line is {'solid' if top.all() else 'dashed'}, "
               f"but the aid's dash is {style.dash}")  # fmt: skip
    half = style.label_px(geometry) // 2
    labelled = set()
    for cell in np.ndindex(geometry.rows, geometry.cols):
        (x, y), anchor = label_origin(geometry, style, cell)
        window = np.s_[y - half : y + half, x - half : x + half] if anchor == "mm" else np.s_[y : y + 2 * half, x : x + 2 * half]
        if (board[window] != aid[window]).any():
            labelled.add(cell)
    every = set(np.ndindex(geometry.rows, geometry.cols))
    expected = every if style.labelled_cells is None else set(style.labelled_cells(state))
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
