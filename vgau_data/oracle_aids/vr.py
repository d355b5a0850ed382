"""Solution drawings: the oracle image of self-VR (paper Tables 30-35), drawn by us.

A family's ``sketch(state, answer)`` says what to draw; this module draws it on the
board, the way the paper's self-VR prompts ask a model to:

- maze, sokoban, path: one continuous red polyline through cell centres (the agent's
  route; sokoban's player path up to the cell from which the final push happens, or the
  push itself when the player pushes from where it stands);
- onet: one polyline per removed pair along its connection path, a distinct bright
  colour per pair (the first red);
- parking, klotski: a numbered arrow per move, from the centre of a cell of the moved
  piece to the centre of the cell it slides into, with the move's number in a badge
  where the arrow crosses the cell edge.

Strokes are about 12% of a cell wide (the prompts ask for 10-15%) and stay on the
centre lines of cells, badges on the midpoints of cell edges; ``sketch_mask`` gives that
footprint so the cell decoder can look past it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final

import numpy as np
from PIL import Image, ImageDraw

from vgau_data.puzzles.base import DELTAS, FamilySpec
from vgau_data.puzzles.capabilities import Sketch, SketchMove
from vgau_data.rendering import BoardGeometry, draw_centered_text, image_cache

ROUTE_COLOURS: Final[tuple[tuple[int, int, int], ...]] = (
    (230, 20, 20),  # red: the route of maze, sokoban and path, and onet's first pair
    (20, 90, 230),
    (240, 150, 0),
    (150, 30, 200),
    (0, 170, 170),
    (230, 0, 140),
    (110, 180, 0),
    (120, 70, 20),
    (0, 0, 0),
)
"""Distinct bright colours, one per route (onet pairs cycle through them)."""
ARROW_RGB: Final = (230, 20, 20)
BADGE_RGB: Final = (255, 255, 255)
BADGE_TEXT_RGB: Final = (0, 0, 0)
STROKE_FRACTION: Final = 0.12
"""Stroke width as a fraction of the cell side."""
HEAD_FRACTION: Final = 0.1
"""Half-width of an arrow head as a fraction of the cell side."""
BADGE_FRACTION: Final = 0.2
"""Badge radius as a fraction of the cell side."""


def stroke_px(geometry: BoardGeometry) -> int:
    return max(3, round(STROKE_FRACTION * geometry.cell_px))


def draw_sketch(board: Image.Image, geometry: BoardGeometry, sketch: Sketch) -> Image.Image:
    """A copy of ``board`` with the sketch's routes and numbered moves drawn on it."""
    image = board.convert("RGB")
    draw = ImageDraw.Draw(image)
    width = stroke_px(geometry)
    for index, route in enumerate(sketch.routes):
        points = [geometry.center(cell) for cell in route]
        if len(points) > 1:
            draw.line(points, fill=ROUTE_COLOURS[index % len(ROUTE_COLOURS)], width=width, joint="curve")
    for move in sketch.moves:
        _arrow(draw, geometry, move, width)
    for number, move in enumerate(sketch.moves, start=1):
        _badge(draw, geometry, move, number)
    return image


def _arrow(draw: ImageDraw.ImageDraw, geometry: BoardGeometry, move: SketchMove, width: int) -> None:
    dr, dc = DELTAS[move.direction]
    x0, y0 = geometry.center(move.cell)
    tip_x, tip_y = x0 + dc * geometry.cell_px, y0 + dr * geometry.cell_px
    head = HEAD_FRACTION * geometry.cell_px
    base_x, base_y = tip_x - dc * 0.3 * geometry.cell_px, tip_y - dr * 0.3 * geometry.cell_px
    draw.line([(x0, y0), (base_x, base_y)], fill=ARROW_RGB, width=width)
    draw.polygon(
        [(tip_x, tip_y), (base_x + dr * head, base_y - dc * head), (base_x - dr * head, base_y + dc * head)],
        fill=ARROW_RGB,
    )


def _badge(draw: ImageDraw.ImageDraw, geometry: BoardGeometry, move: SketchMove, number: int) -> None:
    dr, dc = DELTAS[move.direction]
    x, y = geometry.center(move.cell)
    x, y = x + dc * geometry.cell_px // 2, y + dr * geometry.cell_px // 2
    radius = BADGE_FRACTION * geometry.cell_px
    draw.ellipse((x - radius, y - radius, x + radius, y + radius), fill=BADGE_RGB, outline=ARROW_RGB, width=2)
    draw_centered_text(draw, (x, y), str(number), max(10, round(radius * 1.2)), BADGE_TEXT_RGB)


def oracle_vr(family: FamilySpec, state: Any, answer: Sequence[Any]) -> Image.Image:
    """The board of ``state`` with ``answer`` drawn on it (the dataset's ``oracle_vr``)."""
    if family.vr is None:
        raise ValueError(f"family {family.name!r} has no solution drawing (FamilySpec.vr), so no oracle_vr")
    return draw_sketch(family.render(state), family.geometry, family.vr.sketch(state, answer))


@image_cache(maxsize=None)
def sketch_mask(cell_px: int) -> np.ndarray:
    """Where a sketch may draw inside a cell: both centre lines and a badge on each edge's midpoint.

    A ``cell_px`` x ``cell_px`` boolean array, True where strokes, arrow heads and badges
    can land (with a pixel to spare for anti-aliasing).
    """
    half = max(stroke_px(BoardGeometry(1, 1, cell_px)) / 2, HEAD_FRACTION * cell_px) + 1
    centre = cell_px // 2
    axis = np.arange(cell_px) - centre
    ys, xs = axis[:, None], axis[None, :]
    mask = (np.abs(ys) <= half) | (np.abs(xs) <= half)
    radius = BADGE_FRACTION * cell_px + 2
    for my, mx in ((-centre, 0), (cell_px - centre, 0), (0, -centre), (0, cell_px - centre)):
        mask |= (ys - my) ** 2 + (xs - mx) ** 2 <= radius**2
    return mask
