"""Oracle images: the grid-annotated aid, the step-wise states and the drawn solution.

``oracle_image(family, state, purpose)`` is the image a perfect generator would return
for a generation request: the aid (``"aid"``, GtA), the state itself (``"next_state"``,
VCoT) or the drawn optimal solution (``"vr"``, visual reasoning; see ``vr``).

The aid is the plain board with red grid-boundary lines (dashed for klotski) and a black
``(r,c)`` label at every cell centre. The labels and lines are drawn once per family into
a transparent overlay and composited onto each board, which keeps an aid at ~1 ms
instead of ~10 ms of text drawing.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Any, Final, Literal

from PIL import Image, ImageDraw

from vgau_data.oracle_aids.vr import oracle_vr
from vgau_data.puzzles.base import FamilySpec
from vgau_data.rendering import BoardGeometry, draw_centered_text

Purpose = Literal["aid", "next_state", "vr"]
PURPOSES: Final[tuple[str, ...]] = ("aid", "next_state", "vr")
"""What a generated image is for: a GtA aid, a VCoT next state, or a drawn solution (VR)."""

GRID_RED = (220, 20, 20, 255)
LABEL_BLACK = (0, 0, 0, 255)
LABEL_HALO = (255, 255, 255, 255)
GRID_WIDTH = 3
DASH_PX = 8


def _line(draw: ImageDraw.ImageDraw, start: tuple[int, int], end: tuple[int, int], dashed: bool) -> None:
    """A horizontal or vertical red line, solid or dashed."""
    if not dashed:
        draw.line([start, end], fill=GRID_RED, width=GRID_WIDTH)
        return
    (x0, y0), (x1, y1) = start, end
    length = max(x1 - x0, y1 - y0)
    for offset in range(0, length, 2 * DASH_PX):
        stop = min(offset + DASH_PX, length)
        if y0 == y1:
            draw.line([(x0 + offset, y0), (x0 + stop, y0)], fill=GRID_RED, width=GRID_WIDTH)
        else:
            draw.line([(x0, y0 + offset), (x0, y0 + stop)], fill=GRID_RED, width=GRID_WIDTH)


@functools.cache
def grid_overlay(geometry: BoardGeometry, dashed: bool) -> tuple[Image.Image, Image.Image]:
    """The grid lines and ``(r,c)`` labels of a board geometry, as (RGB colours, L coverage mask)."""
    overlay = Image.new("RGBA", geometry.size, (0, 0, 0, 0))
    draw = ImageDraw.Draw(overlay)
    left, top = geometry.margin_left, geometry.margin_top
    right = left + geometry.cols * geometry.cell_px
    bottom = top + geometry.rows * geometry.cell_px
    for r in range(geometry.rows + 1):
        y = top + r * geometry.cell_px
        _line(draw, (left, y), (right, y), dashed)
    for c in range(geometry.cols + 1):
        x = left + c * geometry.cell_px
        _line(draw, (x, top), (x, bottom), dashed)
    label_px = max(11, geometry.cell_px // 4)
    for r in range(geometry.rows):
        for c in range(geometry.cols):
            draw_centered_text(draw, geometry.center((r, c)), f"({r},{c})", label_px, LABEL_BLACK[:3], LABEL_HALO[:3])
    return overlay.convert("RGB"), overlay.getchannel("A")


def annotate(family: FamilySpec, board: Image.Image) -> Image.Image:
    """Overlay the family's grid and cell labels on a rendered board of that family."""
    if board.size != family.geometry.size:
        raise ValueError(f"{family.name} boards are {family.geometry.size} px, got an image of {board.size}")
    colours, coverage = grid_overlay(family.geometry, family.dashed_grid)
    annotated = board.convert("RGB")  # a copy, also when the board is already RGB
    annotated.paste(colours, (0, 0), coverage)
    return annotated


def oracle_aid(family: FamilySpec, state: Any) -> Image.Image:
    """The oracle aid of a state: its board with the grid annotation."""
    return annotate(family, family.render(state))


def oracle_states(family: FamilySpec, state: Any, answer: Sequence[Any]) -> list[Image.Image]:
    """The board after each step of ``answer`` (for path: the marker's walk)."""
    return [family.render(s) for s in family.trajectory(state, answer)]


def oracle_aug_states(family: FamilySpec, boards: Sequence[Image.Image]) -> list[Image.Image]:
    """The same step boards with the grid annotation."""
    return [annotate(family, board) for board in boards]


def oracle_image(family: FamilySpec, state: Any, purpose: Purpose) -> Image.Image:
    """The image a perfect generator returns for ``purpose`` on ``state``.

    For ``"vr"`` the state is solved (optimally) and the solution drawn on its board.

    Example:
        >>> from vgau_data.registry import get_family
        >>> maze = get_family("maze")
        >>> oracle_image(maze, maze.palette_states()[0], "aid").size
        (552, 552)
    """
    if purpose == "aid":
        return oracle_aid(family, state)
    if purpose == "next_state":
        return family.render(state)
    if purpose == "vr":
        solution = family.solve(state)
        if solution is None:
            raise ValueError(f"{family.name}: the state has no solution to draw")
        return oracle_vr(family, state, solution.answer)
    raise ValueError(f"unknown purpose {purpose!r}; choose from {', '.join(PURPOSES)}")
