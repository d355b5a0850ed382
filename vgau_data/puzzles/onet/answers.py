"""The answer format ``<answer_json>[[[r1,c1],[r2,c2]],...]</answer_json>`` and one step's ``<STEP_JSON>``."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any, Final

from vgau_data.answers import (
    MAX_ANSWER_STEPS,
    MAX_PAYLOAD_CHARS,
    answer_text,
    last_step_value,
    last_tagged,
    load_lenient,
    step_text,
)
from vgau_data.puzzles.base import AnswerError, Cell, canonical_json
from vgau_data.puzzles.onet.state import Step

ANSWER_TAG: Final = "answer_json"


_PARENS_TO_BRACKETS: Final = str.maketrans("()", "[]")
"""Cells written as Python tuples, ``[(0,0),(0,2)]``, read as lists."""


def _cell(value: Any) -> Cell:
    if type(value) is list and len(value) == 2 and type(value[0]) is int and type(value[1]) is int:  # fast path
        return (value[0], value[1])
    if (
        not isinstance(value, list)
        or len(value) != 2
        or not all(isinstance(v, int) and not isinstance(v, bool) for v in value)
    ):
        raise AnswerError("bad_format", f"a cell must be [r, c] with integers, got {value!r:.40}")
    return (value[0], value[1])


def parse_answer(text: str) -> tuple[Step, ...]:
    """The last ``<answer_json>`` list of cell pairs in ``text``.

    Tolerates prose, fences, tag case, single quotes, trailing commas and cells written
    as tuples ``(r, c)``.

    Raises:
        AnswerError: ``no_answer`` without a tagged answer, ``bad_format`` when it is not
            a list of ``[[r1, c1], [r2, c2]]`` pairs of integers.

    Example:
        >>> parse_answer("so: <ANSWER_JSON>[[[0,0],[0,2]], [[1,0],[3,0]],]</answer_json>")
        (((0, 0), (0, 2)), ((1, 0), (3, 0)))
    """
    text = answer_text(text)
    payload = last_tagged(text, ANSWER_TAG)
    if payload is None:
        raise AnswerError("no_answer", "no <answer_json>...</answer_json>")
    if len(payload) > MAX_PAYLOAD_CHARS:
        raise AnswerError("bad_format", f"payload of {len(payload)} characters")
    try:  # fast path: well-formed JSON (C scanner); anything else goes to the lenient reader
        value = json.loads(payload)
    except (ValueError, RecursionError):
        value = load_lenient(payload.translate(_PARENS_TO_BRACKETS))
    if not isinstance(value, list):
        raise AnswerError("bad_format", "the answer must be a list of cell pairs")
    if len(value) > MAX_ANSWER_STEPS:
        raise AnswerError("bad_format", f"{len(value)} steps (at most {MAX_ANSWER_STEPS})")
    return tuple(_step_of(item) for item in value)


def _step_of(item: Any) -> Step:
    if not isinstance(item, list) or len(item) != 2:
        raise AnswerError("bad_format", f"a step must be [[r1, c1], [r2, c2]], got {item!r:.60}")
    return (_cell(item[0]), _cell(item[1]))


def parse_step(text: str) -> Step:
    """The pair in the last ``<STEP_JSON>[[r1,c1],[r2,c2]]</STEP_JSON>`` of a reply.

    Example:
        >>> parse_step("the apples: <STEP_JSON>[[0, 1], [2, 1]]</STEP_JSON>")
        ((0, 1), (2, 1))
    """
    return _step_of(last_step_value(text))


def format_step(step: Step) -> str:
    """One removal in the per-turn format.

    Example:
        >>> format_step(((0, 1), (2, 1)))
        '<STEP_JSON>[[0,1],[2,1]]</STEP_JSON>'
    """
    (r1, c1), (r2, c2) = step
    return step_text([[int(r1), int(c1)], [int(r2), int(c2)]])


def answer_payload(answer: Sequence[Step]) -> str:
    """The answer's JSON list (the ``solution`` column).

    Example:
        >>> answer_payload([((0, 0), (0, 2))])
        '[[[0,0],[0,2]]]'
    """
    return canonical_json([[[int(a[0]), int(a[1])], [int(b[0]), int(b[1])]] for a, b in answer])


def format_answer(answer: Sequence[Step]) -> str:
    """The full answer text, tags included.

    Example:
        >>> format_answer([((0, 0), (0, 2))])
        '<answer_json>[[[0,0],[0,2]]]</answer_json>'
    """
    return f"<{ANSWER_TAG}>{answer_payload(answer)}</{ANSWER_TAG}>"
