"""How a maze looks: dark walls, off-white open cells, the blue agent and the green goal;
and its oracle aid (``AID``: the authors' maze overlay)."""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING, Final

from vgau_data.puzzles.grids import GEOMETRY, OPEN, WALL, cells_image, open_cells
from vgau_data.puzzles.maze.state import MazeState
from vgau_data.rendering import AidStyle, new_board

if TYPE_CHECKING:
    from PIL import Image

WALL_RGB: Final = (36, 40, 48)
OPEN_RGB: Final = (244, 240, 230)
FRAME_RGB: Final = (170, 170, 170)
AGENT_RGB: Final = (37, 99, 235)
GOAL_RGB: Final = (22, 163, 74)
AGENT_INSET: Final = 13
GOAL_INSET: Final = 5
GOAL_WIDTH: Final = 5


def render(state: MazeState) -> Image.Image:
    """The board: dark walls, off-white open cells, blue agent square, green hollow goal."""
    from PIL import ImageDraw

    image = _background(state.grid).copy()
    draw = ImageDraw.Draw(image)
    draw.rectangle(GEOMETRY.cell_box(state.goal, GOAL_INSET), outline=GOAL_RGB, width=GOAL_WIDTH)
    draw.rectangle(GEOMETRY.cell_box(state.start, AGENT_INSET), fill=AGENT_RGB)
    return image


@functools.lru_cache(maxsize=256)
def _background(grid: tuple[str, ...]) -> Image.Image:
    image = new_board(GEOMETRY, FRAME_RGB)
    image.paste(cells_image(grid, {WALL: WALL_RGB, OPEN: OPEN_RGB}), GEOMETRY.cell_box((0, 0))[:2])
    return image


AID: Final = AidStyle(
    line_rgb=(255, 0, 0),
    line_px=2,
    label_fraction=0.32,
    labelled="every open cell",
    labelled_cells=open_cells,
)
"""The authors' maze aid: solid pure-red lines 2 px wide, and each open cell's label at its
centre at 32% of the cell side; walls carry none."""
