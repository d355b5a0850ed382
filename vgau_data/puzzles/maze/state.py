"""A maze state and its JSON and ASCII forms (a leaf: nothing of the family imported)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from vgau_data.errors import StateError
from vgau_data.puzzles.base import Cell, canonical_json
from vgau_data.puzzles.grids import OPEN, SIZE, cell_from_json, grid_from_json, load_state_object


@dataclass(frozen=True, slots=True)
class MazeState:
    """A maze and where the agent stands.

    ``grid`` rows are strings of ``#`` (wall) and ``.`` (open); ``start`` is the agent's
    current cell, ``goal`` the cell to reach. Both are open cells.
    """

    grid: tuple[str, ...]
    start: Cell
    goal: Cell


def to_json(state: MazeState) -> str:
    """The canonical JSON of a state (docs/contract/states.md).

    Example:
        >>> to_json(from_ascii(["S.G"]))
        '{"goal":[0,2],"grid":["..."],"start":[0,0]}'
    """
    return canonical_json({"grid": list(state.grid), "start": list(state.start), "goal": list(state.goal)})


def from_json(text: str) -> MazeState:
    """Parse and fully validate a maze state (docs/contract/states.md); raise ``StateError`` on anything off."""
    obj = load_state_object(text)
    if set(obj) != {"grid", "start", "goal"}:
        raise StateError(f"maze state needs exactly the keys grid, start, goal; got {sorted(obj)}")
    grid = grid_from_json(obj["grid"], SIZE)
    start = cell_from_json(obj["start"], "start", grid)
    goal = cell_from_json(obj["goal"], "goal", grid)
    return MazeState(grid, start, goal)


def to_ascii(state: MazeState) -> list[str]:
    """Rows with ``S`` agent, ``G`` goal, ``*`` agent on goal, ``#`` wall, ``.`` open.

    Example:
        >>> to_ascii(MazeState(("...",), (0, 2), (0, 2)))
        ['..*']
    """
    rows = [list(row) for row in state.grid]
    rows[state.goal[0]][state.goal[1]] = "G"
    rows[state.start[0]][state.start[1]] = "*" if state.start == state.goal else "S"
    return ["".join(row) for row in rows]


def from_ascii(rows: Sequence[str]) -> MazeState:
    """Inverse of ``to_ascii``; any rectangular size (fixtures). Raises ``StateError``.

    Example:
        >>> from_ascii(["S#", ".G"]).goal
        (1, 1)
    """
    if not rows or not rows[0] or any(len(row) != len(rows[0]) for row in rows):
        raise StateError("ascii maze must be a non-empty rectangle of rows")
    start = goal = None
    grid = []
    for r, row in enumerate(rows):
        for c, char in enumerate(row):
            if char in "S*":
                if start is not None:
                    raise StateError("ascii maze has more than one agent (S or *)")
                start = (r, c)
            if char in "G*":
                if goal is not None:
                    raise StateError("ascii maze has more than one goal (G or *)")
                goal = (r, c)
            if char not in "#.SG*":
                raise StateError(f"unknown ascii maze character {char!r} at ({r}, {c})")
        grid.append(row.replace("S", OPEN).replace("G", OPEN).replace("*", OPEN))
    if start is None or goal is None:
        raise StateError("ascii maze needs one agent (S) and one goal (G), or * for both")
    return MazeState(tuple(grid), start, goal)
