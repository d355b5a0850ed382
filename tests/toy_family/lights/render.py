"""The board: a lit cell is a yellow lamp, a dark one a grey lamp, on a black panel."""

from __future__ import annotations

from PIL import Image, ImageDraw

from tests.toy_family.lights.state import SIZE, LightsState
from vgau_data.rendering import BoardGeometry, new_board

GEOMETRY = BoardGeometry(rows=SIZE, cols=SIZE, cell_px=96)
PANEL_RGB = (20, 20, 24)
LIT_RGB = (250, 210, 40)
DARK_RGB = (90, 90, 96)


def render(state: LightsState) -> Image.Image:
    """Each cell a rounded lamp, lit or dark."""
    image = new_board(GEOMETRY, PANEL_RGB)
    draw = ImageDraw.Draw(image)
    for r in range(SIZE):
        for c in range(SIZE):
            colour = LIT_RGB if state.is_on((r, c)) else DARK_RGB
            draw.rounded_rectangle(GEOMETRY.cell_box((r, c), inset=14), radius=12, fill=colour)
    return image
