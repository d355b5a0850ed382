"""An onet board and its JSON and ASCII forms (a leaf: nothing of the family imported)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Final

from vgau_data.errors import StateError
from vgau_data.puzzles.base import Cell, canonical_json

SIZE: Final = 6


FRUIT_LETTERS: Final[dict[str, str]] = {
    "apple": "A",
    "avocado": "V",
    "banana": "B",
    "blueberry": "U",
    "cherry": "C",
    "coconut": "N",
    "dragonfruit": "D",
    "grape": "G",
    "kiwi": "K",
    "lemon": "L",
    "lime": "I",
    "orange": "O",
    "peach": "H",
    "pear": "P",
    "pineapple": "E",
    "plum": "M",
    "strawberry": "S",
    "watermelon": "W",
}
"""Every fruit kind and its letter in ``to_ascii`` ('.' is an empty cell)."""
FRUITS: Final[tuple[str, ...]] = tuple(FRUIT_LETTERS)
_LETTER_FRUITS: Final = {letter: fruit for fruit, letter in FRUIT_LETTERS.items()}


Step = tuple[Cell, Cell]
"""One removal: the two cells of a pair, ``((r1, c1), (r2, c2))``."""


@dataclass(frozen=True, slots=True)
class OnetState:
    """A 6x6 board: ``board[r][c]`` is a fruit name from ``FRUITS`` or None (empty)."""

    board: tuple[tuple[str | None, ...], ...]


def _validated(rows: Any, source: str) -> OnetState:
    """Check shape, fruit names and pair counts; return the state or raise StateError."""
    if not isinstance(rows, (list, tuple)) or len(rows) != SIZE:
        raise StateError(f"onet {source}: board must be a list of {SIZE} rows, got {rows!r:.80}")
    counts: dict[str, int] = {}
    board = []
    for r, row in enumerate(rows):
        if not isinstance(row, (list, tuple)) or len(row) != SIZE:
            raise StateError(f"onet {source}: row {r} must be a list of {SIZE} cells, got {row!r:.80}")
        for c, cell in enumerate(row):
            if cell is None:
                continue
            if not isinstance(cell, str) or cell not in FRUIT_LETTERS:
                raise StateError(
                    f"onet {source}: cell ({r},{c}) is {cell!r:.40}; use null or one of {', '.join(FRUITS)}"
                )
            counts[cell] = counts.get(cell, 0) + 1
        board.append(tuple(row))
    odd = sorted(fruit for fruit, count in counts.items() if count != 2)
    if odd:
        raise StateError(
            f"onet {source}: every fruit must appear exactly twice; "
            + ", ".join(f"{fruit} x{counts[fruit]}" for fruit in odd)
        )
    return OnetState(tuple(board))


def to_json(state: OnetState) -> str:
    """The canonical ``state`` column.

    Example:
        >>> to_json(from_ascii(["AA....", *["......"] * 5]))[:40]
        '{"board":[["apple","apple",null,null,nul'
    """
    return canonical_json({"size": SIZE, "board": [list(row) for row in state.board]})


def from_json(text: str) -> OnetState:
    """Parse and fully validate a ``state`` string; raise StateError on anything malformed.

    Example:
        >>> from_json(to_json(from_ascii(["AA....", *["......"] * 5]))).board[0][1]
        'apple'
    """
    if not isinstance(text, (str, bytes, bytearray)):
        raise StateError(f"onet state must be a JSON string, got {type(text).__name__}")
    try:
        data = json.loads(text)
    except (ValueError, RecursionError) as e:
        raise StateError(f"onet state is not valid JSON: {e}") from e
    if not isinstance(data, dict) or set(data) != {"size", "board"}:
        raise StateError(f'onet state must be an object with keys "size" and "board", got {data!r:.80}')
    size = data["size"]
    if isinstance(size, bool) or size != SIZE:
        raise StateError(f"onet state: size must be {SIZE}, got {size!r:.20}")
    return _validated(data["board"], "state")


def to_ascii(state: OnetState) -> list[str]:
    """One string per row, a letter per fruit (``FRUIT_LETTERS``) and '.' for empty."""
    return ["".join("." if cell is None else FRUIT_LETTERS[cell] for cell in row) for row in state.board]


def from_ascii(rows: Sequence[str] | str) -> OnetState:
    """Inverse of ``to_ascii``; also takes one string with newlines (blank lines ignored).

    Example:
        >>> to_ascii(from_ascii("AB....\\nBA....\\n" + "......\\n" * 4))[1]
        'BA....'
    """
    lines = rows.split() if isinstance(rows, str) else list(rows)
    grid = []
    for r, line in enumerate(lines):
        if not isinstance(line, str):
            raise StateError(f"onet ascii: row {r} is not a string")
        unknown = sorted(set(line) - set(_LETTER_FRUITS) - {"."})
        if unknown:
            raise StateError(f"onet ascii: row {r} has unknown letters {unknown}; use {sorted(_LETTER_FRUITS)} or '.'")
        grid.append([None if ch == "." else _LETTER_FRUITS[ch] for ch in line])
    return _validated(grid, "ascii")
