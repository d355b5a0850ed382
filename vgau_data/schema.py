"""Typed shapes of the records we read, and the one check that holds a value to them.

Every record type read from a file someone else may have written (records and their
headers, ``requested.jsonl``, ``fidelity.jsonl``, the authors' records, lmms-eval samples,
VLMEvalKit rows) is described once, as a ``Shape``, beside the code that reads it; ``check``
holds a parsed value to it and raises a ``RecordError`` whose one line names the file,
the line and the field: ``runs/m/records/direct/run-0.jsonl: line 3: 'id' must be a
string, got list``. Code after the check can index fields without ``KeyError`` or
``TypeError``.

Shapes: ``Str``, ``Int``, ``Num`` (finite), ``BOOL``, ``Choice`` (one of given values),
``ListOf``, ``MapOf``, ``Obj`` (named fields, required or optional, other keys allowed
unless ``closed``), ``OneOf``, ``Nullable`` and ``ANY``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Final

from vgau_data.errors import VgauError

MAX_SHOWN: Final = 40
"""Characters of a bad value quoted in a message."""


class RecordError(VgauError, ValueError):
    """A record whose fields are not of the types its format says (the message names file, line and field)."""


def _label(path: str) -> str:
    return repr(path) if path else "the record"


def _type_name(value: Any) -> str:
    return {dict: "object", list: "list", str: "string", bool: "boolean", type(None): "null",
            int: "integer", float: "number"}.get(type(value), type(value).__name__)  # fmt: skip


class Shape:
    """What a value must be; ``problem`` says why it is not (None when it is)."""

    description = "a value"

    def problem(self, value: Any, path: str) -> str | None:
        """Why ``value`` (at ``path``: ``""`` for the record, ``"verdict.feasible"``, ``"rows[3]"``) does not fit."""
        raise NotImplementedError

    def _wrong(self, value: Any, path: str) -> str:
        shown = repr(value)
        shown = shown if len(shown) <= MAX_SHOWN else shown[:MAX_SHOWN] + "..."
        kind = _type_name(value)
        return f"{_label(path)} must be {self.description}, got {kind}" + (
            f" {shown}" if kind not in ("object", "list") else ""
        )


class _Any(Shape):
    def problem(self, value: Any, path: str) -> str | None:
        return None


ANY: Final = _Any()


@dataclass(frozen=True)
class Str(Shape):
    """A string of at most ``max_len`` characters (at least ``min_len``)."""

    max_len: int = 1 << 30
    min_len: int = 0

    @property
    def description(self) -> str:  # type: ignore[override]
        return "a non-empty string" if self.min_len else "a string"

    def problem(self, value: Any, path: str) -> str | None:
        if not isinstance(value, str) or len(value) < self.min_len:
            return self._wrong(value, path)
        if len(value) > self.max_len:
            return f"{_label(path)} is {len(value):,} characters long; at most {self.max_len:,}"
        return None


@dataclass(frozen=True)
class Int(Shape):
    """An integer (never a boolean) in ``[low, high]``."""

    low: int = -(1 << 63)
    high: int = 1 << 63

    @property
    def description(self) -> str:  # type: ignore[override]
        return "an integer"

    def problem(self, value: Any, path: str) -> str | None:
        if isinstance(value, bool) or not isinstance(value, int):
            return self._wrong(value, path)
        if not self.low <= value <= self.high:
            shown = value if abs(value) < 10**20 else "a huge number"
            return f"{_label(path)} must be between {self.low} and {self.high}, got {shown}"
        return None


@dataclass(frozen=True)
class Num(Shape):
    """A finite number (an integer or a float, never a boolean) in ``[low, high]``."""

    low: float = -math.inf
    high: float = math.inf

    @property
    def description(self) -> str:  # type: ignore[override]
        return (
            "a number"
            if (self.low, self.high) == (-math.inf, math.inf)
            else f"a number in [{self.low:g}, {self.high:g}]"
        )

    def problem(self, value: Any, path: str) -> str | None:
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            return self._wrong(value, path)
        if isinstance(value, int) and abs(value) > 1 << 64:
            return self._wrong(value, path)
        if not (math.isfinite(value) and self.low <= value <= self.high):
            return self._wrong(value, path)
        return None


class _Bool(Shape):
    description = "true or false"

    def problem(self, value: Any, path: str) -> str | None:
        return None if isinstance(value, bool) else self._wrong(value, path)


BOOL: Final = _Bool()


@dataclass(frozen=True)
class Choice(Shape):
    """One of ``values`` (compared only with values of the same type, so a list is never looked up)."""

    values: tuple[Any, ...]

    @property
    def description(self) -> str:  # type: ignore[override]
        return "one of " + ", ".join(repr(v) for v in self.values)

    def problem(self, value: Any, path: str) -> str | None:
        if any(type(value) is type(choice) and value == choice for choice in self.values):
            return None
        return self._wrong(value, path)


@dataclass(frozen=True)
class Nullable(Shape):
    """``shape``, or null."""

    shape: Shape

    @property
    def description(self) -> str:  # type: ignore[override]
        return f"{self.shape.description} or null"

    def problem(self, value: Any, path: str) -> str | None:
        if value is None:
            return None
        found = self.shape.problem(value, path)
        if found is not None and found.startswith(f"{_label(path)} must be {self.shape.description},"):
            return self._wrong(value, path)  # the type was wrong: say that null would do too
        return found


@dataclass(frozen=True, init=False)
class OneOf(Shape):
    """Any one of ``shapes``."""

    shapes: tuple[Shape, ...]

    def __init__(self, *shapes: Shape) -> None:
        object.__setattr__(self, "shapes", shapes)

    @property
    def description(self) -> str:  # type: ignore[override]
        return " or ".join(shape.description for shape in self.shapes)

    def problem(self, value: Any, path: str) -> str | None:
        found = [shape.problem(value, path) for shape in self.shapes]
        return None if None in found else self._wrong(value, path)


@dataclass(frozen=True)
class ListOf(Shape):
    """A list of ``min_len`` to ``max_len`` items, each ``item``."""

    item: Shape = ANY
    max_len: int = 1 << 30
    min_len: int = 0

    @property
    def description(self) -> str:  # type: ignore[override]
        return "a list" if self.min_len != self.max_len else f"a list of {self.max_len}"

    def problem(self, value: Any, path: str) -> str | None:
        if not isinstance(value, list):
            return self._wrong(value, path)
        if not self.min_len <= len(value) <= self.max_len:
            limits = f"{self.max_len:,}" if self.min_len == self.max_len else f"{self.min_len:,} to {self.max_len:,}"
            return f"{_label(path)} has {len(value):,} items; it must have {limits}"
        for index, item in enumerate(value):
            found = self.item.problem(item, f"{path}[{index}]")
            if found is not None:
                return found
        return None


@dataclass(frozen=True)
class MapOf(Shape):
    """An object of at most ``max_len`` keys, each value ``value``."""

    value: Shape = ANY
    max_len: int = 1 << 30
    description = "an object"

    def problem(self, value: Any, path: str) -> str | None:
        if not isinstance(value, dict):
            return self._wrong(value, path)
        if len(value) > self.max_len:
            return f"{_label(path)} has {len(value):,} keys; at most {self.max_len:,}"
        for key, item in value.items():
            found = self.value.problem(item, _child(path, str(key)))
            if found is not None:
                return found
        return None


@dataclass(frozen=True)
class Obj(Shape):
    """An object with ``required`` and ``optional`` fields of the given shapes (other keys are
    allowed unless ``closed``)."""

    required: Mapping[str, Shape] = field(default_factory=dict)
    optional: Mapping[str, Shape] = field(default_factory=dict)
    closed: bool = False
    description = "an object"

    def problem(self, value: Any, path: str) -> str | None:
        if not isinstance(value, dict):
            return self._wrong(value, path)
        for key, shape in self.required.items():
            if key not in value:
                return f"{_label(path)} lacks {key!r}"
            found = shape.problem(value[key], _child(path, key))
            if found is not None:
                return found
        for key, shape in self.optional.items():
            if key in value:
                found = shape.problem(value[key], _child(path, key))
                if found is not None:
                    return found
        if self.closed:
            unknown = sorted(set(value) - set(self.required) - set(self.optional))
            if unknown:
                return f"{_label(path)} has an unknown field {unknown[0][:MAX_SHOWN]!r}"
        return None


def _child(path: str, key: str) -> str:
    return f"{path}.{key[:MAX_SHOWN]}" if path else key[:MAX_SHOWN]


def check(value: Any, shape: Shape, where: str) -> Any:
    """``value`` when it has ``shape``; else a ``RecordError`` starting with ``where``.

    Example:
        >>> check({"id": "a", "run": 0}, Obj({"id": Str(), "run": Int(0)}), "f.jsonl: line 2")
        {'id': 'a', 'run': 0}
        >>> check({"id": ["a"]}, Obj({"id": Str()}), "f.jsonl: line 2")
        Traceback (most recent call last):
        ...
        vgau_data.schema.RecordError: f.jsonl: line 2: 'id' must be a string, got list
    """
    found = shape.problem(value, "")
    if found is not None:
        raise RecordError(f"{where}: {found}")
    return value
