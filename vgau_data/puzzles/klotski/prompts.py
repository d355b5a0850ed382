"""The prompt pieces: Tables 17 (Text-CoT), 23 (Self-GtA), 29 (Self-VCoT) and 35 (Self-VR), in our own words."""

from __future__ import annotations

from typing import Final

from vgau_data.puzzles.klotski.state import GOAL, SIZE
from vgau_data.puzzles.prompts import FamilyPrompts

PROMPTS: Final = FamilyPrompts(
    legend=(
        f"The image shows a Klotski sliding-block puzzle on a {SIZE}x{SIZE} board. Exactly two cells are "
        "empty at any time, and every other cell belongs to exactly one block. The blocks: one 2x2 target "
        'block, marked "T"; several vertical blocks, 1 cell wide and 2 tall; several horizontal blocks, 2 '
        "cells wide and 1 tall; several 1x1 blocks."
    ),
    rules=(
        "Coordinates: 0-based; (r,c) is row r, column c; (0,0) is the top-left cell; r increases downward "
        "and c increases to the right.\n"
        "A move names a block by the coordinate of its top-left cell at the moment of the move.\n"
        "Legal moves: 1) one move slides ONE block by exactly ONE cell UP, DOWN, LEFT or RIGHT; 2) blocks "
        "never rotate, move diagonally or jump; 3) a move is legal only when every cell the block would "
        "newly cover (the cells it covers after the move but not before) is empty before the move: one or "
        "two cells for a 1x2 or 2x1 block, depending on the direction, and two for the 2x2 block; 4) cells "
        "of other blocks can never be passed through.\n"
        f"Goal: bring the top-left cell of the 2x2 target block to ({GOAL[0]},{GOAL[1]})."
    ),
    answer_format='Give the final moves as one JSON object, for example '
    '{"solution":[{"from":[r1,c1],"direction":"UP"},{"from":[r2,c2],"direction":"LEFT"}]}.',
    step="slide of one block by one cell",
    step_format='<STEP_JSON>{"from":[r,c],"direction":"UP"}</STEP_JSON> with the block\'s current '
    "top-left cell and UP, DOWN, LEFT or RIGHT.",
    image_change="only the moved block has changed position",
    labelled_cells="every cell",
    aid_note=(
        f"The board may show no cell lines: infer its {SIZE}x{SIZE} tiling from the blocks, and keep every "
        "block's extent (a 1x2 block stays 1x2; no block shrinks, splits or merges)."
    ),
    solution_drawing=(
        "Add short visual hints of a workable sequence of slides, such as ordered markers and direction cues "
        "next to the blocks that move. The hints stand for legal one-cell slides, with no overlap and no "
        "rotation. Do not move any block in the image, and add no long text."
    ),
    solution_shows="hints of a sequence of slides that brings the target block to its goal",
)
