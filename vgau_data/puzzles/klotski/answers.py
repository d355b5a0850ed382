"""The answer format ``{"solution":[{"from":[r,c],"direction":"UP"},...]}`` (no tags) and one step's ``<STEP_JSON>``."""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any, Final

from vgau_data.answers import MAX_ANSWER_STEPS, MAX_PAYLOAD_CHARS, answer_text, last_step_value, read_value, step_text
from vgau_data.puzzles.base import DIRECTIONS, AnswerError, parse_direction
from vgau_data.puzzles.klotski.state import Step

ANSWER_TAG: Final = None
"""No tag: the ``{"solution": [...]}`` payload is the whole answer."""


_SOLUTION_KEY = re.compile(r"""solution["']?\s*[:=]\s*\[""", re.IGNORECASE)
_SOLUTION_TAIL = re.compile(r"""["']?\s*[:=]\s*\[""")
_PAIR = re.compile(
    r"""(?<![A-Za-z])from["']?\s*[:=]\s*\[\s*(-?\d{1,9})\s*,\s*(-?\d{1,9})\s*\]\s*(?:,\s*)?"""
    r"""["']?direction["']?\s*[:=]\s*["']?([A-Za-z]{1,16})""",
    re.IGNORECASE,
)
_PAIR_SEPARATOR = re.compile(r"""[\s,{}\[\]"']*""")
_DECODER = json.JSONDecoder()
_DIRECTION_WORDS: Final = {w: d for d in DIRECTIONS for w in (d, d.upper(), d.capitalize(), d[0], d[0].upper())}
"""Fast path of ``parse_direction`` for the common spellings."""


def parse_answer(text: str) -> tuple[Step, ...]:
    """Read the last ``"solution": [...]`` list, or failing that the last brace-less run of
    ``"from": [r, c], "direction": "UP"`` pairs, from raw model text.

    Raises:
        AnswerError: ``no_answer`` (nothing found), ``bad_format`` (malformed or over
            ``MAX_ANSWER_STEPS`` steps) or ``unknown_action`` (a direction that is not one).

    Example:
        >>> parse_answer('Done: {"solution": [{"from": [3, 2], "direction": "D"}]}')
        (((3, 2), 'down'),)
    """
    text = answer_text(text)
    key = _last_solution_key(text)
    if key is None:
        run, length = _last_pair_run(text, 0)
        if not length:
            raise AnswerError("no_answer", "no solution list and no from/direction pairs")
        return _steps_of_run(run, length)
    start = key - 1
    try:
        value, end = _read_list(text, start)
    except AnswerError:
        run, length = _last_pair_run(text, start)
        if length:  # a broken list whose pairs still read cleanly
            return _steps_of_run(run, length)
        raise
    run, length = _last_pair_run(text, end)
    if length:  # a brace-less answer after the last solution list
        return _steps_of_run(run, length)
    return _steps_of_list(value)


def _last_solution_key(text: str) -> int | None:
    """Index just past the ``[`` that opens the last ``solution: [`` list, or None."""
    end = len(text)
    lowered = text.lower()
    if len(lowered) == len(text):  # else some character lower-cased to two: no index reuse
        for _ in range(64):  # a few backward probes; hostile texts fall through to the regex
            found = lowered.rfind("solution", 0, end)
            if found < 0:
                return None
            if tail := _SOLUTION_TAIL.match(text, found + 8):
                return tail.end()
            end = found
    last = None
    for last in _SOLUTION_KEY.finditer(text, 0, end):  # noqa: B007 - keeps the last match
        pass
    return None if last is None else last.end()


def _read_list(text: str, start: int) -> tuple[Any, int]:
    """The JSON value at ``text[start]`` and the index after it: strict JSON first (fast),
    else the lenient bounded reader."""
    window = text[start : start + MAX_PAYLOAD_CHARS]
    try:
        value, end = _DECODER.raw_decode(window)
    except (ValueError, RecursionError):
        value, end = read_value(window, 0)
    return value, start + end


def _last_pair_run(text: str, start: int) -> tuple[list[re.Match[str]], int]:
    """The last maximal run of from/direction pairs after ``start`` (pairs separated only by
    brackets, commas, quotes and spaces): its first ``MAX_ANSWER_STEPS + 1`` pairs and its
    length (0 when there is none). Memory stays bounded however many pairs the text holds."""
    run: list[re.Match[str]] = []
    length = 0
    previous_end = -1
    for match in _PAIR.finditer(text, start):
        if not (length and _PAIR_SEPARATOR.fullmatch(text, previous_end, match.start())):
            run, length = [], 0
        if length <= MAX_ANSWER_STEPS:
            run.append(match)
        length += 1
        previous_end = match.end()
    return run, length


def _steps_of_run(run: list[re.Match[str]], length: int) -> tuple[Step, ...]:
    if length > MAX_ANSWER_STEPS:
        raise AnswerError("bad_format", f"{length} steps (at most {MAX_ANSWER_STEPS})")
    return tuple(((int(m.group(1)), int(m.group(2))), parse_direction(m.group(3))) for m in run)


def _steps_of_list(value: Any) -> tuple[Step, ...]:
    if not isinstance(value, list):
        raise AnswerError("bad_format", "solution is not a list")
    if len(value) > MAX_ANSWER_STEPS:
        raise AnswerError("bad_format", f"{len(value)} steps (at most {MAX_ANSWER_STEPS})")
    return tuple(_step_of(item) for item in value)


def _step_of(item: Any) -> Step:
    if not isinstance(item, dict):
        raise AnswerError("bad_format", f"step is not an object: {item!r:.40}")
    if "from" not in item or "direction" not in item:
        item = {str(k).strip().lower(): v for k, v in item.items()}
    cell, direction = item.get("from"), item.get("direction")
    if not (isinstance(cell, list) and len(cell) == 2 and type(cell[0]) is int and type(cell[1]) is int):
        raise AnswerError("bad_format", f"'from' must be [r, c], got {cell!r:.40}")
    if direction is None:
        raise AnswerError("bad_format", "step without 'direction'")
    word = _DIRECTION_WORDS.get(direction) if isinstance(direction, str) else None
    return ((cell[0], cell[1]), word or parse_direction(direction))


def parse_step(text: str) -> Step:
    """The move in the last ``<STEP_JSON>{"from": [r, c], "direction": ...}</STEP_JSON>`` of a reply.

    Example:
        >>> parse_step('<STEP_JSON>{"from": [3, 2], "direction": "DOWN"}</STEP_JSON>')
        ((3, 2), 'down')
    """
    return _step_of(last_step_value(text))


def format_step(step: Step) -> str:
    """One move in the per-turn format (direction upper-case, as the paper writes it).

    Example:
        >>> format_step(((3, 2), "down"))
        '<STEP_JSON>{"from":[3,2],"direction":"DOWN"}</STEP_JSON>'
    """
    (r, c), direction = step
    return step_text({"from": [r, c], "direction": direction.upper()})


def answer_payload(answer: Sequence[Step]) -> str:
    """The compact ``{"solution": [...]}`` JSON of ``answer`` (directions upper-case).

    Example:
        >>> answer_payload([((3, 2), "down")])
        '{"solution":[{"from":[3,2],"direction":"DOWN"}]}'
    """
    steps = [{"from": [r, c], "direction": direction.upper()} for (r, c), direction in answer]
    return json.dumps({"solution": steps}, separators=(",", ":"))


def format_answer(answer: Sequence[Step]) -> str:
    """The full answer text: for klotski the JSON payload itself (no tags)."""
    return answer_payload(answer)
