"""A 3x3 Lights Out board and its JSON (a leaf: nothing of the family imported).

``lights`` are three rows of ``#`` (on) and ``.`` (off); the JSON is ``{"lights": [...]}``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Final

from vgau_data.errors import StateError
from vgau_data.puzzles.base import Cell, canonical_json

SIZE: Final = 3
ON: Final = "#"
OFF: Final = "."


@dataclass(frozen=True, slots=True)
class LightsState:
    """Which lights are on, row by row."""

    lights: tuple[str, ...]

    def is_on(self, cell: Cell) -> bool:
        return self.lights[cell[0]][cell[1]] == ON


def to_json(state: LightsState) -> str:
    """The canonical JSON.

    Example:
        >>> to_json(LightsState(("#..", "...", "..#")))
        '{"lights":["#..","...","..#"]}'
    """
    return canonical_json({"lights": list(state.lights)})


def from_json(text: str) -> LightsState:
    """A validated board; ``StateError`` on anything else."""
    if not isinstance(text, str) or len(text) > 1000:
        raise StateError("a lights state is a short JSON string")
    try:
        obj = json.loads(text)
    except ValueError as error:
        raise StateError(f"lights state is not JSON: {error}") from None
    if not isinstance(obj, dict) or set(obj) != {"lights"}:
        raise StateError("a lights state has exactly the key lights")
    rows = obj["lights"]
    if not (isinstance(rows, list) and len(rows) == SIZE and all(isinstance(r, str) and len(r) == SIZE for r in rows)):
        raise StateError(f"lights must be {SIZE} strings of {SIZE} characters")
    if any(char not in ON + OFF for row in rows for char in row):
        raise StateError(f"lights are {ON!r} (on) or {OFF!r} (off)")
    return LightsState(tuple(rows))
