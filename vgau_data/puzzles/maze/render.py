"""How a maze looks: dark walls, off-white open cells, the blue agent and the green goal;
its oracle aid (``AID``: the authors' maze overlay), and the same board in any render
style (``STYLES``)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

from vgau_data.puzzles.capabilities import Styles
from vgau_data.puzzles.grids import GEOMETRY, OPEN, WALL, cells_image, open_cells
from vgau_data.puzzles.maze.state import MazeState
from vgau_data.render_styles import BENCHMARK_STYLE, RenderStyle
from vgau_data.rendering import BOARD_CACHE_SIZE, AidStyle, image_cache, new_board

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


def render(state: MazeState, style: RenderStyle = BENCHMARK_STYLE) -> Image.Image:
    """The board: dark walls, off-white open cells, blue agent square, green hollow goal."""
    from PIL import ImageDraw

    image = _background(state.grid, style)
    draw = ImageDraw.Draw(image)
    geometry = style.geometry(GEOMETRY)
    goal = geometry.cell_box(state.goal, style.px(GOAL_INSET))
    draw.rectangle(goal, outline=style.rgb(GOAL_RGB), width=style.line(GOAL_WIDTH))
    draw.rectangle(geometry.cell_box(state.start, style.px(AGENT_INSET)), fill=style.rgb(AGENT_RGB))
    return image


@image_cache(maxsize=BOARD_CACHE_SIZE)
def _background(grid: tuple[str, ...], style: RenderStyle) -> Image.Image:
    geometry = style.geometry(GEOMETRY)
    image = new_board(geometry, style.rgb(FRAME_RGB))
    colours = {WALL: style.rgb(WALL_RGB), OPEN: style.rgb(OPEN_RGB)}
    image.paste(cells_image(grid, colours, geometry.cell_px), geometry.cell_box((0, 0))[:2])
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


STYLES: Final = Styles.drawn(GEOMETRY, render, AID)
"""The same board in any render style (docs/render-styles.md)."""
