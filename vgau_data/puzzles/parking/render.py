"""How a parking board looks: the lot, its exit and the vehicles (``parking.SPEC.render``).

Drawing lives apart from the rules; it reads a state's ``exit_row`` and its vehicles'
``id``, ``row``, ``col``, ``length`` and ``orientation``, and owns the palette and the
board geometry that the oracle aids and image decoders share, the vehicles' ids as
``TextMark``s, the oracle aid (``AID``: the authors' parking overlay) and the same board in
any render style (``STYLES``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

from vgau_data.puzzles.capabilities import Styles
from vgau_data.puzzles.parking.state import ParkingState, Vehicle
from vgau_data.render_styles import BENCHMARK_STYLE, RenderStyle
from vgau_data.rendering import (
    BOARD_CACHE_SIZE,
    AidStyle,
    BoardGeometry,
    Box,
    TextMark,
    draw_centered_text,
    image_cache,
)

if TYPE_CHECKING:
    from PIL import Image

SIZE: Final = 8
GEOMETRY: Final = BoardGeometry(rows=SIZE, cols=SIZE, cell_px=64, margin_right=56)

BOARD_RGB: Final = (214, 212, 204)
FRAME_RGB: Final = (70, 72, 82)
EXIT_RGB: Final = (30, 160, 70)
RED_RGB: Final = (214, 30, 36)
PALETTE: Final[dict[str, tuple[int, int, int]]] = {
    "R": RED_RGB,
    "A": (31, 119, 180),
    "B": (255, 140, 20),
    "C": (44, 160, 44),
    "D": (148, 103, 189),
    "E": (140, 86, 75),
    "F": (235, 120, 200),
    "G": (188, 189, 34),
    "H": (23, 190, 207),
    "I": (140, 200, 250),
    "J": (255, 200, 130),
    "K": (150, 230, 130),
    "L": (180, 150, 235),
    "M": (120, 120, 120),
    "N": (250, 150, 150),
    "O": (215, 235, 90),
    "P": (0, 110, 110),
    "Q": (40, 50, 130),
    "S": (100, 125, 45),
    "T": (185, 140, 60),
    "U": (120, 40, 130),
    "V": (0, 160, 125),
    "W": (250, 220, 0),
    "X": (90, 60, 30),
    "Y": (20, 90, 30),
    "Z": (170, 80, 250),
}
"""A fixed colour per vehicle id, so every id keeps its look across rows."""

# ---------------------------------------------------------------------------- drawing

_INSET: Final = 4
_RADIUS: Final = 12
_LETTER_PX: Final = 28
_ARROW: Final = ((10, -9), (30, -9), (30, -18), (48, 0), (30, 18), (30, 9), (10, 9))
"""The exit arrow's corners: right of the board's edge, above and below the exit row's middle."""


def _shade(rgb: tuple[int, int, int], factor: float) -> tuple[int, int, int]:
    return (int(rgb[0] * factor), int(rgb[1] * factor), int(rgb[2] * factor))


@image_cache(maxsize=BOARD_CACHE_SIZE)
def _background(exit_row: int, style: RenderStyle) -> Image.Image:
    """The lot: dark walls around the board, an opening with an arrow at the exit."""
    from PIL import Image, ImageDraw

    geometry = style.geometry(GEOMETRY)
    cell, inset, board = geometry.cell_px, style.px(_INSET), style.rgb(BOARD_RGB)
    image = Image.new("RGB", geometry.size, style.rgb(FRAME_RGB))
    draw = ImageDraw.Draw(image)
    left, top = geometry.margin_left, geometry.margin_top
    draw.rectangle((left, top, left + SIZE * cell - 1, top + SIZE * cell - 1), fill=board)
    x0 = left + SIZE * cell
    x1 = geometry.size[0] - 1
    y0 = top + exit_row * cell
    draw.rectangle((x0, y0 + inset, x1, y0 + cell - 1 - inset), fill=board)
    mid = y0 + cell // 2
    draw.polygon([(x0 + style.px(dx), mid + style.px(dy)) for dx, dy in _ARROW], fill=style.rgb(EXIT_RGB))
    return image


