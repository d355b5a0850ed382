"""Parking as the authors' code reads it (``lmms_eval/tasks/parking``: ``utils.py``, ``step_adapter.py``).

Final answer: the last ``<ANSWER_JSON>[...]</ANSWER_JSON>`` or ``<ANSWER_JSON>{...}</ANSWER_JSON>``
(else the whole text when it is one list or object); strict JSON. An object stands for its
``"solution"`` list. Items that are not objects are skipped; in the others ``car`` is
stripped and upper-cased, ``direction`` lower-cased with ``u d l r`` for the four words,
and ``"steps"`` (or ``"distance"``) repeats the move that many times. Solved when the red
car ends at the exit, optimal when the moves number the optimum.

Step reply: the last ``<STEP_JSON>...</STEP_JSON>`` content as strict JSON
``{"car": ..., "direction": ...}``, else the first ``{...}`` without nested braces anywhere
in the reply that reads as one. After each step the red car must still reach the exit
within the optimum. (Their check gives up past 200,000 searched positions and then ends
the episode too; ours searches to the end, so on boards that large we play on.)
The capability ``FamilySpec.authors_reader`` (reader ``authors``, ``vgau_data.readers``).
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any

from vgau_data.puzzles.authors_reading import (
    DIRECTIONS,
    MAX_REPEATS,
    Answer,
    AuthorsFamily,
    last_between,
    last_enclosed,
    loads,
    result_text,
    to_int,
    whole_value,
)

ALIASES = {"u": "up", "d": "down", "l": "left", "r": "right"}
_FLAT_OBJECT = re.compile(r"\{[^{}]*\}")


def _move(item: dict[str, Any]) -> tuple[str, str]:
    car = str(item.get("car", "")).strip().upper()
    direction = str(item.get("direction", "")).strip().lower()
    return car, ALIASES.get(direction, direction)


def _step(payload: str) -> tuple[str, str] | None:
    ok, value = loads(payload)
    if not ok or not isinstance(value, dict):
        return None
    car, direction = _move(value)
    return (car, direction) if car and direction in DIRECTIONS else None


def read_step(text: str) -> tuple[str, str] | None:
    """One move from a step reply (see the module docstring)."""
    if not text:
        return None
    tagged = last_between(text, "STEP_JSON")
    if tagged is not None and (step := _step(tagged.strip())) is not None:
        return step
    for found in _FLAT_OBJECT.finditer(text):
        if (step := _step(found.group(0))) is not None:
            return step
    return None


class ParkingReader(AuthorsFamily):
    family = "parking"
    empty_answer = "<ANSWER_JSON>[]</ANSWER_JSON>"

    def read_answer(self, text: str) -> Answer | str:
        text = result_text(text)
        payload = last_enclosed(text, "ANSWER_JSON", "[{") or whole_value(text, "[{")
        if payload is None:
            return "no_answer"
        ok, value = loads(payload)
        if ok and isinstance(value, dict):
            value = value.get("solution", [])
        if not ok or not isinstance(value, list):
            return "bad_format"
        steps: list[tuple[str, str]] = []
        length = 0
        for item in value:
            if not isinstance(item, dict):
                continue
            car, direction = _move(item)
            repeats = to_int(item.get("steps", item.get("distance", 1)))
            repeats = max(1, 1 if repeats is None else repeats)
            if direction not in DIRECTIONS:
                return Answer(tuple(steps), length + repeats, (len(steps), "unknown_action"))
            steps.extend([(car, direction)] * min(repeats, MAX_REPEATS))
            length += repeats
        return Answer(tuple(steps), length)

    def read_step(self, text: str) -> Any:
        return read_step(text)

    def answer_text(self, steps: Sequence[Any]) -> str:
        return f"<ANSWER_JSON>{json.dumps([{'car': car, 'direction': d} for car, d in steps])}</ANSWER_JSON>"


AUTHORS_READER = ParkingReader()
