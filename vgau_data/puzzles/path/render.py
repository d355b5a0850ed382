"""How a path map looks: black walls, grey road, the letters, the blue destination and the orange marker;
its letters as ``TextMark``s, and its oracle aid (``AID``: the authors' path overlay)."""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING, Final

from vgau_data.puzzles.base import Cell
from vgau_data.puzzles.grids import cells_image, open_cells
from vgau_data.puzzles.path.rules import _here
from vgau_data.puzzles.path.state import ROAD, SIZE, WALL, PathState
from vgau_data.rendering import AidStyle, BoardGeometry, Box, TextMark, font, new_board

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


def render(state: PathState) -> Image.Image:
    """Black walls, gray road, letters, the blue destination triangle and the orange marker triangle.

    The orange triangle marks the marker's cell (the start until it moves), as the
    authors' environment moves the start triangle; on a letter the letter is drawn over
    it, and on the destination it is drawn smaller so the blue triangle shows around it.
    """
    from PIL import ImageDraw

    image = _background(state.grid, state.end, state.labels).copy()
    here = _here(state)
    inset = MARKER_TRIANGLE_INSET if here == state.end else TRIANGLE_INSET
    _triangle(ImageDraw.Draw(image), here, inset, START_RGB)
    for letter, cell in state.labels:
        if cell == here:
            _letter(image, cell, letter, LETTER_RGB)
    return image


def _triangle(draw: ImageDraw.ImageDraw, cell: Cell, inset: int, colour: tuple[int, int, int]) -> None:
    x0, y0, x1, y1 = GEOMETRY.cell_box(cell, inset)
    draw.polygon([((x0 + x1) // 2, y0), (x0, y1), (x1, y1)], fill=colour)


def _letter(image: Image.Image, cell: Cell, letter: str, colour: tuple[int, int, int]) -> None:
    x0, y0, _, _ = GEOMETRY.cell_box(cell)
    image.paste(colour, (x0, y0), _glyph(letter))


@functools.cache
def _glyph(letter: str) -> Image.Image:
    """A cell-sized mask of ``letter``, centred, stroked in its own colour (bold)."""
    from PIL import Image, ImageDraw

    mask = Image.new("L", (GEOMETRY.cell_px, GEOMETRY.cell_px), 0)
    half = GEOMETRY.cell_px // 2
    ImageDraw.Draw(mask).text(
        (half, half), letter, font=font(LETTER_PX), fill=255, anchor="mm", stroke_width=LETTER_STROKE, stroke_fill=255
    )
    return mask


@functools.lru_cache(maxsize=256)
def _background(grid: tuple[str, ...], end: Cell, labels: tuple[tuple[str, Cell], ...]) -> Image.Image:
    from PIL import ImageDraw

    image = new_board(GEOMETRY, FRAME_RGB)
    image.paste(cells_image(grid, {WALL: WALL_RGB, ROAD: ROAD_RGB}), GEOMETRY.cell_box((0, 0))[:2])
    draw = ImageDraw.Draw(image)
    _triangle(draw, end, TRIANGLE_INSET, END_RGB)
    for letter, cell in labels:
        _letter(image, cell, letter, LETTER_RGB)
    return image


def text_marks(state: PathState) -> tuple[TextMark, ...]:
    """The letters A-E as ``render`` draws them, centred in their cells."""
    return tuple(
        TextMark(letter, GEOMETRY.center(cell), LETTER_PX, LETTER_RGB, ROAD_RGB, LETTER_STROKE)
        for letter, cell in state.labels
    )


def _walls(state: PathState) -> tuple[Box, ...]:
    """The wall cells grown by a pixel: the authors' lines skip every pixel next to a wall's black."""
    boxes = []
    for r, row in enumerate(state.grid):
        for c, char in enumerate(row):
            if char == WALL:
                x0, y0, x1, y1 = GEOMETRY.cell_box((r, c))
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
