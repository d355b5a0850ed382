"""Tolerant, bounded extraction of answers from raw model text.

Models wrap answers in prose, markdown fences, odd casing, single quotes and trailing
commas. These helpers accept all of that without ``eval`` and in linear time: the JSON
reader is an iterative scanner with caps on length, depth and number size, so hostile
text (megabytes, 100k nested brackets, lone surrogates, NUL bytes) costs little and
fails as ``bad_format`` instead of raising something else.
"""

from __future__ import annotations

import json
import math
import re
from typing import Any

from vgau_data.types import AnswerError

MAX_ANSWER_CHARS = 16_000_000
"""Longest model text parsed; longer is ``bad_format``. Far above any reply (128k tokens are
under a million characters), it bounds the time and memory one answer can cost."""
MAX_PAYLOAD_CHARS = 200_000
"""Longest tagged payload read; the longest honest answer is a few kilobytes."""
MAX_ANSWER_STEPS = 1000
"""Most steps an answer may have; longer is ``bad_format`` (the longest honest answer has 39), so
replaying a hostile answer costs at most this many steps."""
MAX_DEPTH = 16
"""Deepest nesting accepted; every answer format nests at most 4 levels."""
MAX_NUMBER_CHARS = 24

STEP_TAG = "STEP_JSON"
"""The tag around one interactive step (the authors' per-step format)."""

_FENCE = re.compile(r"```[A-Za-z0-9_+-]*")
_BARE_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_NUMBER = re.compile(r"-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?")
_LITERALS = {"true": True, "false": False, "null": None, "none": None}
_STRICT = json.JSONDecoder()
_STRING_RUN = {quote: re.compile(rf"[^{quote}\\]*") for quote in "\"'"}
_HEX4 = re.compile(r"[0-9a-fA-F]{4}")
_ASCII_LOWER = {code: code + 32 for code in range(ord("A"), ord("Z") + 1)}
_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "b": "\b", "f": "\f", "/": "/", "\\": "\\", '"': '"', "'": "'"}


def answer_text(text: object) -> str:
    """``text`` if it is a string a parser may read; else ``AnswerError`` (``no_answer`` or ``bad_format``).

    Every family's ``parse_answer`` starts here, so no parser sees more than
    ``MAX_ANSWER_CHARS`` characters.

    Example:
        >>> answer_text("<answer>A</answer>")
        '<answer>A</answer>'
    """
    if not isinstance(text, str):
        raise AnswerError("no_answer", f"not text: {type(text).__name__}")
    if len(text) > MAX_ANSWER_CHARS:
        raise AnswerError("bad_format", f"answer of {len(text)} characters (at most {MAX_ANSWER_CHARS})")
    return text


def lower_aligned(text: str) -> str:
    """``text`` lower-cased with every index unchanged (so indexes found in it slice ``text``).

    ``str.lower`` turns a few characters into two (``"İ"``); then only A-Z are lowered.

    Example:
        >>> lower_aligned("İ<A>")
        'İ<a>'
    """
    lowered = text.lower()
    return lowered if len(lowered) == len(text) else text.translate(_ASCII_LOWER)


def last_tagged(text: str, tag: str) -> str | None:
    """The content of the last complete ``<tag>...</tag>`` pair (tag case-insensitive).

    Example:
        >>> last_tagged("<A>1</a> then <a> 2 </A>", "a")
        ' 2 '
        >>> last_tagged("no tags", "a") is None
        True
    """
    lowered = lower_aligned(text)
    close = lowered.rfind(f"</{tag.lower()}>")
    if close < 0:
        return None
    opening = f"<{tag.lower()}>"
    start = lowered.rfind(opening, 0, close)
    if start < 0:
        return None
    return text[start + len(opening) : close]


def last_step_value(text: str) -> Any:
    """The JSON value in the last ``<STEP_JSON>...</STEP_JSON>`` of ``text`` (read leniently).

    Raises ``AnswerError``: ``no_answer`` without the tags, ``bad_format`` when the content
    is not one JSON value.

    Example:
        >>> last_step_value('first <STEP_JSON>{"a":1}</STEP_JSON>, then <step_json>[2, 3,]</step_json>')
        [2, 3]
    """
    payload = last_tagged(answer_text(text), STEP_TAG)
    if payload is None:
        raise AnswerError("no_answer", f"no <{STEP_TAG}>...</{STEP_TAG}> found")
    return load_lenient(payload)


