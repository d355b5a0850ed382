"""The prompt pieces: Tables 14 (Text-CoT), 21 (Self-GtA), 26 (Self-VCoT) and 32 (Self-VR), in our own words."""

from __future__ import annotations

from typing import Final

from vgau_data.puzzles.prompts import FamilyPrompts

PROMPTS: Final = FamilyPrompts(
    legend=(
        "The image shows a map with five labelled points: A, B, C, D and E. Black cells are walls, which "
        "cannot be entered; light-grey cells are walkable. The orange triangle marks the start and the blue "
        "triangle the destination. Each letter marks a walkable cell."
    ),
    rules=(
        "Moves: up, down, left or right, one cell per step, never diagonally, never jumping, never into a "
        "wall. Follow the valid simple path from the start to the destination: no backtracking and no cell "
        "visited twice.\n"
        "Task: determine which labelled points lie on that path, going from the orange triangle to the blue "
        "triangle."
    ),
    reasoning="identify the start and the destination, describe the moves of the route, and check that it "
    "never enters a black cell.",
    answer_format="Give only the letters the path passes, in the order it passes them, inside answer tags, "
    "for example <answer>A,C</answer>.",
    step="move of the orange triangle, which marks your current position",
    step_format='<STEP_JSON>{"move":"up","hit_labels":["A"]}</STEP_JSON>, where move is up, down, left or '
    "right and hit_labels lists, in upper case, only the labels newly passed on this move ([] when none).",
    image_change="only the orange triangle, your current position, has moved",
    labelled_cells="every cell, walls included",
    solution_drawing=(
        "Draw one continuous bright red line, about a tenth of a cell wide, from the centre of the start "
        "cell to the centre of the destination cell. It joins centres of neighbouring walkable cells with "
        "horizontal and vertical segments only, never crosses or touches a black cell, and visits no cell "
        "twice."
    ),
    solution_shows="a red line along the simple path from the start to the destination",
)
