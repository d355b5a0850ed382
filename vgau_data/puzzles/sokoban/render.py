"""How a sokoban board looks: brick walls, sand floor, the green X, the crate and the person;
and its oracle aid (``AID``: the authors' sokoban overlay, labels on the non-wall cells as Table 19 asks).
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING, Final

from vgau_data.errors import StateError
from vgau_data.puzzles.base import Cell
from vgau_data.puzzles.grids import open_cells
from vgau_data.puzzles.sokoban.state import SIZE, WALL, SokobanState
from vgau_data.rendering import AidStyle, BoardGeometry

if TYPE_CHECKING:
    from PIL import Image, ImageDraw

GEOMETRY: Final = BoardGeometry(rows=SIZE, cols=SIZE, cell_px=52)

BACKGROUND: Final = (58, 50, 44)
SAND: Final = (233, 210, 156)
SAND_GRAIN: Final = (212, 184, 124)
BRICK: Final = (172, 72, 46)
BRICK_DARK: Final = (146, 58, 38)
MORTAR: Final = (196, 188, 172)
TARGET_GREEN: Final = (36, 168, 72)
WOOD: Final = (200, 144, 78)
WOOD_DARK: Final = (116, 72, 32)
WOOD_ON_TARGET: Final = (150, 206, 110)
FRAME_ON_TARGET: Final = (22, 128, 48)
SKIN: Final = (247, 205, 168)
SHIRT: Final = (38, 92, 206)
TROUSERS: Final = (44, 44, 72)
OUTLINE: Final = (30, 26, 24)


_CELL = GEOMETRY.cell_px


@functools.cache
def _wall_tile() -> Image.Image:
    """Brick courses 13 px high, bricks 26 px wide, every other course offset by half."""
    from PIL import Image, ImageDraw

    tile = Image.new("RGB", (_CELL, _CELL), MORTAR)
    draw = ImageDraw.Draw(tile)
    course = _CELL // 4
    for row in range(4):
        y0 = row * course
        shift = 0 if row % 2 == 0 else course
        for k in range(-1, 3):
            x0 = k * 2 * course + shift
            left, right = max(x0 + 1, 0), min(x0 + 2 * course - 2, _CELL - 1)
            if left <= right:
                colour = BRICK if (row + k) % 2 == 0 else BRICK_DARK
                draw.rectangle((left, y0 + 1, right, y0 + course - 2), fill=colour)
    return tile


_GRAINS: Final = ((7, 5), (40, 9), (18, 33), (44, 30), (30, 45), (6, 41), (33, 17), (12, 20), (46, 46))


@functools.cache
def _floor_tile() -> Image.Image:
    from PIL import Image, ImageDraw

    tile = Image.new("RGB", (_CELL, _CELL), SAND)
    draw = ImageDraw.Draw(tile)
    for x, y in _GRAINS:
        draw.rectangle((x, y, x + 1, y + 1), fill=SAND_GRAIN)
    return tile


def _draw_target(draw: ImageDraw.ImageDraw, x0: int, y0: int) -> None:
    a, b = 8, _CELL - 9
    draw.line((x0 + a, y0 + a, x0 + b, y0 + b), fill=TARGET_GREEN, width=7)
    draw.line((x0 + a, y0 + b, x0 + b, y0 + a), fill=TARGET_GREEN, width=7)


@functools.cache
def _crate(on_target: bool) -> Image.Image:
    """A wooden crate (frame, boards, X brace) filling the cell but a 4 px sand rim."""
    from PIL import Image, ImageDraw

    fill, dark = (WOOD_ON_TARGET, FRAME_ON_TARGET) if on_target else (WOOD, WOOD_DARK)
    size = _CELL - 8
    crate = Image.new("RGB", (size, size), dark)
    draw = ImageDraw.Draw(crate)
    draw.rectangle((5, 5, size - 6, size - 6), fill=fill)
    for y in (15, 28):  # board seams
        draw.line((5, y, size - 6, y), fill=dark, width=1)
    draw.line((5, 5, size - 6, size - 6), fill=dark, width=5)
    draw.line((5, size - 6, size - 6, 5), fill=dark, width=5)
    return crate


def _draw_person(draw: ImageDraw.ImageDraw, skin: object, shirt: object, trousers: object, line: object) -> None:
    """Legs, arms, body and head of the player in a cell-sized canvas."""
    cx = _CELL // 2
    draw.rectangle((cx - 9, 39, cx - 3, 47), fill=trousers, outline=line)  # legs
    draw.rectangle((cx + 3, 39, cx + 9, 47), fill=trousers, outline=line)
    draw.rounded_rectangle((cx - 15, 22, cx - 10, 36), radius=2, fill=shirt, outline=line)  # arms
    draw.rounded_rectangle((cx + 10, 22, cx + 15, 36), radius=2, fill=shirt, outline=line)
    draw.rounded_rectangle((cx - 10, 19, cx + 10, 41), radius=4, fill=shirt, outline=line)  # body
    draw.ellipse((cx - 8, 3, cx + 8, 19), fill=skin, outline=line, width=2)  # head


@functools.cache
def _player() -> tuple[Image.Image, Image.Image]:
    """The small person as an RGB sprite and its mask (the X of a target shows around it)."""
    from PIL import Image, ImageDraw

    sprite = Image.new("RGB", (_CELL, _CELL), OUTLINE)
    draw = ImageDraw.Draw(sprite)
    _draw_person(draw, SKIN, SHIRT, TROUSERS, OUTLINE)
    draw.point([(_CELL // 2 - 3, 10), (_CELL // 2 + 3, 10)], fill=OUTLINE)  # eyes
    mask = Image.new("L", (_CELL, _CELL), 0)
    _draw_person(ImageDraw.Draw(mask), 255, 255, 255, 255)
    return sprite, mask


@functools.lru_cache(maxsize=128)
def _background(grid: tuple[str, ...], target: Cell) -> Image.Image:
    from PIL import Image, ImageDraw

    image = Image.new("RGB", GEOMETRY.size, BACKGROUND)
    wall, floor = _wall_tile(), _floor_tile()
    for r, row in enumerate(grid):
        for c, ch in enumerate(row):
            x0, y0, _, _ = GEOMETRY.cell_box((r, c))
            image.paste(wall if ch == WALL else floor, (x0, y0))
    x0, y0, _, _ = GEOMETRY.cell_box(target)
    _draw_target(ImageDraw.Draw(image), x0, y0)
    return image


def render(state: SokobanState) -> Image.Image:
    """The board as a model sees it: brick walls, sand floor, green X target, crate, person.

    Raises:
        StateError: for a board that is not 10x10.

    Example:
        >>> import numpy as np
        >>> from vgau_data.puzzles.sokoban.generator import generate
        >>> render(generate("easy", np.random.default_rng(1))).size
        (552, 552)
    """
    if len(state.grid) != SIZE or len(state.grid[0]) != SIZE:
        raise StateError(f"sokoban render needs a {SIZE}x{SIZE} board")
    image = _background(state.grid, state.target).copy()
    x0, y0, _, _ = GEOMETRY.cell_box(state.box)
    image.paste(_crate(state.box == state.target), (x0 + 4, y0 + 4))
    sprite, mask = _player()
    x0, y0, _, _ = GEOMETRY.cell_box(state.player)
    image.paste(sprite, (x0, y0), mask)
    return image


AID: Final = AidStyle(
    line_rgb=(230, 40, 40),
    line_px=2,
    label_fraction=0.28,
    labelled="every cell that is not a wall",
    labelled_cells=open_cells,
)
"""The authors' sokoban aid: solid red lines 2 px wide, and each non-wall cell's label at its
centre at 28% of the cell side."""
