"""What a model is told about Lights Out."""

from __future__ import annotations

from vgau_data.puzzles.prompts import FamilyPrompts

PROMPTS = FamilyPrompts(
    legend="The image shows a 3x3 panel of lamps: a yellow lamp is lit, a grey lamp is dark.",
    rules=(
        "Pressing a lamp toggles it and the lamps directly above, below, left and right of it. "
        "Cells are (r,c), 0-based from the top-left. The puzzle is solved when every lamp is dark."
    ),
    reasoning="list the lit lamps and plan which lamps to press.",
    answer_format="Give the cells to press as one JSON list inside answer_json tags, for example "
    "<answer_json>[[0,1],[2,2]]</answer_json>.",
    step="press",
    step_format="Write the cell you press as <STEP_JSON>[r,c]</STEP_JSON>, for example <STEP_JSON>[1,2]</STEP_JSON>.",
    image_change="only the pressed lamp and its neighbours have changed",
    labelled_cells="every cell",
    solution_drawing="Draw a bright red dot at the centre of each lamp to press.",
    solution_shows="red dots on the lamps to press",
)
