"""How a tray looks: wooden tiles with a dark letter on a green felt tray, no grid; the letters as
``TextMark``s, the oracle aid (``AID``: labels at each cell's top-left, clear of the letters) and
the same tray in any render style (``STYLES``)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

from tests.eight_puzzle.state import BLANK, SIZE, EightState
from vgau_data.puzzles.capabilities import Styles
from vgau_data.render_styles import BENCHMARK_STYLE, RenderStyle
from vgau_data.rendering import (
    BOARD_CACHE_SIZE,
    AidStyle,
    BoardGeometry,
    Box,
    TextMark,
    draw_centered_text,
    framed_board,
    image_cache,
)

if TYPE_CHECKING:
    from PIL import Image

PALETTE: Final = {"frame": (60, 44, 30), "tray": (36, 110, 64), "tile": (232, 200, 140), "letter": (40, 28, 16)}
GEOMETRY: Final = BoardGeometry(rows=SIZE, cols=SIZE, cell_px=96)
LETTER_PX: Final = 48
TILE_INSET: Final = 4


@image_cache(maxsize=BOARD_CACHE_SIZE)
def _background(style: RenderStyle) -> Image.Image:
    return framed_board(style.geometry(GEOMETRY), style.rgb(PALETTE["frame"]), style.rgb(PALETTE["tray"]))


def render(state: EightState, style: RenderStyle = BENCHMARK_STYLE) -> Image.Image:
    """The tray as an RGB image of ``GEOMETRY.size``: a rounded tile with its letter per tile, felt at the blank."""
    from PIL import ImageDraw

    geometry = style.geometry(GEOMETRY)
    image = _background(style)  # image_cache hands out a copy: ours to draw on
    draw = ImageDraw.Draw(image)
    for index, letter in enumerate(state.tiles):
        if letter != BLANK:
            box = geometry.cell_box(divmod(index, SIZE), inset=style.px(TILE_INSET))
            draw.rounded_rectangle(box, radius=style.px(10), fill=style.rgb(PALETTE["tile"]))
    for mark in text_marks(state, style):
        draw_centered_text(draw, mark.xy, mark.text, mark.size, mark.ink)
    return image


def text_marks(state: EightState, style: RenderStyle = BENCHMARK_STYLE) -> tuple[TextMark, ...]:
    """Each tile's letter as ``render`` draws it, centred on its cell."""
    geometry = style.geometry(GEOMETRY)
    ink, ground = style.rgb(PALETTE["letter"]), style.rgb(PALETTE["tile"])
    return tuple(
        TextMark(letter, geometry.center(divmod(index, SIZE)), style.px(LETTER_PX), ink, ground)
        for index, letter in enumerate(state.tiles)
        if letter != BLANK
    )


def _letters(state: EightState, style: RenderStyle = BENCHMARK_STYLE) -> tuple[Box, ...]:
    """The letters with 2 px to spare: the aid's labels and lines stay off them."""
    return tuple(mark.box(margin=2) for mark in text_marks(state, style))


AID: Final = AidStyle(
    line_rgb=(255, 0, 0), line_px=2, label_fraction=0.16, label_anchor="top_left",
    labelled="every cell, at its top-left corner", keep_clear=_letters,
)  # fmt: skip
"""Solid red lines and every cell's label in its top-left corner: a centred label would cover the letter."""

STYLES: Final = Styles.drawn(GEOMETRY, render, AID, text_marks=text_marks, keep_clear=_letters)
"""The same tray in any render style (docs/render-styles.md)."""
