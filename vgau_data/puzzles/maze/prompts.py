"""The prompt pieces: Tables 12 (Text-CoT), 18 (Self-GtA), 24 (Self-VCoT) and 30 (Self-VR), in our own words."""

from __future__ import annotations

from typing import Final

from vgau_data.puzzles.grids import MOVE_SENTENCE_FORMAT
from vgau_data.puzzles.prompts import FamilyPrompts

PROMPTS: Final = FamilyPrompts(
    legend=(
        "The image shows a maze. Dark cells are walls, which cannot be entered; off-white cells are open "
        "and can be walked on. The blue filled square is the agent, standing on its start cell. The green "
        "hollow square marks the goal cell, which is open too."
    ),
    rules=(
        "Moves: up, down, left or right, one cell per move, never diagonally, never jumping, never into a "
        "wall. The maze is solved when the agent moves onto the goal cell."
    ),
    reasoning="identify the agent's start and the goal, describe the moves you plan, and check that none "
    "of them enters a wall.",
    answer_format='Give the final moves as one JSON list of lowercase words inside ANSWER_JSON tags, for '
    'example <ANSWER_JSON>["up","left","down"]</ANSWER_JSON>.',
    step="move of the agent",
    step_format=f"{MOVE_SENTENCE_FORMAT}.",
    image_change="only the blue agent square has moved",
    labelled_cells="every cell, walls included",
    aid_note="Each red line runs along a cell edge, so the green goal square sits inside one grid cell.",
    solution_drawing=(
        "Draw one continuous bright red line, about a tenth of a cell wide, from the centre of the agent's "
        "start cell to the centre of the goal cell. It joins centres of neighbouring open cells with "
        "horizontal and vertical segments only and never crosses or touches a wall."
    ),
    solution_shows="a red line along a route from the agent to the goal",
)
