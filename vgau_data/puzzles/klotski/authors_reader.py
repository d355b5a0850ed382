"""Klotski as the authors' code reads it (``lmms_eval/tasks/klotski``: ``utils.py``, ``step_adapter.py``).

Final answer: the FIRST JSON object in the text, trying every ``{`` from the left, that
decodes (strictly) and has a ``"solution"`` key, wherever it sits (prose, fences or tags
around it are fine). Each move needs ``"from"`` as two integers (JSON numbers without a
fraction; ``true`` counts as 1) and ``"direction"`` that upper-cases to UP, DOWN, LEFT or
RIGHT; the block is named by its current top-left cell. Solved when the target's top-left
ends at (4, 2), optimal at ``optimal_steps`` moves.

Step reply: the last ``<STEP_JSON>...</STEP_JSON>`` content (or the whole reply) as one
strict-JSON move, where ``"from"`` goes through ``int()`` (``"3"`` passes), else the
first move of the last ``<answer_json>`` payload. After each step the target must still
reach the goal within the optimum.
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
    loads,
    result_text,
    step_or_listed,
    to_int,
)
from vgau_data.puzzles.base import Cell

WORDS = frozenset({"UP", "DOWN", "LEFT", "RIGHT"})
SCAN_FACTOR = 8
"""Characters the object search may decode, over all its tries, per character of text
(plus ``SCAN_SLACK``): far above any honest answer, it keeps hostile text linear."""
SCAN_SLACK = 1_000_000
FIRST_WINDOW = 256
"""Characters decoded first from each ``{``; the window doubles while the object runs past it."""
_DECODER = json.JSONDecoder()
_OBJECT_START = re.compile(r'\{[ \t\n\r]*["}]')
"""Where a JSON object can start: ``{`` then a key's quote or ``}`` (any other ``{`` fails at once)."""


def first_solution_object(text: str) -> dict[str, Any] | None:
    """The first ``{``-started JSON object with a ``"solution"`` key (their ``extract_json_from_text``).

    Each try decodes a window of the text from its ``{`` (an error's message counts the
    lines before it, so decoding in place would cost the whole text per try), doubled
    while the object may run past the window's end.
    """
    budget = SCAN_FACTOR * len(text) + SCAN_SLACK
    last_key = max(text.rfind('"solution"'), text.rfind("\\"))  # the key, spelt out or with an escape
    for match in _OBJECT_START.finditer(text, 0, last_key + 1):
        start, size = match.start(), FIRST_WINDOW
        while True:
            window = text[start : start + size]
            budget -= len(window)
            try:
                value, _ = _DECODER.raw_decode(window)
            except json.JSONDecodeError as error:
                cut = start + size < len(text)
                if cut and (error.pos >= len(window) - 8 or error.msg.startswith("Unterminated string")):
                    size *= 2  # the object may go on past the window
                    if budget > 0:
                        continue
                value = None
            except (ValueError, RecursionError):
                return None  # their decoder raises past its own except: no answer
            break
        if isinstance(value, dict) and "solution" in value:
            return value
        if budget <= 0:
            return None
    return None


def _integer_cell(value: Any) -> Cell | None:
    """``[r, c]`` of two JSON integers (the final answer's rule)."""
    if not isinstance(value, (list, tuple)) or len(value) != 2:
        return None
    r, c = value
    return (int(r), int(c)) if isinstance(r, int) and isinstance(c, int) else None


def _step(payload: Any) -> tuple[Cell, str] | None:
    """One move with ``int()`` coordinates (the step reply's rule), from a JSON value or text."""
    if isinstance(payload, str):
        ok, payload = loads(payload)
        if not ok:
            return None
    if not isinstance(payload, dict):
        return None
    cell = payload.get("from")
    if not isinstance(cell, (list, tuple)) or len(cell) != 2:
        return None
    r, c = to_int(cell[0]), to_int(cell[1])
    word = str(payload.get("direction", "")).strip().upper()
    if r is None or c is None or word not in WORDS:
        return None
    return (r, c), word.lower()


def read_step(text: str) -> tuple[Cell, str] | None:
    """One move from a step reply (see the module docstring)."""
    if not text:
        return None
    step, listed = step_or_listed(text, _step)
    if step is not None or listed is None or not listed[0]:
        return step
    value = listed[1]
    if isinstance(value, dict):
        moves = value.get("solution")
        if isinstance(moves, list) and moves:
            return _step(moves[0])
    if isinstance(value, list) and value:
        return _step(value[0])
    return None


class KlotskiReader(AuthorsFamily):
    family = "klotski"
    empty_answer = '{"solution":[]}'

    def read_answer(self, text: str) -> Answer | str:
        found = first_solution_object(result_text(text))
        if found is None:
            return "no_answer"
        moves = found["solution"]
        if not isinstance(moves, list):
            return "bad_format"
        steps = []
        for index, move in enumerate(moves):
            cell = _integer_cell(move.get("from")) if isinstance(move, dict) else None
            direction = move.get("direction") if isinstance(move, dict) else None
            if cell is None or direction is None:
                return Answer(tuple(steps), len(moves), (index, "bad_format"))
            word = str(direction).strip().upper()
            if word not in WORDS:
                return Answer(tuple(steps), len(moves), (index, "unknown_action"))
            steps.append((cell, word.lower()))
        return Answer(tuple(steps), len(moves))

    def read_step(self, text: str) -> Any:
        return read_step(text)

    def answer_text(self, steps: Sequence[Any]) -> str:
        moves = [{"from": [r, c], "direction": direction.upper()} for (r, c), direction in steps]
        return json.dumps({"solution": moves}, ensure_ascii=False)


AUTHORS_READER = KlotskiReader()
