"""How a klotski board looks: coloured rounded blocks, the target marked T, no grid; the T
as a ``TextMark``, the oracle aid (``AID``: the authors' klotski overlay, dashed) and the same
board in any render style (``STYLES``)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

from vgau_data.puzzles.capabilities import Styles
from vgau_data.puzzles.klotski.state import SHAPES, SIZE, KlotskiState
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

PALETTE: Final = {
    "frame": (150, 138, 122),
    "empty": (238, 232, 218),
    "target": (206, 48, 48),
    "vertical": (52, 104, 196),
    "horizontal": (40, 156, 84),
    "single": (236, 176, 32),
    "label": (255, 255, 255),
}
GEOMETRY: Final = BoardGeometry(rows=SIZE, cols=SIZE, cell_px=88)
TARGET_LETTER_PX: Final = 64
BLOCK_INSET: Final = 5
"""Pixels between a block's drawn rectangle and its cells' edges (so neighbours show a gap)."""


@image_cache(maxsize=BOARD_CACHE_SIZE)
def _background(style: RenderStyle) -> Image.Image:
    return framed_board(style.geometry(GEOMETRY), style.rgb(PALETTE["frame"]), style.rgb(PALETTE["empty"]))


@image_cache(maxsize=64)
def _sprite(kind: str, style: RenderStyle) -> Image.Image:
    """The block drawn over its whole footprint (cells outside the rounded rectangle
    keep the empty colour, so sprites are pasted without a mask).

    64 kept: the four kinds of the last 16 styles; one takes ~0.1 ms to draw (``benchmarks/render_cache.py``)."""
    from PIL import Image, ImageDraw

    height, width = SHAPES[kind]
    px, inset = style.px(GEOMETRY.cell_px), style.px(BLOCK_INSET)
    sprite = Image.new("RGB", (width * px, height * px), style.rgb(PALETTE["empty"]))
    draw = ImageDraw.Draw(sprite)
    fill = style.rgb(PALETTE[kind])
    edge = _edge(fill)
    box = (inset, inset, width * px - 1 - inset, height * px - 1 - inset)
    draw.rounded_rectangle(box, radius=style.px(14), fill=fill, outline=edge, width=style.line(3))
    if kind == "target":
        draw_centered_text(draw, (px, px), "T", style.px(TARGET_LETTER_PX), style.rgb(PALETTE["label"]), stroke=edge)
    return sprite


def _edge(fill: tuple[int, int, int]) -> tuple[int, int, int]:
    """A block's outline colour: its fill darkened."""
    return tuple(max(0, v - 60) for v in fill)  # type: ignore[return-value]


def render(state: KlotskiState, style: RenderStyle = BENCHMARK_STYLE) -> Image.Image:
    """The board as an RGB image of ``GEOMETRY.size``: coloured rounded blocks, the
    target marked ``T``, empty cells plain; no grid lines, no coordinates."""
    geometry = style.geometry(GEOMETRY)
    image = _background(style)  # image_cache hands out a copy: ours to draw on
    for block in state.blocks:
        x0, y0, _, _ = geometry.cell_box((block.row, block.col))
        image.paste(_sprite(block.kind, style), (x0, y0))
    return image


def text_marks(state: KlotskiState, style: RenderStyle = BENCHMARK_STYLE) -> tuple[TextMark, ...]:
    """The target's T as ``render`` draws it, at the centre of the 2x2 block (white on its dark outline)."""
    geometry = style.geometry(GEOMETRY)
    x0, y0, _, _ = geometry.cell_box(state.target)
    px = geometry.cell_px
    ink, ground = style.rgb(PALETTE["label"]), _edge(style.rgb(PALETTE["target"]))
    return (TextMark("T", (x0 + px, y0 + px), style.px(TARGET_LETTER_PX), ink, ground),)


def _target_letter(state: KlotskiState, style: RenderStyle = BENCHMARK_STYLE) -> tuple[Box, ...]:
    """The T with 2 px to spare: it sits where the four cells of the target meet, on two grid lines."""
    return tuple(mark.box(margin=2) for mark in text_marks(state, style))


AID: Final = AidStyle(line_rgb=(255, 0, 0), line_px=2, dash=(12, 18), label_fraction=0.24, keep_clear=_target_letter)
"""The authors' klotski aid: pure-red dashed lines 2 px wide (13 px drawn of every 30), every
cell's label at its centre at 24% of the cell side; the lines break around the target's T."""


STYLES: Final = Styles.drawn(GEOMETRY, render, AID, text_marks=text_marks, keep_clear=_target_letter)
"""The same board in any render style (docs/render-styles.md)."""
