"""JSON that strangers wrote, read strictly; JSON we write, always standard.

Python's ``json`` reads ``NaN``, ``Infinity`` and ``-Infinity`` (which are not JSON, and
which a browser's ``JSON.parse`` refuses), and writes them back out; it recurses once per
nesting level, so a line of ``[[[[...`` is a ``RecursionError`` in it or, past its limit,
in whatever walks the value next. Here:

- ``loads`` refuses the three constants (or reads them as ``null``) and values nested deeper than ``MAX_DEPTH``, as a
  ``JsonInputError`` (a ``ValueError``) naming where the text came from;
- ``dumps`` writes non-finite floats as ``null`` and never emits a non-standard token, so
  every file we write parses anywhere;
- ``sanitized`` is the value ``dumps`` writes (non-finite floats replaced by ``None``).
"""

from __future__ import annotations

import json
import math
from typing import Any, Final

from vgau_data.errors import VgauError

MAX_DEPTH: Final = 64
"""Deepest nesting accepted: every record we read is a handful of levels deep."""
_OPENERS: Final = ("[", "{")


class JsonInputError(VgauError, ValueError):
    """Text that is not standard JSON of a bounded depth (the message names where it came from)."""


def _refuse_constant(name: str) -> None:
    raise ValueError(f"{name} is not JSON")


def _null_constant(name: str) -> None:
    return None


def depth(value: Any) -> int:
    """How deeply lists and objects nest in ``value`` (0 for a scalar), walked without recursion.

    Example:
        >>> depth({"a": [1, [2]]}), depth(3)
        (3, 0)
    """
    deepest = 0
    stack: list[tuple[Any, int]] = [(value, 0)]
    while stack:
        item, level = stack.pop()
        if isinstance(item, dict):
            items: Any = item.values()
        elif isinstance(item, list):
            items = item
        else:
            continue
        level += 1
        deepest = max(deepest, level)
        stack.extend((child, level) for child in items if isinstance(child, (dict, list)))
    return deepest


def loads(text: str | bytes, where: str = "input", *, max_depth: int = MAX_DEPTH, nan_as_null: bool = False) -> Any:
    """Parse standard JSON nested at most ``max_depth`` deep.

    ``nan_as_null`` reads ``NaN``/``Infinity`` as ``None`` instead of refusing them (for
    files older versions of ``vgau-data`` wrote with them).

    Raises:
        JsonInputError: not JSON (``NaN``/``Infinity`` included), bytes not UTF-8, nested too
            deep, or an integer too long to read; the message starts with ``where``.

    Example:
        >>> loads('{"a": [1, 2.5]}')
        {'a': [1, 2.5]}
        >>> loads('[NaN]', "x.json")
        Traceback (most recent call last):
        ...
        vgau_data.safe_json.JsonInputError: x.json: not valid JSON (NaN is not JSON)
    """
    if isinstance(text, bytes):  # our formats are UTF-8 (json would also guess UTF-16 and UTF-32)
        try:
            text = text.decode("utf-8")
        except UnicodeDecodeError as error:
            raise JsonInputError(f"{where}: not UTF-8 text (byte {error.start})") from None
    try:
        value = json.loads(text, parse_constant=_null_constant if nan_as_null else _refuse_constant)
    except RecursionError:
        raise JsonInputError(f"{where}: nested more than {max_depth} levels deep") from None
    except (ValueError, TypeError) as error:  # JSONDecodeError, bad UTF-8, an integer of more than 4300 digits
        raise JsonInputError(f"{where}: not valid JSON ({str(error)[:160]})") from None
    if _may_nest(text, max_depth) and depth(value) > max_depth:
        raise JsonInputError(f"{where}: nested more than {max_depth} levels deep")
    return value


def _may_nest(text: str | bytes, max_depth: int) -> bool:
    """Cheap pre-check: fewer brackets than ``max_depth`` cannot nest deeper than it."""
    if isinstance(text, bytes):
        return text.count(b"[") + text.count(b"{") > max_depth
    return text.count(_OPENERS[0]) + text.count(_OPENERS[1]) > max_depth


def sanitized(value: Any) -> Any:
    """``value`` with every non-finite float (``nan``, ``inf``) replaced by ``None``; the rest kept.

    Example:
        >>> sanitized({"t": float("nan"), "xs": [1.5, float("inf")], "n": 10**400 > 0})
        {'t': None, 'xs': [1.5, None], 'n': True}
    """
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {key: sanitized(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [sanitized(item) for item in value]
    return value


def dumps(value: Any, **options: Any) -> str:
    """``json.dumps`` of ``sanitized(value)``, refusing anything that is not standard JSON.

    Example:
        >>> dumps({"temperature": float("nan")})
        '{"temperature": null}'
    """
    return json.dumps(sanitized(value), allow_nan=False, **options)
