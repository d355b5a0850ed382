"""A 3x3 tray of eight lettered tiles and a blank, and its JSON (a leaf: nothing of the family imported).

``tiles`` is the nine cells row-major, ``A``-``H`` for the tiles and ``.`` for the blank;
the JSON is ``{"tiles": ["ABC", "DEF", "GH."]}``, one string per row.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Final

from vgau_data.errors import StateError
from vgau_data.puzzles.base import Cell, canonical_json

SIZE: Final = 3
BLANK: Final = "."
LETTERS: Final = "ABCDEFGH"
GOAL: Final = LETTERS + BLANK


@dataclass(frozen=True, slots=True)
class EightState:
    """The nine cells row-major (a perturbed board may repeat a letter or blank; ``from_json`` never does)."""

    tiles: str

    @property
    def blank(self) -> Cell:
        return divmod(self.tiles.index(BLANK), SIZE)

    def at(self, cell: Cell) -> str:
        return self.tiles[cell[0] * SIZE + cell[1]]

    @property
    def rows(self) -> tuple[str, ...]:
        return tuple(self.tiles[r * SIZE : (r + 1) * SIZE] for r in range(SIZE))


def from_rows(rows: list[str] | tuple[str, ...]) -> EightState:
    """A state from its three row strings (unchecked: tests and the paper reader)."""
    return EightState("".join(rows))


def to_json(state: EightState) -> str:
    """The canonical JSON.

    Example:
        >>> to_json(EightState("ABCDEFGH."))
        '{"tiles":["ABC","DEF","GH."]}'
    """
    return canonical_json({"tiles": list(state.rows)})


def from_json(text: str) -> EightState:
    """A validated tray (each of A-H once, one blank); ``StateError`` on anything else."""
    if not isinstance(text, str) or len(text) > 1000:
        raise StateError("an eight_puzzle state is a short JSON string")
    try:
        obj = json.loads(text)
    except ValueError as error:
        raise StateError(f"eight_puzzle state is not JSON: {error}") from None
    if not isinstance(obj, dict) or set(obj) != {"tiles"}:
        raise StateError("an eight_puzzle state has exactly the key tiles")
    rows = obj["tiles"]
    if not (isinstance(rows, list) and len(rows) == SIZE and all(isinstance(r, str) and len(r) == SIZE for r in rows)):
        raise StateError(f"tiles must be {SIZE} strings of {SIZE} characters")
    tiles = "".join(rows)
    if sorted(tiles) != sorted(GOAL):
        raise StateError(f"tiles must hold each of {LETTERS} once and one blank {BLANK!r}, got {tiles!r}")
    return EightState(tiles)