@image_cache(maxsize=64)
def _sprite(vid: str, orientation: str, length: int, style: RenderStyle) -> tuple[Image.Image, Image.Image]:
    """A vehicle as an RGB image and its mask: a rounded bar with its letter on it.

    64 kept: the 39 the build draws, and a row's own in any style (a style has 104, seldom met again
    by a row in another); one takes ~0.1 ms to draw and up to 0.1 MB to keep (``benchmarks/render_cache.py``)."""
    from PIL import Image, ImageDraw

    cell, inset, radius = style.px(GEOMETRY.cell_px), style.px(_INSET), style.px(_RADIUS)
    width, height = (length * cell, cell) if orientation == "h" else (cell, length * cell)
    colour = style.rgb(PALETTE[vid])
    sprite = Image.new("RGB", (width, height), colour)
    mask = Image.new("L", (width, height), 0)
    box = (inset, inset, width - 1 - inset, height - 1 - inset)
    ImageDraw.Draw(mask).rounded_rectangle(box, radius=radius, fill=255)
    draw = ImageDraw.Draw(sprite)
    draw.rounded_rectangle(box, radius=radius, fill=colour, outline=_shade(colour, 0.55), width=style.line(2))
    # the letter sits where the first two cells meet: clear of the cell-centre labels of the oracle aid
    draw_centered_text(draw, _letter_xy(orientation, cell), vid, style.px(_LETTER_PX), _ink(colour))
    return sprite, mask


def _ink(colour: tuple[int, int, int]) -> tuple[int, int, int]:
    """A vehicle's letter colour: near-black on light vehicles, white on dark ones."""
    light = 0.299 * colour[0] + 0.587 * colour[1] + 0.114 * colour[2] > 150
    return (20, 20, 20) if light else (255, 255, 255)


def _letter_xy(orientation: str, cell: int) -> tuple[int, int]:
    """Where a vehicle's letter is centred, from its top-left corner: where its first two cells meet."""
    return (cell, cell // 2) if orientation == "h" else (cell // 2, cell)


def render(state: ParkingState, style: RenderStyle = BENCHMARK_STYLE) -> Image.Image:
    """The board as a model sees it: walls with the exit opening and arrow on the right,
    every vehicle a coloured rounded bar with its letter, the red car ``R`` in red.

    Example:
        >>> from vgau_data.puzzles.parking.state import from_ascii
        >>> render(from_ascii(["RR......>"] + ["........"] * 7)).size
        (584, 544)
    """
    geometry = style.geometry(GEOMETRY)
    image = _background(state.exit_row, style)  # image_cache hands out a copy: ours to draw on
    for v in state.vehicles:
        sprite, mask = _sprite(v.id, v.orientation, v.length, style)
        x0, y0, _, _ = geometry.cell_box((v.row, v.col))
        image.paste(sprite, (x0, y0), mask)
    return image


def text_marks(state: ParkingState, style: RenderStyle = BENCHMARK_STYLE) -> tuple[TextMark, ...]:
    """Every vehicle's letter as ``render`` draws it."""
    return tuple(_mark(v, style) for v in state.vehicles)


def _mark(v: Vehicle, style: RenderStyle) -> TextMark:
    geometry = style.geometry(GEOMETRY)
    x0, y0, _, _ = geometry.cell_box((v.row, v.col))
    dx, dy = _letter_xy(v.orientation, geometry.cell_px)
    colour = style.rgb(PALETTE[v.id])
    return TextMark(v.id, (x0 + dx, y0 + dy), style.px(_LETTER_PX), _ink(colour), colour)


def _letters(state: ParkingState, style: RenderStyle = BENCHMARK_STYLE) -> tuple[Box, ...]:
    """The vehicles' letters with 2 px to spare: the grid line between a vehicle's first two cells would cross it."""
    return tuple(_mark(v, style).box(margin=2) for v in state.vehicles)


AID: Final = AidStyle(line_rgb=(230, 40, 40), line_px=2, label_fraction=0.2, keep_clear=_letters)
"""The authors' parking aid: solid red lines 2 px wide, every cell's label at its centre at 20%
of the cell side; the lines break around the vehicles' letters, which sit on a cell boundary."""


STYLES: Final = Styles.drawn(GEOMETRY, render, AID, text_marks=text_marks, keep_clear=_letters)
"""The same board in any render style (docs/render-styles.md)."""
