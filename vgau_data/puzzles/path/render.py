"""How a path map looks: black walls, grey road, the letters, the blue destination and the orange marker;
its letters as ``TextMark``s, its oracle aid (``AID``: the authors' path overlay), and the same
board in any render style (``STYLES``)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

from vgau_data.puzzles.base import Cell
from vgau_data.puzzles.capabilities import Styles
from vgau_data.puzzles.grids import cells_image, open_cells
from vgau_data.puzzles.path.rules import _here
from vgau_data.puzzles.path.state import ROAD, SIZE, WALL, PathState
from vgau_data.render_styles import BENCHMARK_STYLE, RenderStyle
from vgau_data.rendering import (
    BOARD_CACHE_SIZE,
    RGB,
    AidStyle,
    BoardGeometry,
    Box,
    TextMark,
    font,
    image_cache,
    new_board,
)

if TYPE_CHECKING:
    from PIL import Image, ImageDraw

WALL_RGB: Final = (0, 0, 0)
ROAD_RGB: Final = (210, 210, 210)
FRAME_RGB: Final = (255, 255, 255)
START_RGB: Final = (249, 115, 22)
END_RGB: Final = (37, 99, 235)
LETTER_RGB: Final = (0, 0, 0)
TRIANGLE_INSET: Final = 4
MARKER_TRIANGLE_INSET: Final = 13
LETTER_PX: Final = 36
LETTER_STROKE: Final = 1
"""Letters are stroked in their own colour: a bold, legible glyph."""

GEOMETRY: Final = BoardGeometry(rows=SIZE, cols=SIZE, cell_px=52)


def render(state: PathState, style: RenderStyle = BENCHMARK_STYLE) -> Image.Image:
    """Black walls, gray road, letters, the blue destination triangle and the orange marker triangle.

    The orange triangle marks the marker's cell (the start until it moves), as the
    authors' environment moves the start triangle; on a letter the letter is drawn over
    it, and on the destination it is drawn smaller so the blue triangle shows around it.
    """
    from PIL import ImageDraw

    image = _background(state.grid, state.end, state.labels, style)
    here = _here(state)
    inset = MARKER_TRIANGLE_INSET if here == state.end else TRIANGLE_INSET
    _triangle(ImageDraw.Draw(image), here, inset, START_RGB, style)
    for letter, cell in state.labels:
        if cell == here:
            _letter(image, cell, letter, style)
    return image


def _triangle(draw: ImageDraw.ImageDraw, cell: Cell, inset: int, colour: RGB, style: RenderStyle) -> None:
    x0, y0, x1, y1 = style.geometry(GEOMETRY).cell_box(cell, style.px(inset))
    draw.polygon([((x0 + x1) // 2, y0), (x0, y1), (x1, y1)], fill=style.rgb(colour))


def _letter(image: Image.Image, cell: Cell, letter: str, style: RenderStyle) -> None:
    x0, y0, _, _ = style.geometry(GEOMETRY).cell_box(cell)
    image.paste(style.rgb(LETTER_RGB), (x0, y0), _glyph(letter, style))


@image_cache(maxsize=1024)
def _glyph(letter: str, style: RenderStyle) -> Image.Image:
    """A cell-sized mask of ``letter``, centred, stroked in its own colour (bold)."""
    from PIL import Image, ImageDraw

    cell_px = style.geometry(GEOMETRY).cell_px
    mask = Image.new("L", (cell_px, cell_px), 0)
    half = cell_px // 2
    ImageDraw.Draw(mask).text(
        (half, half),
        letter,
        font=font(style.px(LETTER_PX)),
        fill=255,
        anchor="mm",
        stroke_width=style.line(LETTER_STROKE),
        stroke_fill=255,
    )
    return mask


@image_cache(maxsize=BOARD_CACHE_SIZE)
def _background(
    grid: tuple[str, ...], end: Cell, labels: tuple[tuple[str, Cell], ...], style: RenderStyle
) -> Image.Image:
    from PIL import ImageDraw

    geometry = style.geometry(GEOMETRY)
    image = new_board(geometry, style.rgb(FRAME_RGB))
    colours = {WALL: style.rgb(WALL_RGB), ROAD: style.rgb(ROAD_RGB)}
    image.paste(cells_image(grid, colours, geometry.cell_px), geometry.cell_box((0, 0))[:2])
    draw = ImageDraw.Draw(image)
    _triangle(draw, end, TRIANGLE_INSET, END_RGB, style)
    for letter, cell in labels:
        _letter(image, cell, letter, style)
    return image


def text_marks(state: PathState, style: RenderStyle = BENCHMARK_STYLE) -> tuple[TextMark, ...]:
    """The letters A-E as ``render`` draws them, centred in their cells."""
    geometry = style.geometry(GEOMETRY)
    ink, ground = style.rgb(LETTER_RGB), style.rgb(ROAD_RGB)
    size, stroke = style.px(LETTER_PX), style.line(LETTER_STROKE)
    return tuple(TextMark(letter, geometry.center(cell), size, ink, ground, stroke) for letter, cell in state.labels)


def _walls(state: PathState, style: RenderStyle = BENCHMARK_STYLE) -> tuple[Box, ...]:
    """The wall cells grown by a pixel: the authors' lines skip every pixel next to a wall's black."""
    geometry = style.geometry(GEOMETRY)
    boxes = []
    for r, row in enumerate(state.grid):
        for c, char in enumerate(row):
            if char == WALL:
                x0, y0, x1, y1 = geometry.cell_box((r, c))
                boxes.append((x0 - 1, y0 - 1, x1 + 1, y1 + 1))
    return tuple(boxes)


AID: Final = AidStyle(
    line_rgb=(230, 40, 40),
    line_px=1,
    label_fraction=0.18,
    label_anchor="top_left",
    label_rgb=(10, 10, 10),
    labelled="every walkable cell",
    labelled_cells=open_cells,
    keep_clear=_walls,
)
"""The authors' path aid: solid red lines 1 px wide that stop at the walls, and each walkable
cell's label near its top-left corner, clear of the letters and triangles at the cell's
centre: 9 px (their smallest size; 20% of our 52 px cells would touch the triangles' tips)."""


STYLES: Final = Styles.drawn(GEOMETRY, render, AID, text_marks=text_marks, keep_clear=_walls)
"""The same board in any render style (docs/render-styles.md)."""
