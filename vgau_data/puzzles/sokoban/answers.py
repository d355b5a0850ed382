"""The answer format: maze's direction list ``<ANSWER_JSON>["up","left"]</ANSWER_JSON>``.

One interactive step is maze's sentence ``Next, move one step up.`` (the authors' form).
"""

from __future__ import annotations

from typing import Final

from vgau_data.puzzles.grids import (
    DIRECTION_TAG,
    direction_payload,
    format_direction_answer,
    format_move_sentence,
    parse_direction_answer,
    parse_move_sentence,
)

ANSWER_TAG: Final = DIRECTION_TAG
parse_answer = parse_direction_answer
answer_payload = direction_payload
format_answer = format_direction_answer
parse_step = parse_move_sentence
format_step = format_move_sentence
