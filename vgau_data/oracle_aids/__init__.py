"""Oracle images: the grid-annotated aid, the step-wise states and the drawn solution.

``oracle_image(family, state, purpose)`` is the image a perfect generator would return
for a generation request: the aid (``"aid"``, GtA), the state itself (``"next_state"``,
VCoT) or the drawn optimal solution (``"vr"``, visual reasoning; see ``vr``).

The aid is the plain board with grid lines on the cell boundaries and a ``(r,c)`` label
on the cells the family labels, drawn as the authors' ``_build_aux_overlay`` draws it
for that family (``FamilySpec.aid``, an ``AidStyle``): its line colour, width and dash,
which cells carry a label, where in the cell and how large. No aid draws on a letter or
marker the answer is read from: path's labels sit near the top-left corner of its open
cells, and the lines break where they would cross a vehicle's id or klotski's T
(``AidStyle.keep_clear``). The lines and labels are drawn once per board geometry into
one layer (``grid_layer``) that is pasted onto each board in one go, ~1 ms instead of
~10 ms of text drawing; the labels of a set of cells, and the pixels kept clear, are
masked out of it once per set (a row's boards share their walls).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final, Literal

import numpy as np
from PIL import Image, ImageChops, ImageDraw

from vgau_data.oracle_aids.vr import oracle_vr
from vgau_data.puzzles.base import Cell, FamilySpec
from vgau_data.rendering import LABEL_OFFSET, AidStyle, BoardGeometry, Box, font, image_cache

Purpose = Literal["aid", "next_state", "vr"]
PURPOSES: Final[tuple[str, ...]] = ("aid", "next_state", "vr")
"""What a generated image is for: a GtA aid, a VCoT next state, or a drawn solution (VR)."""

PROMPTED_LOOK: Final = AidStyle(line_rgb=(220, 20, 20), line_px=3, label_fraction=0.25, label_halo=(255, 255, 255))
"""The aid Tables 18-23 ask a model to draw (every cell's label at its centre), exactly as ours
looked before following the authors' code; the cell decoder masks where it puts ink too."""
HALO_PX: Final = 2
"""Width of a label halo (``AidStyle.label_halo``)."""
LOOK_CACHE_SIZE: Final = 16
"""How many (board size, aid look) pairs the whole-board layers are kept for: the six families'
benchmark aids, or one family's aid at every training cell scale, with the look Self-GtA asks for."""


def _line(draw: ImageDraw.ImageDraw, start: tuple[int, int], end: tuple[int, int], style: AidStyle) -> None:
    """A horizontal or vertical grid line, solid or dashed (a dash every ``on + off`` pixels, ``on`` long
    with both ends drawn, as the authors' dashes)."""
    if style.dash is None:
        draw.line([start, end], fill=style.line_rgb, width=style.line_px)
        return
    on, off = style.dash
    (x0, y0), (x1, y1) = start, end
    length = max(x1 - x0, y1 - y0)
    for offset in range(0, length + 1, on + off):
        stop = min(offset + on, length)
        if y0 == y1:
            draw.line([(x0 + offset, y0), (x0 + stop, y0)], fill=style.line_rgb, width=style.line_px)
        else:
            draw.line([(x0, y0 + offset), (x0, y0 + stop)], fill=style.line_rgb, width=style.line_px)


def label_origin(geometry: BoardGeometry, style: AidStyle, cell: Cell) -> tuple[tuple[int, int], str]:
    """Where the label of ``cell`` is drawn and its Pillow anchor: the cell's centre, or just inside its top-left corner."""
    if style.label_anchor == "centre":
        return geometry.center(cell), "mm"
    x0, y0, _, _ = geometry.cell_box(cell)
    return (x0 + LABEL_OFFSET[0], y0 + LABEL_OFFSET[1]), "la"


@image_cache(maxsize=LOOK_CACHE_SIZE)
def _layers(geometry: BoardGeometry, style: AidStyle) -> tuple[Image.Image, Image.Image, Image.Image, Image.Image]:
    """The grid lines and every cell's ``(r,c)`` label as separate (RGB, coverage) layers: lines, then labels.

    ~3 MB at the benchmark's board size, 2-7 ms to draw; callers pass ``style.drawing_key``, so one
    family has one per cell scale, whatever the render style."""
    lines = Image.new("RGBA", geometry.size, (0, 0, 0, 0))
    draw = ImageDraw.Draw(lines)
    left, top = geometry.margin_left, geometry.margin_top
    right = left + geometry.cols * geometry.cell_px
    bottom = top + geometry.rows * geometry.cell_px
    for r in range(geometry.rows + 1):
        y = top + r * geometry.cell_px
        _line(draw, (left, y), (right, y), style)
    for c in range(geometry.cols + 1):
        x = left + c * geometry.cell_px
        _line(draw, (x, top), (x, bottom), style)
    labels = Image.new("RGBA", geometry.size, (0, 0, 0, 0))
    draw = ImageDraw.Draw(labels)
    label_font = font(style.label_px(geometry))
    for r in range(geometry.rows):
        for c in range(geometry.cols):
            xy, anchor = label_origin(geometry, style, (r, c))
            draw.text(
                xy,
                f"({r},{c})",
                font=label_font,
                fill=style.label_rgb,
                anchor=anchor,
                stroke_width=HALO_PX if style.label_halo else 0,
                stroke_fill=style.label_halo,
            )
    return lines.convert("RGB"), lines.getchannel("A"), labels.convert("RGB"), labels.getchannel("A")


@image_cache(maxsize=8)
def _labelled_layer(
    geometry: BoardGeometry, style: AidStyle, cells: frozenset[Cell] | None
) -> tuple[Image.Image, Image.Image]:
    """Lines and the labels of ``cells`` (None: every cell) as one (colours, coverage) layer.

    Pasting it once gives the pixels of pasting the lines, then the labels, because labels
    never touch a line (a test checks every family's geometry).
    """
    line_colours, line_coverage, label_colours, label_coverage = _layers(geometry, style)
    if cells is not None:
        inside = Image.new("L", geometry.size, 0)
        draw = ImageDraw.Draw(inside)
        for cell in cells:
            draw.rectangle(geometry.cell_box(cell), fill=255)
        label_coverage = ImageChops.multiply(label_coverage, inside)
    colours = line_colours  # image_cache hands out copies: ours to draw on
    colours.paste(label_colours, (0, 0), label_coverage.point(lambda alpha: 255 if alpha else 0))
    return colours, ImageChops.lighter(line_coverage, label_coverage)


@image_cache(maxsize=16)
def _layer(
    geometry: BoardGeometry, style: AidStyle, cells: frozenset[Cell] | None, clear: tuple[Box, ...]
) -> tuple[Image.Image, Image.Image]:
    """``_labelled_layer`` with the boxes ``clear`` left untouched (a few cached: a row's boards share their walls)."""
    colours, coverage = _labelled_layer(geometry, style, cells)
    if clear:
        draw = ImageDraw.Draw(coverage)
        for box in clear:
            draw.rectangle(box, fill=0)
    return colours, coverage


def grid_layer(family: FamilySpec, state: Any) -> tuple[Image.Image, Image.Image]:
    """The family's grid annotation of a board showing ``state``, as (RGB colours, L coverage): paste it onto the board."""
    style = family.aid
    cells = None if style.labelled_cells is None else frozenset(style.labelled_cells(state))
    clear = () if style.keep_clear is None else tuple(style.keep_clear(state))
    return _layer(family.geometry, style.drawing_key, cells, clear)


def prompted_layer(family: FamilySpec, state: Any) -> tuple[Image.Image, Image.Image]:
    """``grid_layer`` in ``PROMPTED_LOOK``: labels at the centres of the cells the family's aid labels,
    the annotation a Self-GtA drawing that follows its prompt (Tables 18-23) carries at least."""
    style = family.aid
    cells = None if style.labelled_cells is None else frozenset(style.labelled_cells(state))
    return _layer(family.geometry, PROMPTED_LOOK, cells, ())


@image_cache(maxsize=16)
def aid_footprint(geometry: BoardGeometry, style: AidStyle) -> np.ndarray:
    """Boolean ``(height, width)``: every pixel an aid of this board may cover, for decoders to look past.

    The family's own aid with every cell labelled, and the look the Self-GtA prompt asks a
    model for (``PROMPTED_LOOK``: solid lines, every label at its centre, with the halo our
    aids had), so models' drawings in either look, and ours of either time, decode.
    """
    own = _labelled_layer(geometry, style.drawing_key, None)[1]
    prompted = _labelled_layer(geometry, PROMPTED_LOOK, None)[1]
    return np.asarray(ImageChops.lighter(own, prompted)) > 0


def annotate(family: FamilySpec, board: Image.Image, state: Any) -> Image.Image:
    """Overlay the family's grid and cell labels on a rendered board of ``state`` (its aid).

    ``state`` is the state the board shows: which cells are labelled and which pixels stay
    clear follow it (a vehicle's id moves with the vehicle).
    """
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


def oracle_aug_states(family: FamilySpec, state: Any, answer: Sequence[Any]) -> list[Image.Image]:
    """``oracle_states`` of ``answer``, each board with its grid annotation (Oracle-Aug-VCoT)."""
    return [annotate(family, family.render(s), s) for s in family.trajectory(state, answer)]


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
