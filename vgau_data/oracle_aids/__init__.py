"""Oracle images: the grid-annotated aid, the step-wise states and the drawn solution.

``oracle_image(family, state, purpose)`` is the image a perfect generator would return
for a generation request: the aid (``"aid"``, GtA), the state itself (``"next_state"``,
VCoT) or the drawn optimal solution (``"vr"``, visual reasoning; see ``vr``).

The aid is the plain board with red grid-boundary lines (dashed for klotski) and a black
``(r,c)`` label at the centre of the cells the paper labels (Tables 18-23: every cell,
except sokoban, which labels its non-wall cells; ``FamilySpec.labelled_cells``). The
lines and labels are drawn once per board geometry into one layer (``grid_layer``) that
is pasted onto each board in one go, ~1 ms instead of ~10 ms of text drawing; a family
that labels some cells only gets that layer masked once per set of cells (the walls of a
row's boards never change).
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Any, Final, Literal

from PIL import Image, ImageChops, ImageDraw

from vgau_data.oracle_aids.vr import oracle_vr
from vgau_data.puzzles.base import Cell, FamilySpec
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
    """The grid lines and every cell's ``(r,c)`` label of a board geometry, as (RGB colours, L coverage mask)."""
    return _combined(*_layers(geometry, dashed))


@functools.cache
def _layers(geometry: BoardGeometry, dashed: bool) -> tuple[Image.Image, Image.Image, Image.Image, Image.Image]:
    """The grid lines and the ``(r,c)`` labels as separate (RGB, coverage) layers: lines, then labels."""
    lines = Image.new("RGBA", geometry.size, (0, 0, 0, 0))
    draw = ImageDraw.Draw(lines)
    left, top = geometry.margin_left, geometry.margin_top
    right = left + geometry.cols * geometry.cell_px
    bottom = top + geometry.rows * geometry.cell_px
    for r in range(geometry.rows + 1):
        y = top + r * geometry.cell_px
        _line(draw, (left, y), (right, y), dashed)
    for c in range(geometry.cols + 1):
        x = left + c * geometry.cell_px
        _line(draw, (x, top), (x, bottom), dashed)
    labels = Image.new("RGBA", geometry.size, (0, 0, 0, 0))
    draw = ImageDraw.Draw(labels)
    label_px = max(11, geometry.cell_px // 4)
    for r in range(geometry.rows):
        for c in range(geometry.cols):
            draw_centered_text(draw, geometry.center((r, c)), f"({r},{c})", label_px, LABEL_BLACK[:3], LABEL_HALO[:3])
    return lines.convert("RGB"), lines.getchannel("A"), labels.convert("RGB"), labels.getchannel("A")


def _combined(
    line_colours: Image.Image, line_coverage: Image.Image, label_colours: Image.Image, label_coverage: Image.Image
) -> tuple[Image.Image, Image.Image]:
    """Lines and labels as one (colours, coverage) layer: each pixel takes the colour of the layer covering it.

    Pasting it once gives the pixels of pasting the lines, then the labels, because labels
    sit at cell centres and never touch a line (a test checks every family's geometry).
    """
    colours = line_colours.copy()
    colours.paste(label_colours, (0, 0), label_coverage.point(lambda alpha: 255 if alpha else 0))
    return colours, ImageChops.lighter(line_coverage, label_coverage)


@functools.lru_cache(maxsize=8)
def _labelled_overlay(geometry: BoardGeometry, dashed: bool, cells: frozenset[Cell]) -> tuple[Image.Image, Image.Image]:
    """``grid_overlay`` with labels in ``cells`` only (a few cached: a row's boards share their walls)."""
    line_colours, line_coverage, label_colours, label_coverage = _layers(geometry, dashed)
    inside = Image.new("L", geometry.size, 0)
    draw = ImageDraw.Draw(inside)
    for cell in cells:
        draw.rectangle(geometry.cell_box(cell), fill=255)
    return _combined(line_colours, line_coverage, label_colours, ImageChops.multiply(label_coverage, inside))


def grid_layer(family: FamilySpec, state: Any) -> tuple[Image.Image, Image.Image]:
    """The family's grid annotation of ``state``'s boards as (RGB colours, L coverage): paste it onto a board."""
    if family.labelled_cells is None:
        return grid_overlay(family.geometry, family.dashed_grid)
    return _labelled_overlay(family.geometry, family.dashed_grid, frozenset(family.labelled_cells(state)))


def annotate(family: FamilySpec, board: Image.Image, state: Any) -> Image.Image:
    """Overlay the family's grid and cell labels on a rendered board of ``state`` (its aid)."""
    if board.size != family.geometry.size:
        raise ValueError(f"{family.name} boards are {family.geometry.size} px, got an image of {board.size}")
    annotated = board.convert("RGB")  # a copy, also when the board is already RGB
    colours, coverage = grid_layer(family, state)
    annotated.paste(colours, (0, 0), coverage)
    return annotated


def oracle_aid(family: FamilySpec, state: Any) -> Image.Image:
    """The oracle aid of a state: its board with the grid annotation."""
    return annotate(family, family.render(state), state)


def oracle_states(family: FamilySpec, state: Any, answer: Sequence[Any]) -> list[Image.Image]:
    """The board after each step of ``answer`` (for path: the marker's walk)."""
    return [family.render(s) for s in family.trajectory(state, answer)]


def oracle_aug_states(family: FamilySpec, state: Any, boards: Sequence[Image.Image]) -> list[Image.Image]:
    """The step boards of an instance whose initial state is ``state``, with the grid annotation."""
    return [annotate(family, board, state) for board in boards]


def oracle_image(family: FamilySpec, state: Any, purpose: Purpose) -> Image.Image:
    """The image a perfect generator returns for ``purpose`` on ``state``.

    For ``"vr"`` the state is solved (optimally) and the solution drawn on its board.

    Example:
        >>> from vgau_data.registry import get_family
        >>> maze = get_family("maze")
        >>> oracle_image(maze, maze.fidelity.palette_states()[0], "aid").size
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
