"""The answer ``<ANSWER_JSON>["up","left"]</ANSWER_JSON>`` (the slides in order) and one step ``<STEP_JSON>["up"]</STEP_JSON>``."""

from __future__ import annotations

from typing import Final

from vgau_data.answers import last_step_value, step_text
from vgau_data.puzzles.base import AnswerError, Direction, parse_direction
from vgau_data.puzzles.grids import DIRECTION_TAG, direction_payload, format_direction_answer, parse_direction_answer

ANSWER_TAG: Final = DIRECTION_TAG
parse_answer = parse_direction_answer
answer_payload = direction_payload
format_answer = format_direction_answer


def parse_step(text: str) -> Direction:
    """The direction in the last ``<STEP_JSON>["up"]</STEP_JSON>`` of a reply.

    Example:
        >>> parse_step('I slide D up. <STEP_JSON>["Up"]</STEP_JSON>')
        'up'
    """
    value = last_step_value(text)
    if not (isinstance(value, list) and len(value) == 1):
        raise AnswerError("bad_format", f'a step is ["<direction>"], got {value!r:.40}')
    return parse_direction(value[0])


def format_step(step: Direction) -> str:
    """One slide in the per-turn format."""
    return step_text([step])
