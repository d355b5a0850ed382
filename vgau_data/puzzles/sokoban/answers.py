"""The answer format: maze's direction list ``<ANSWER_JSON>["up","left"]</ANSWER_JSON>``."""

from __future__ import annotations

from typing import Final

from vgau_data.puzzles.grids import DIRECTION_TAG, direction_payload, format_direction_answer, parse_direction_answer

ANSWER_TAG: Final = DIRECTION_TAG


parse_answer = parse_direction_answer
answer_payload = direction_payload
format_answer = format_direction_answer
