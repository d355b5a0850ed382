"""The prompt pieces: Tables 13 (Text-CoT), 19 (Self-GtA), 25 (Self-VCoT) and 31 (Self-VR), in our own words."""

from __future__ import annotations

from typing import Final

from vgau_data.puzzles.grids import MOVE_SENTENCE_FORMAT
from vgau_data.puzzles.prompts import FamilyPrompts

PROMPTS: Final = FamilyPrompts(
    legend=(
        "The image shows a Sokoban puzzle with a single box. Red-brown brick cells are walls and are "
        "blocked; sand-coloured cells are floor and can be walked on. The small person is the player, at "
        "the start. The wooden crate with an X brace is the box. The green X on the floor is the target."
    ),
    rules=(
        "Rules: 1) the player moves up, down, left or right, one cell per move; 2) moving into the box "
        "pushes it one cell in the same direction; 3) a push is allowed only when the cell the box would "
        "move to is floor; 4) there are no diagonal moves.\n"
        "Goal: push the box onto the target."
    ),
    reasoning="check that each move is legal and follow where the player and the box end up after it.",
    answer_format='Give the final moves as one JSON list of lowercase words inside ANSWER_JSON tags, for '
    'example <ANSWER_JSON>["left","left","up"]</ANSWER_JSON>.',
    step="move of the player",
    step_format=f"{MOVE_SENTENCE_FORMAT}.",
    image_change="only the player and, when it was pushed, the box have moved",
    labelled_cells="every cell that is not a wall",
    solution_drawing=(
        "Draw one continuous bright red line, about a tenth of a cell wide, along the player's walk: from "
        "the centre of the player's cell to the centre of the cell from which the player pushes the box "
        "onto the target. It joins centres of neighbouring floor cells with horizontal and vertical segments "
        "only and never crosses a wall. Do not draw the box's path."
    ),
    solution_shows="a red line along the walk of the player that pushes the box onto the target",
)
