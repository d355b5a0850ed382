"""Onet as the authors' code reads it (``lmms_eval/tasks/onet``: ``utils.py``, ``step_adapter.py``).

Final answer: the last ``<answer_json>[...]</answer_json>``, else an unclosed
``<answer_json>[...`` running to the end of the text (their task stops generating at
``</answer_json>``, so the closing tag is often missing), else the whole text when it is
one list; strict JSON. Every item must be two cells of two numbers, ``int()`` of each
(``"2"`` and ``2.0`` pass); one malformed item leaves no answer at all. Correct when every
removal is legal and the board ends empty (their only measure).

Step reply: the last ``<STEP_JSON>...</STEP_JSON>`` content (or the whole reply) as one
pair, else the first pair of the last ``<answer_json>`` list, else the first
``[[r1,c1],[r2,c2]]`` written anywhere in the reply. Their onet adapter keeps no
optimum: a legal removal never ends the episode.
The capability ``FamilySpec.authors_reader`` (reader ``authors``, ``vgau_data.readers``).
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any

from vgau_data.puzzles.authors_reading import (
    Answer,
    AuthorsFamily,
    last_enclosed,
    loads,
    open_at_end,
    result_text,
    step_or_listed,
    to_int,
    whole_value,
)
from vgau_data.puzzles.base import Cell

Pair = tuple[Cell, Cell]
_PAIR_WRITTEN = re.compile(
    r"\[\s*\[\s*(-?\d+)\s*,\s*(-?\d+)\s*\]\s*,\s*\[\s*(-?\d+)\s*,\s*(-?\d+)\s*\]\s*\]"
)


def _cell(value: Any) -> Cell | None:
    if not isinstance(value, (list, tuple)) or len(value) != 2:
        return None
    r, c = to_int(value[0]), to_int(value[1])
    return None if r is None or c is None else (r, c)


def _pair(value: Any) -> Pair | None:
    """Two cells, from a JSON value or from JSON text."""
    if isinstance(value, str):
        ok, value = loads(value)
        if not ok:
            return None
    if not isinstance(value, (list, tuple)) or len(value) != 2:
        return None
    first, second = _cell(value[0]), _cell(value[1])
    return None if first is None or second is None else (first, second)


def read_step(text: str) -> Pair | None:
    """One removal from a step reply (see the module docstring)."""
    if not text:
        return None
    pair, listed = step_or_listed(text, _pair)
    if pair is not None:
        return pair
    if listed is not None:
        ok, value = listed
        if not ok:
            return None
        if isinstance(value, list) and value and (pair := _pair(value[0])) is not None:
            return pair
    written = _PAIR_WRITTEN.search(text)
    if written is None:
        return None
    r1, c1, r2, c2 = (to_int(group) for group in written.groups())
    return None if None in (r1, c1, r2, c2) else ((r1, c1), (r2, c2))  # type: ignore[return-value]


class OnetReader(AuthorsFamily):
    family = "onet"
    empty_answer = "<answer_json>[]</answer_json>"
    bounded = False

    def read_answer(self, text: str) -> Answer | str:
        text = result_text(text)
        payload = last_enclosed(text, "answer_json") or open_at_end(text, "answer_json") or whole_value(text)
        if payload is None:
            return "no_answer"
        ok, value = loads(payload)
        if not ok or not isinstance(value, list):
            return "bad_format"
        steps = []
        for item in value:
            if isinstance(item, str) or (pair := _pair(item)) is None:
                return "bad_format"
            steps.append(pair)
        return Answer(tuple(steps), len(steps))

    def read_step(self, text: str) -> Any:
        return read_step(text)

    def answer_text(self, steps: Sequence[Any]) -> str:
        payload = [[[a[0], a[1]], [b[0], b[1]]] for a, b in steps]
        return f"<answer_json>{json.dumps(payload)}</answer_json>"


AUTHORS_READER = OnetReader()
