"""What a model is told about the 8-puzzle."""

from __future__ import annotations

from vgau_data.puzzles.prompts import FamilyPrompts

PROMPTS = FamilyPrompts(
    legend="The image shows a 3x3 tray holding eight wooden tiles lettered A to H and one empty green cell.",
    rules=(
        "A move slides a tile that is directly beside the empty cell into it; name the move by the direction the "
        "tile slides (up: the tile below the empty cell moves up). Cells are (r,c), 0-based from the top-left. "
        "The puzzle is solved when the rows read A B C, D E F, G H and the empty cell is at the bottom right."
    ),
    reasoning="find the empty cell and plan which tiles to slide into it.",
    answer_format="Give the moves as one JSON list inside ANSWER_JSON tags, for example "
    '<ANSWER_JSON>["up","left"]</ANSWER_JSON>.',
    step="slide",
    step_format='Write the direction the tile slides as <STEP_JSON>["<direction>"]</STEP_JSON>, for example '
    '<STEP_JSON>["left"]</STEP_JSON>.',
    image_change="only the slid tile and the empty cell have changed places",
    labelled_cells="every cell, at its top-left corner",
    solution_drawing="Draw a numbered red arrow on each tile you slide, pointing the way it slides, in order.",
    solution_shows="numbered red arrows on the tiles to slide",
)
