"""How a klotski board looks: coloured rounded blocks, the target marked T, no grid; the T
as a ``TextMark``, and the oracle aid (``AID``: the authors' klotski overlay, dashed)."""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING, Final

from vgau_data.puzzles.klotski.state import SHAPES, SIZE, KlotskiState
from vgau_data.rendering import AidStyle, BoardGeometry, Box, TextMark, draw_centered_text, new_board

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


@functools.cache
def _background() -> Image.Image:
    from PIL import ImageDraw

    image = new_board(GEOMETRY, PALETTE["frame"])
    x0, y0, _, _ = GEOMETRY.cell_box((0, 0))
    _, _, x1, y1 = GEOMETRY.cell_box((SIZE - 1, SIZE - 1))
    ImageDraw.Draw(image).rectangle((x0, y0, x1, y1), fill=PALETTE["empty"])
    return image


@functools.cache
def _sprite(kind: str) -> Image.Image:
    """The block drawn over its whole footprint (cells outside the rounded rectangle
    keep the empty colour, so sprites are pasted without a mask)."""
    from PIL import Image, ImageDraw

    height, width = SHAPES[kind]
    px = GEOMETRY.cell_px
    sprite = Image.new("RGB", (width * px, height * px), PALETTE["empty"])
    draw = ImageDraw.Draw(sprite)
    fill = PALETTE[kind]
    edge = _edge(fill)
    box = (BLOCK_INSET, BLOCK_INSET, width * px - 1 - BLOCK_INSET, height * px - 1 - BLOCK_INSET)
    draw.rounded_rectangle(box, radius=14, fill=fill, outline=edge, width=3)
    if kind == "target":
        draw_centered_text(draw, (px, px), "T", TARGET_LETTER_PX, PALETTE["label"], stroke=edge)
    return sprite


def _edge(fill: tuple[int, int, int]) -> tuple[int, int, int]:
    """A block's outline colour: its fill darkened."""
    return tuple(max(0, v - 60) for v in fill)  # type: ignore[return-value]


def render(state: KlotskiState) -> Image.Image:
    """The board as an RGB image of ``GEOMETRY.size``: coloured rounded blocks, the
    target marked ``T``, empty cells plain; no grid lines, no coordinates."""
    image = _background().copy()
    for block in state.blocks:
        x0, y0, _, _ = GEOMETRY.cell_box((block.row, block.col))
        image.paste(_sprite(block.kind), (x0, y0))
    return image


def text_marks(state: KlotskiState) -> tuple[TextMark, ...]:
    """The target's T as ``render`` draws it, at the centre of the 2x2 block (white on its dark outline)."""
    x0, y0, _, _ = GEOMETRY.cell_box(state.target)
    px = GEOMETRY.cell_px
    return (TextMark("T", (x0 + px, y0 + px), TARGET_LETTER_PX, PALETTE["label"], _edge(PALETTE["target"])),)


def _target_letter(state: KlotskiState) -> tuple[Box, ...]:
    """The T with 2 px to spare: it sits where the four cells of the target meet, on two grid lines."""
    return tuple(mark.box(margin=2) for mark in text_marks(state))


AID: Final = AidStyle(line_rgb=(255, 0, 0), line_px=2, dash=(12, 18), label_fraction=0.24, keep_clear=_target_letter)
"""The authors' klotski aid: pure-red dashed lines 2 px wide (13 px drawn of every 30), every
cell's label at its centre at 24% of the cell side; the lines break around the target's T."""
