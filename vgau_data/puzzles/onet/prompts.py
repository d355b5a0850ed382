"""The prompt pieces: Tables 16 (Text-CoT), 22 (Self-GtA), 27 (Self-VCoT) and 34 (Self-VR), in our own words.

Links stay inside the board (the authors' rule, ``rules``), but no table says so and neither
do these prompts (docs/prompts.md).
"""

from __future__ import annotations

from typing import Final

from vgau_data.puzzles.onet.state import SIZE
from vgau_data.puzzles.prompts import FamilyPrompts

PROMPTS: Final = FamilyPrompts(
    legend=(
        f"The image shows an Onet puzzle on a {SIZE}x{SIZE} board. Each cell holds a fruit tile (a white "
        "rounded square with a fruit on it) or is empty."
    ),
    rules=(
        "Coordinates: 0-based; (r,c) is row r, column c; (0,0) is the top-left cell; r increases downward "
        "and c increases to the right.\n"
        "Goal: clear the whole board. Each step removes one pair of identical fruits that can be linked: "
        "the link is made of horizontal and vertical segments with at most 2 turns and passes through no "
        "other fruit."
    ),
    answer_format="Give the final removals as one JSON list of cell pairs inside answer_json tags, for "
    "example <answer_json>[[[r1,c1],[r2,c2]],[[r3,c3],[r4,c4]]]</answer_json>.",
    step="removal of one pair",
    step_format="<STEP_JSON>[[r1,c1],[r2,c2]]</STEP_JSON> with the two cells of the pair.",
    image_change="only the two removed fruits are gone, their cells drawn empty",
    labelled_cells="every cell",
    solution_drawing=(
        "For each pair of identical fruits in a removal order that clears the board, draw a solid line, "
        "about a tenth of a cell wide, from the centre of one fruit's cell to the centre of the other's, "
        "along a valid link (horizontal and vertical segments, at most 2 turns, through no other fruit). "
        "Give every pair its own bright colour."
    ),
    solution_shows="coloured lines linking the fruit pairs of a clearing order",
)
