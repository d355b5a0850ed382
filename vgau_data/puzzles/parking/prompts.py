"""The prompt pieces: Tables 15 (Text-CoT), 20 (Self-GtA), 28 (Self-VCoT) and 33 (Self-VR), in our own words;
the board size and the exit row come from the state, as the paper's templates fill them.
"""

from __future__ import annotations

from typing import Final

from vgau_data.puzzles.parking.state import ParkingState
from vgau_data.puzzles.prompts import FamilyPrompts


def _legend(state: ParkingState) -> str:
    return (
        f"The image shows a parking-exit puzzle on a board of {state.size}x{state.size} cells. Each vehicle is "
        'marked with its letter; the red car is "R".'
    )


def _rules(state: ParkingState) -> str:
    return (
        "Rules: 1) every vehicle keeps its orientation, horizontal or vertical; 2) one move slides exactly "
        "one vehicle by one cell along its orientation; 3) vehicles never overlap and never leave the board; "
        f'4) the puzzle is solved when the rightmost cell of the red car "R" reaches the right edge of the '
        f"board on row index {state.exit_row} (rows are numbered from 0 at the top)."
    )


PROMPTS: Final = FamilyPrompts(
    legend=_legend,
    rules=_rules,
    answer_format='Give the final moves as one JSON list of objects inside ANSWER_JSON tags, for example '
    '<ANSWER_JSON>[{"car":"A","direction":"up"},{"car":"R","direction":"right"}]</ANSWER_JSON>.',
    step="slide of one vehicle by one cell",
    step_format='<STEP_JSON>{"car":"A","direction":"right"}</STEP_JSON> with the vehicle\'s letter and '
    "up, down, left or right.",
    image_change="only the moved vehicle has changed position",
    labelled_cells="every cell",
    solution_drawing=(
        "Add visual hints of a workable strategy, such as numbered markers or direction cues next to the "
        "vehicles, placed on board cells only. The hints stand for legal one-cell slides: no vehicle turns, "
        "and none overlaps another. Do not move any vehicle in the image."
    ),
    solution_shows="hints of a strategy that gets the red car to the exit",
)
