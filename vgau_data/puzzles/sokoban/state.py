"""A sokoban position and its JSON and ASCII forms (a leaf: nothing of the family imported)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

from vgau_data.errors import StateError
from vgau_data.puzzles.base import Cell, canonical_json

SIZE: Final = 10


WALL: Final = "#"
FLOOR: Final = "."


@dataclass(frozen=True, slots=True)
class SokobanState:
    """One position: the walls, where the player and the box stand, and the target."""

    grid: tuple[str, ...]  # "#" wall, "." floor
    player: Cell
    box: Cell
    target: Cell


def to_json(state: SokobanState) -> str:
    """The canonical JSON of a state (docs/contract/states.md).

    Example:
        >>> to_json(from_ascii(["P.BT"]))
        '{"box":[0,2],"grid":["...."],"player":[0,0],"target":[0,3]}'
    """
    return canonical_json(
        {
            "grid": list(state.grid),
            "player": list(state.player),
            "box": list(state.box),
            "target": list(state.target),
        }
    )


def from_json(text: str) -> SokobanState:
    """Parse and fully validate the state JSON (docs/contract/states.md; a 10x10 board).

    Raises:
        StateError: on malformed JSON, wrong types or shapes, or pieces off the floor.

    Example:
        >>> s = from_json('{"box":[0,2],"grid":["..........","..........","..........",'
        ...     '"..........","..........","..........","..........","..........",'
        ...     '"..........",".........."],"player":[0,0],"target":[9,9]}')
        >>> s.box
        (0, 2)
    """
    if not isinstance(text, str):
        raise StateError(f"sokoban state must be a JSON string, got {type(text).__name__}")
    try:
        obj = json.loads(text)
    except (ValueError, RecursionError) as e:
        raise StateError(f"sokoban state is not valid JSON: {e}") from e
    if not isinstance(obj, dict):
        raise StateError(f"sokoban state must be a JSON object, got {type(obj).__name__}")
    keys = {"grid", "player", "box", "target"}
    if set(obj) != keys:
        raise StateError(f"sokoban state needs exactly the keys {sorted(keys)}, got {sorted(obj)}")
    grid = obj["grid"]
    if not isinstance(grid, list) or not all(isinstance(row, str) for row in grid):
        raise StateError("sokoban 'grid' must be a list of strings such as '#..#......'")
    if len(grid) != SIZE or any(len(row) != SIZE for row in grid):
        raise StateError(f"sokoban 'grid' must be {SIZE} rows of {SIZE} characters")
    cells = {name: _json_cell(obj[name], name) for name in ("player", "box", "target")}
    return _checked(SokobanState(tuple(grid), cells["player"], cells["box"], cells["target"]))


def _json_cell(value: object, name: str) -> Cell:
    if (
        not isinstance(value, list)
        or len(value) != 2
        or not all(isinstance(v, int) and not isinstance(v, bool) for v in value)
    ):
        raise StateError(f"sokoban {name!r} must be a cell [r, c] of two integers, got {value!r:.60}")
    return (value[0], value[1])


def _checked(state: SokobanState) -> SokobanState:
    """Validate a state's board and pieces (any rectangular size up to 10x10)."""
    grid = state.grid
    if not grid or not grid[0] or len(grid) > SIZE or len(grid[0]) > SIZE:
        raise StateError(f"sokoban grid must have 1 to {SIZE} rows and columns")
    if any(len(row) != len(grid[0]) for row in grid):
        raise StateError("sokoban grid rows must all have the same length")
    if any(ch not in (WALL, FLOOR) for row in grid for ch in row):
        raise StateError("sokoban grid may only hold '#' (wall) and '.' (floor)")
    for name in ("player", "box", "target"):
        r, c = getattr(state, name)
        if not (0 <= r < len(grid) and 0 <= c < len(grid[0])):
            raise StateError(f"sokoban {name} {[r, c]} lies outside the {len(grid)}x{len(grid[0])} board")
        if grid[r][c] != FLOOR:
            raise StateError(f"sokoban {name} {[r, c]} stands on a wall; it must be on floor '.'")
    if state.player == state.box:
        raise StateError(f"sokoban player and box share the cell {list(state.box)}")
    return state


_ASCII_PIECES = {"P": ("player",), "B": ("box",), "T": ("target",), "*": ("box", "target"), "+": ("player", "target")}


def from_ascii(rows: Sequence[str]) -> SokobanState:
    """A state from text: ``#`` wall, ``.`` floor, ``P`` player, ``B`` box, ``T`` target,
    ``*`` box on target, ``+`` player on target. Any size up to 10x10 (fixtures).

    Example:
        >>> from_ascii(["#P.B.T"]).target
        (0, 5)
    """
    found: dict[str, list[Cell]] = {"player": [], "box": [], "target": []}
    grid = []
    for r, row in enumerate(rows):
        for c, ch in enumerate(row):
            for name in _ASCII_PIECES.get(ch, ()):
                found[name].append((r, c))
        grid.append("".join(WALL if ch == WALL else FLOOR if ch in _ASCII_PIECES or ch == FLOOR else ch for ch in row))
    for name, cells in found.items():
        if len(cells) != 1:
            raise StateError(f"sokoban ascii needs exactly one {name}, found {len(cells)}")
    return _checked(SokobanState(tuple(grid), found["player"][0], found["box"][0], found["target"][0]))


def to_ascii(state: SokobanState) -> list[str]:
    """The text form read by ``from_ascii``.

    Example:
        >>> to_ascii(from_ascii(["+.B#"]))
        ['+.B#']
    """
    rows = [list(row) for row in state.grid]
    rows[state.target[0]][state.target[1]] = "T"
    pr, pc = state.player
    rows[pr][pc] = "+" if state.player == state.target else "P"
    br, bc = state.box
    rows[br][bc] = "*" if state.box == state.target else "B"
    return ["".join(row) for row in rows]
