"""How a sokoban board looks: brick walls, sand floor, the green X, the crate and the person;
its oracle aid (``AID``: the authors' sokoban overlay, labels on the non-wall cells as Table 19 asks),
and the same board in any render style (``STYLES``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

from vgau_data.errors import StateError
from vgau_data.puzzles.base import Cell
from vgau_data.puzzles.capabilities import Styles
from vgau_data.puzzles.grids import open_cells
from vgau_data.puzzles.sokoban.state import SIZE, WALL, SokobanState
from vgau_data.render_styles import BENCHMARK_STYLE, RenderStyle
from vgau_data.rendering import BOARD_CACHE_SIZE, AidStyle, BoardGeometry, image_cache

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
CRATE_RIM: Final = 4
"""Sand pixels between the crate and its cell's edges."""


_GRAINS: Final = ((7, 5), (40, 9), (18, 33), (44, 30), (30, 45), (6, 41), (33, 17), (12, 20), (46, 46))


@image_cache(maxsize=256)
def _wall_tile(style: RenderStyle) -> Image.Image:
    """Brick courses 13 px high, bricks 26 px wide, every other course offset by half."""
    from PIL import Image, ImageDraw

    cell = style.px(GEOMETRY.cell_px)
    tile = Image.new("RGB", (cell, cell), style.rgb(MORTAR))
    draw = ImageDraw.Draw(tile)
    course = cell // 4
    for row in range(4):
        y0 = row * course
        shift = 0 if row % 2 == 0 else course
        for k in range(-1, 3):
            x0 = k * 2 * course + shift
            left, right = max(x0 + 1, 0), min(x0 + 2 * course - 2, cell - 1)
            if left <= right:
                colour = BRICK if (row + k) % 2 == 0 else BRICK_DARK
                draw.rectangle((left, y0 + 1, right, y0 + course - 2), fill=style.rgb(colour))
    return tile


@image_cache(maxsize=256)
def _floor_tile(style: RenderStyle) -> Image.Image:
    from PIL import Image, ImageDraw

    cell = style.px(GEOMETRY.cell_px)
    tile = Image.new("RGB", (cell, cell), style.rgb(SAND))
    draw = ImageDraw.Draw(tile)
    grain = style.line(2) - 1
    for x, y in _GRAINS:
        x, y = style.px(x), style.px(y)
        draw.rectangle((x, y, x + grain, y + grain), fill=style.rgb(SAND_GRAIN))
    return tile


def _draw_target(draw: ImageDraw.ImageDraw, x0: int, y0: int, style: RenderStyle) -> None:
    a, b = style.px(8), style.px(GEOMETRY.cell_px) - style.px(9)
    colour, width = style.rgb(TARGET_GREEN), style.line(7)
    draw.line((x0 + a, y0 + a, x0 + b, y0 + b), fill=colour, width=width)
    draw.line((x0 + a, y0 + b, x0 + b, y0 + a), fill=colour, width=width)


@image_cache(maxsize=512)
def _crate(on_target: bool, style: RenderStyle) -> Image.Image:
    """A wooden crate (frame, boards, X brace) filling the cell but a 4 px sand rim."""
    from PIL import Image, ImageDraw

    fill, dark = (WOOD_ON_TARGET, FRAME_ON_TARGET) if on_target else (WOOD, WOOD_DARK)
    fill, dark = style.rgb(fill), style.rgb(dark)
    size = style.px(GEOMETRY.cell_px) - 2 * style.px(CRATE_RIM)
    crate = Image.new("RGB", (size, size), dark)
    draw = ImageDraw.Draw(crate)
    a, b = style.px(5), size - 1 - style.px(5)
    draw.rectangle((a, a, b, b), fill=fill)
    for y in (15, 28):  # board seams
        draw.line((a, style.px(y), b, style.px(y)), fill=dark, width=style.line(1))
    draw.line((a, a, b, b), fill=dark, width=style.line(5))
    draw.line((a, b, b, a), fill=dark, width=style.line(5))
    return crate


def _draw_person(
    draw: ImageDraw.ImageDraw, style: RenderStyle, skin: object, shirt: object, trousers: object, line: object
) -> None:
    """Legs, arms, body and head of the player in a cell-sized canvas."""
    p = style.px
    cx = p(GEOMETRY.cell_px) // 2
    draw.rectangle((cx - p(9), p(39), cx - p(3), p(47)), fill=trousers, outline=line)  # legs
    draw.rectangle((cx + p(3), p(39), cx + p(9), p(47)), fill=trousers, outline=line)
    draw.rounded_rectangle((cx - p(15), p(22), cx - p(10), p(36)), radius=p(2), fill=shirt, outline=line)  # arms
    draw.rounded_rectangle((cx + p(10), p(22), cx + p(15), p(36)), radius=p(2), fill=shirt, outline=line)
    draw.rounded_rectangle((cx - p(10), p(19), cx + p(10), p(41)), radius=p(4), fill=shirt, outline=line)  # body
    draw.ellipse((cx - p(8), p(3), cx + p(8), p(19)), fill=skin, outline=line, width=style.line(2))  # head


@image_cache(maxsize=256)
def _player(style: RenderStyle) -> tuple[Image.Image, Image.Image]:
    """The small person as an RGB sprite and its mask (the X of a target shows around it)."""
    from PIL import Image, ImageDraw

    cell = style.px(GEOMETRY.cell_px)
    outline = style.rgb(OUTLINE)
    sprite = Image.new("RGB", (cell, cell), outline)
    draw = ImageDraw.Draw(sprite)
    _draw_person(draw, style, style.rgb(SKIN), style.rgb(SHIRT), style.rgb(TROUSERS), outline)
    eyes = [(cell // 2 - style.px(3), style.px(10)), (cell // 2 + style.px(3), style.px(10))]
    draw.point(eyes, fill=outline)
    mask = Image.new("L", (cell, cell), 0)
    _draw_person(ImageDraw.Draw(mask), style, 255, 255, 255, 255)
    return sprite, mask


@image_cache(maxsize=BOARD_CACHE_SIZE)
def _background(grid: tuple[str, ...], target: Cell, style: RenderStyle) -> Image.Image:
    from PIL import Image, ImageDraw

    geometry = style.geometry(GEOMETRY)
    image = Image.new("RGB", geometry.size, style.rgb(BACKGROUND))
    wall, floor = _wall_tile(style), _floor_tile(style)
    for r, row in enumerate(grid):
        for c, ch in enumerate(row):
            x0, y0, _, _ = geometry.cell_box((r, c))
            image.paste(wall if ch == WALL else floor, (x0, y0))
    x0, y0, _, _ = geometry.cell_box(target)
    _draw_target(ImageDraw.Draw(image), x0, y0, style)
    return image


def render(state: SokobanState, style: RenderStyle = BENCHMARK_STYLE) -> Image.Image:
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
    geometry = style.geometry(GEOMETRY)
    image = _background(state.grid, state.target, style)
    x0, y0, _, _ = geometry.cell_box(state.box)
    rim = style.px(CRATE_RIM)
    image.paste(_crate(state.box == state.target, style), (x0 + rim, y0 + rim))
    sprite, mask = _player(style)
    x0, y0, _, _ = geometry.cell_box(state.player)
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


STYLES: Final = Styles.drawn(GEOMETRY, render, AID)
"""The same board in any render style (docs/render-styles.md)."""
