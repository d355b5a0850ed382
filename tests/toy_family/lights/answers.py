"""The answer ``<answer_json>[[r,c],...]</answer_json>`` (the cells pressed) and one step ``<STEP_JSON>[r,c]</STEP_JSON>``."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from vgau_data.answers import last_step_value, last_tagged_list, step_text
from vgau_data.puzzles.base import AnswerError, Cell, canonical_json

ANSWER_TAG = "answer_json"


def _cell(value: Any) -> Cell:
    if not (isinstance(value, list) and len(value) == 2 and all(type(v) is int for v in value)):
        raise AnswerError("bad_format", f"a press is [r, c] with integers, got {value!r:.40}")
    return (value[0], value[1])


def parse_answer(text: str) -> tuple[Cell, ...]:
    """The cells of the last ``<answer_json>`` list in ``text``.

    Example:
        >>> parse_answer("press these: <ANSWER_JSON>[[0, 1], [2, 2],]</answer_json>")
        ((0, 1), (2, 2))
    """
    return tuple(_cell(item) for item in last_tagged_list(text, ANSWER_TAG))


def answer_payload(answer: Sequence[Cell]) -> str:
    """The JSON list of pressed cells (the ``solution`` column)."""
    return canonical_json([[int(r), int(c)] for r, c in answer])


def format_answer(answer: Sequence[Cell]) -> str:
    """The full answer text, tags included."""
    return f"<{ANSWER_TAG}>{answer_payload(answer)}</{ANSWER_TAG}>"


def parse_step(text: str) -> Cell:
    """The cell in the last ``<STEP_JSON>[r,c]</STEP_JSON>`` of a reply."""
    return _cell(last_step_value(text))


def format_step(step: Cell) -> str:
    """One press in the per-turn format."""
    return step_text([int(step[0]), int(step[1])])