def step_text(value: Any) -> str:
    """One step in the per-step format: compact JSON inside ``<STEP_JSON>`` tags.

    The JSON is a list or an object (``last_step_value`` reads nothing else back: a bare
    string or number in the tags is ``bad_format``), so a step that is one word is written
    as a list or an object of it (``["up"]``, ``{"move": "up"}``).

    Example:
        >>> step_text({"car": "A", "direction": "up"})
        '<STEP_JSON>{"car":"A","direction":"up"}</STEP_JSON>'
    """
    if not isinstance(value, list | tuple | dict):
        raise ValueError(f"a step's JSON must be a list or an object, not {type(value).__name__} {value!r:.40} "
                         '(last_step_value reads only [...] or {...} back): write ["up"] or {"move": "up"}')
    return f"<{STEP_TAG}>{json.dumps(value, separators=(',', ':'), ensure_ascii=False)}</{STEP_TAG}>"


def last_tagged_list(text: object, tag: str) -> list[Any]:
    """The list in the last ``<tag>...</tag>`` of ``text``, read leniently (its items unchecked).

    Raises ``AnswerError``: ``no_answer`` without the tags, ``bad_format`` when the content
    is not one list or has more than ``MAX_ANSWER_STEPS`` items.

    Example:
        >>> last_tagged_list("so: <ANSWER_JSON>[['a', 1],]</answer_json>", "ANSWER_JSON")
        [['a', 1]]
    """
    payload = last_tagged(answer_text(text), tag)
    if payload is None:
        raise AnswerError("no_answer", f"no <{tag}>...</{tag}> found")
    value = load_lenient(payload)
    if not isinstance(value, list):
        raise AnswerError("bad_format", "the answer must be a JSON list")
    if len(value) > MAX_ANSWER_STEPS:
        raise AnswerError("bad_format", f"{len(value)} steps (at most {MAX_ANSWER_STEPS})")
    return value


def strip_fences(payload: str) -> str:
    """Drop markdown code-fence markers (```json ... ```) around or inside a payload."""
    return _FENCE.sub("", payload).strip()


def load_lenient(payload: str) -> Any:
    """Read one JSON-like value that fills ``payload`` (fences and prose around it allowed).

    Accepts single quotes, trailing commas, Python literals and bare words (read as
    strings). Raises ``AnswerError("bad_format")`` on anything else.

    Example:
        >>> load_lenient("```json\\n['up', 'L',]\\n```")
        ['up', 'L']
    """
    payload = strip_fences(payload)
    if len(payload) > MAX_PAYLOAD_CHARS:
        raise AnswerError("bad_format", f"payload of {len(payload)} characters")
    start = _first_value_start(payload)
    if start < 0:
        raise AnswerError("bad_format", "no JSON value")
    try:  # fast path: honest answers are strict JSON, which the C decoder reads ~10x faster
        value, _ = _STRICT.raw_decode(payload, start)
    except (ValueError, RecursionError):
        pass
    else:
        if _within_limits(value, 1):
            return value
    value, _ = read_value(payload, start)
    return value


def _within_limits(value: Any, depth: int) -> bool:
    """The strict reading is what the lenient reader would return (same depth and number caps).

    ``value`` comes from the strict decoder, so its types are exactly JSON's; a string item
    is checked inline (most answers are lists of strings or of objects of strings).
    """
    if depth > MAX_DEPTH:
        return False
    kind = type(value)
    if kind is list or kind is dict:
        items = value if kind is list else value.values()
        if depth == MAX_DEPTH:  # an item would sit deeper than the cap
            return not items
        return all(type(item) is str or _within_limits(item, depth + 1) for item in items)
    if kind is str or kind is bool or value is None:
        return True
    if kind is int:
        return len(str(value)) <= MAX_NUMBER_CHARS
    return kind is float and math.isfinite(value)


def _first_value_start(text: str) -> int:
    for index, char in enumerate(text):
        if char in "[{":
            return index
    return -1


