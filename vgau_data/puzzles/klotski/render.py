"""How a klotski board looks: coloured rounded blocks, the target marked T, no grid."""

from __future__ import annotations

import functools
from typing import Final

from PIL import Image, ImageDraw

from vgau_data.puzzles.klotski.state import SHAPES, SIZE, KlotskiState
from vgau_data.rendering import BoardGeometry, draw_centered_text, new_board

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
BLOCK_INSET: Final = 5
"""Pixels between a block's drawn rectangle and its cells' edges (so neighbours show a gap)."""


@functools.cache
def _background() -> Image.Image:
    image = new_board(GEOMETRY, PALETTE["frame"])
    x0, y0, _, _ = GEOMETRY.cell_box((0, 0))
    _, _, x1, y1 = GEOMETRY.cell_box((SIZE - 1, SIZE - 1))
    ImageDraw.Draw(image).rectangle((x0, y0, x1, y1), fill=PALETTE["empty"])
    return image


@functools.cache
def _sprite(kind: str) -> Image.Image:
    """The block drawn over its whole footprint (cells outside the rounded rectangle
    keep the empty colour, so sprites are pasted without a mask)."""
    height, width = SHAPES[kind]
    px = GEOMETRY.cell_px
    sprite = Image.new("RGB", (width * px, height * px), PALETTE["empty"])
    draw = ImageDraw.Draw(sprite)
    fill = PALETTE[kind]
    edge = tuple(max(0, v - 60) for v in fill)
    box = (BLOCK_INSET, BLOCK_INSET, width * px - 1 - BLOCK_INSET, height * px - 1 - BLOCK_INSET)
    draw.rounded_rectangle(box, radius=14, fill=fill, outline=edge, width=3)
    if kind == "target":
        draw_centered_text(draw, (px, px), "T", 64, PALETTE["label"], stroke=edge)
    return sprite


def render(state: KlotskiState) -> Image.Image:
    """The board as an RGB image of ``GEOMETRY.size``: coloured rounded blocks, the
    target marked ``T``, empty cells plain; no grid lines, no coordinates."""
    image = _background().copy()
    for block in state.blocks:
        x0, y0, _, _ = GEOMETRY.cell_box((block.row, block.col))
        image.paste(_sprite(block.kind), (x0, y0))
    return image
