"""The answer formats: ``<answer>A,C</answer>`` letters, or an episode's walk of ``<STEP_JSON>`` steps."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any, Final

from vgau_data.answers import (
    MAX_ANSWER_STEPS,
    STEP_TAG,
    answer_text,
    last_step_value,
    last_tagged,
    load_lenient,
    lower_aligned,
    step_text,
    strip_fences,
)
from vgau_data.puzzles.base import AnswerError, canonical_json, parse_direction
from vgau_data.puzzles.path.state import _LETTER_SET, N_LABELS, PathStep

MAX_PAYLOAD_CHARS: Final = 10_000
MAX_ANSWER_LABELS: Final = 100


ANSWER_TAG: Final = "answer"


_SPLIT = re.compile(r"[\s,;]+")
_STRIP = "\"'`[](){}.*"


def parse_answer(text: str) -> tuple[Any, ...]:
    """The letters of the last ``<answer>...</answer>`` in ``text``, else the walk of its steps.

    Tolerates prose around the tags, fences, case, spaces, quotes and brackets, ``;`` or
    ``->`` separators and trailing commas; empty content is the empty answer. A text
    without ``<answer>`` but with ``<STEP_JSON>`` steps (an interactive episode's answer)
    is read as a walk of ``PathStep``s. Raises ``AnswerError`` (``no_answer``,
    ``bad_format``, ``unknown_action``) and nothing else.

    Example:
        >>> parse_answer("Route: <Answer> b, 'e', </Answer>")
        ('B', 'E')
        >>> parse_answer("<answer></answer>")
        ()
        >>> parse_answer('<STEP_JSON>{"move":"up","hit_labels":["a"]}</STEP_JSON>')
        (PathStep(move='up', hit_labels=('A',)),)
    """
    text = answer_text(text)
    payload = last_tagged(text, ANSWER_TAG)
    if payload is None:
        walk = _parse_walk(text)
        if walk:
            return walk
        raise AnswerError("no_answer", f"no <{ANSWER_TAG}>...</{ANSWER_TAG}> found")
    if len(payload) > MAX_PAYLOAD_CHARS:
        raise AnswerError("bad_format", f"payload of {len(payload)} characters")
    body = strip_fences(payload)
    for arrow in ("->", "=>", "\u2192"):
        body = body.replace(arrow, ",")
    tokens = [token.strip(_STRIP) for token in _SPLIT.split(body)]
    tokens = [token for token in tokens if token]
    if len(tokens) > MAX_ANSWER_LABELS:
        raise AnswerError("bad_format", f"{len(tokens)} labels (more than {MAX_ANSWER_LABELS})")
    return tuple(_letter_of(token) for token in tokens)


def _letter_of(token: object) -> str:
    letter = token.strip().upper() if isinstance(token, str) else None
    if letter not in _LETTER_SET:
        raise AnswerError("unknown_action", f"not a label letter A-E: {token!r:.40}")
    return letter  # type: ignore[return-value]


def _parse_walk(text: str) -> tuple[PathStep, ...]:
    """Every complete ``<STEP_JSON>...</STEP_JSON>`` in order (one scan: linear in the text)."""
    lowered = lower_aligned(text)
    opening, closing = f"<{STEP_TAG.lower()}>", f"</{STEP_TAG.lower()}>"
    steps: list[PathStep] = []
    position = 0
    while (start := lowered.find(opening, position)) >= 0:
        end = lowered.find(closing, start)
        if end < 0:
            break
        if len(steps) == MAX_ANSWER_STEPS:
            raise AnswerError("bad_format", f"more than {MAX_ANSWER_STEPS} steps")
        steps.append(_step_of(load_lenient(text[start + len(opening) : end])))
        position = end + len(closing)
    return tuple(steps)


def _step_of(value: Any) -> PathStep:
    if not isinstance(value, dict):
        raise AnswerError("bad_format", 'a step must be {"move": ..., "hit_labels": [...]}')
    fields = {str(key).strip().lower(): field for key, field in value.items()}
    labels = fields.get("hit_labels", [])
    if labels is None:
        labels = []
    if not isinstance(labels, list) or len(labels) > N_LABELS:
        raise AnswerError("bad_format", f"hit_labels must be a list of at most {N_LABELS} letters")
    return PathStep(parse_direction(fields.get("move")), tuple(_letter_of(label) for label in labels))


def parse_step(text: str) -> PathStep:
    """The step in the last ``<STEP_JSON>{"move": ..., "hit_labels": [...]}</STEP_JSON>`` of a reply.

    Example:
        >>> parse_step('<STEP_JSON>{"move":"Left","hit_labels":[]}</STEP_JSON>')
        PathStep(move='left', hit_labels=())
    """
    return _step_of(last_step_value(text))


def format_step(step: PathStep) -> str:
    """One step in the per-turn format (Table 26).

    Example:
        >>> format_step(PathStep("up", ("C",)))
        '<STEP_JSON>{"move":"up","hit_labels":["C"]}</STEP_JSON>'
    """
    return step_text({"move": step.move, "hit_labels": list(step.hit_labels)})


def answer_payload(answer: Sequence[str]) -> str:
    """Compact JSON list of letters, e.g. ``["A","C"]`` (the dataset's ``solution`` column).

    Example:
        >>> answer_payload(("A", "C"))
        '["A","C"]'
    """
    return canonical_json(list(answer))


def format_answer(answer: Sequence[Any]) -> str:
    """The answer text: ``<answer>A,C</answer>`` for letters, one step per line for a walk."""
    if answer and isinstance(answer[0], PathStep):
        return "\n".join(format_step(step) for step in answer)
    return f"<{ANSWER_TAG}>{','.join(answer)}</{ANSWER_TAG}>"