def read_value(text: str, pos: int) -> tuple[Any, int]:
    """Read one lenient JSON value starting at ``text[pos]``; return it and the end index.

    Iterative (no recursion), so nesting depth costs no stack; deeper than
    ``MAX_DEPTH`` is ``bad_format``.
    """
    stack: list[tuple[Any, str | None]] = []  # (container, pending dict key)
    n = len(text)
    expect_value = True
    while True:
        pos = _skip_space(text, pos)
        if pos >= n:
            raise AnswerError("bad_format", "unterminated value")
        char = text[pos]
        if expect_value:
            if char in "[{":
                if len(stack) >= MAX_DEPTH:
                    raise AnswerError("bad_format", "nesting too deep")
                stack.append(([] if char == "[" else {}, None))
                pos += 1
                pos = _skip_space(text, pos)
                if pos < n and text[pos] in "]}":
                    char = text[pos]  # empty container: fall through to the closer below
                    expect_value = False
                    continue
                if isinstance(stack[-1][0], dict):
                    key, pos = _read_key(text, pos)
                    stack[-1] = (stack[-1][0], key)
                continue
            value, pos = _read_scalar(text, pos)
        else:
            if char == ",":
                pos = _skip_space(text, pos + 1)
                if pos < n and text[pos] in "]}":
                    continue  # trailing comma
                expect_value = True
                if stack and isinstance(stack[-1][0], dict):
                    key, pos = _read_key(text, pos)
                    stack[-1] = (stack[-1][0], key)
                continue
            if char in "]}":
                container, _ = stack.pop() if stack else (None, None)
                if container is None or (char == "]") != isinstance(container, list):
                    raise AnswerError("bad_format", f"unexpected {char!r}")
                value, pos = container, pos + 1
            else:
                raise AnswerError("bad_format", f"unexpected {char!r} at {pos}")
        if not stack:
            return value, pos
        container, key = stack[-1]
        if isinstance(container, list):
            container.append(value)
        else:
            container[key] = value
        expect_value = False


def _skip_space(text: str, pos: int) -> int:
    n = len(text)
    while pos < n and text[pos] in " \t\r\n\x00":
        pos += 1
    return pos


def _read_key(text: str, pos: int) -> tuple[str, int]:
    pos = _skip_space(text, pos)
    key, pos = _read_scalar(text, pos)
    if not isinstance(key, str):
        raise AnswerError("bad_format", "object key is not a string")
    pos = _skip_space(text, pos)
    if pos >= len(text) or text[pos] not in ":=":
        raise AnswerError("bad_format", f"expected ':' after key {key!r:.20}")
    return key, pos + 1


def _read_scalar(text: str, pos: int) -> tuple[Any, int]:
    if pos >= len(text):
        raise AnswerError("bad_format", "unterminated value")
    char = text[pos]
    if char in "\"'":
        return _read_string(text, pos)
    match = _NUMBER.match(text, pos)
    if match:
        token = match.group()
        if len(token) > MAX_NUMBER_CHARS:
            raise AnswerError("bad_format", "number too long")
        number = float(token) if any(c in token for c in ".eE") else int(token)
        return number, match.end()
    match = _BARE_WORD.match(text, pos)
    if match:
        word = match.group()
        lowered = word.lower()
        return _LITERALS.get(lowered, word), match.end()
    raise AnswerError("bad_format", f"unexpected {char!r} at {pos}")


def _read_string(text: str, pos: int) -> tuple[str, int]:
    quote = text[pos]
    plain_run = _STRING_RUN[quote]
    pos += 1
    parts: list[str] = []
    n = len(text)
    while True:
        end = plain_run.match(text, pos).end()  # type: ignore[union-attr]  # [^...]* always matches
        parts.append(text[pos:end])
        if end >= n:
            raise AnswerError("bad_format", "unterminated string")
        if text[end] == quote:
            return "".join(parts), end + 1
        escape = text[end + 1 : end + 2]
        if escape == "u" and _HEX4.match(text, end + 2):
            parts.append(chr(int(text[end + 2 : end + 6], 16)))
            pos = end + 6
        else:
            parts.append(_ESCAPES.get(escape, escape))
            pos = end + 2
