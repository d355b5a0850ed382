"""A path map, its marker, and their JSON and ASCII forms (a leaf: nothing of the family imported)."""

from __future__ import annotations

import functools
import itertools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, Final, NamedTuple

from vgau_data.errors import StateError
from vgau_data.puzzles.base import Cell, Direction, canonical_json
from vgau_data.puzzles.grids import cell_from_json, grid_from_json, load_state_object

SIZE: Final = 10


LETTERS: Final = "ABCDE"
_LETTER_SET: Final = frozenset(LETTERS)
N_LABELS: Final = 5


WALL: Final = "#"
ROAD: Final = "."
_ROAD_BITS: Final = str.maketrans({ROAD: "1", WALL: "0"})


@dataclass(frozen=True, slots=True)
class PathState:
    """A road map, its start, destination and labels, and the interactive marker.

    ``grid`` rows are ``#`` (blocked) and ``.`` (road); ``labels`` is a tuple of
    ``(letter, cell)`` sorted by letter. ``position`` is the marker's cell (None: at
    ``start``) and ``declared`` the letters declared so far; both are used only by the
    interactive environment, and serialised only once the marker has moved.
    """

    grid: tuple[str, ...]
    start: Cell
    end: Cell
    labels: tuple[tuple[str, Cell], ...]
    position: Cell | None = None
    declared: tuple[str, ...] = ()


class PathStep(NamedTuple):
    """One interactive step: a marker move and the labels the model says it newly passes."""

    move: Direction
    hit_labels: tuple[str, ...] = ()


def to_json(state: PathState) -> str:
    """The canonical JSON (docs/contract/states.md); a mid-episode state adds the marker (``position``, ``declared``).

    A puzzle's state (marker on the start, nothing declared) has exactly the four keys of a dataset row;
    the marker's keys let a record name the board an interactive step should show.

    Example:
        >>> from vgau_data.puzzles.path.rules import apply_step
        >>> to_json(from_ascii(["SAT"]))
        '{"end":[0,2],"grid":["..."],"labels":{"A":[0,1]},"start":[0,0]}'
        >>> to_json(apply_step(from_ascii(["SAT"]), PathStep("right", ("A",))))
        '{"declared":["A"],"end":[0,2],"grid":["..."],"labels":{"A":[0,1]},"position":[0,1],"start":[0,0]}'
    """
    obj: dict[str, Any] = {
        "grid": list(state.grid),
        "start": list(state.start),
        "end": list(state.end),
        "labels": {letter: list(cell) for letter, cell in state.labels},
    }
    if state.position is not None or state.declared:
        obj["position"] = list(state.position or state.start)
        obj["declared"] = list(state.declared)
    return canonical_json(obj)


def from_json(text: str) -> PathState:
    """Parse and fully validate a path state (docs/contract/states.md); raise ``StateError`` on anything off.

    Checks the 10x10 ``#``/``.`` grid, that start, end and labels are distinct road cells,
    that label keys are letters A-E, and that the road cells form a tree.
    """
    obj = load_state_object(text)
    keys = set(obj)
    if keys not in ({"grid", "start", "end", "labels"}, {"grid", "start", "end", "labels", "position", "declared"}):
        raise StateError(
            f"path state needs the keys grid, start, end, labels (and, mid-episode, position and declared); got {sorted(obj)}"
        )
    grid = grid_from_json(obj["grid"], SIZE)
    start = cell_from_json(obj["start"], "start", grid)
    end = cell_from_json(obj["end"], "end", grid)
    raw = obj["labels"]
    if not isinstance(raw, dict):
        raise StateError(f'labels must be an object like {{"A": [r, c]}}, got {type(raw).__name__}')
    labels = []
    for letter in sorted(raw):
        if letter not in _LETTER_SET:
            raise StateError(f"label key {letter!r:.20} must be one of the letters {', '.join(LETTERS)}")
        labels.append((letter, cell_from_json(raw[letter], f"label {letter}", grid)))
    state = _checked(PathState(grid, start, end, tuple(labels)))
    if "position" not in obj:
        return state
    declared = obj["declared"]
    if (
        not isinstance(declared, list)
        or len(declared) > len(labels)
        or not all(isinstance(letter, str) and letter in raw for letter in declared)
        or len(set(declared)) != len(declared)
    ):
        raise StateError("declared must list distinct letters of the board's labels")
    position = cell_from_json(obj["position"], "position", grid)
    return PathState(grid, start, end, tuple(labels), None if position == start else position, tuple(declared))


def _checked(state: PathState) -> PathState:
    """Raise ``StateError`` unless the labels sit on distinct free road cells and the road is a tree."""
    if state.start == state.end:
        raise StateError(f"start and end are the same cell {list(state.start)}")
    used = {state.start, state.end}
    for letter, cell in state.labels:
        if cell in used:
            raise StateError(f"label {letter} at {list(cell)} shares its cell with start, end or another label")
        used.add(cell)
    grid = state.grid
    masks = [int(row.translate(_ROAD_BITS), 2) for row in grid]  # a bit per road cell
    road = sum(mask.bit_count() for mask in masks)
    edges = sum((mask & mask >> 1).bit_count() for mask in masks)  # across
    edges += sum((upper & lower).bit_count() for upper, lower in itertools.pairwise(masks))  # down
    if edges != road - 1 or len(_reachable(grid, state.start)) != road:
        raise StateError("the road cells must form a tree (connected, without cycles), so the path is unique")
    return state


@functools.lru_cache(maxsize=4096)
def _reachable(grid: tuple[str, ...], source: Cell) -> Mapping[Cell, Cell | None]:
    """BFS parents of every road cell reachable from ``source`` (read-only: cached, since parsing
    a state and finding its route both walk the road from the start)."""
    rows, cols = len(grid), len(grid[0])
    flat, around = "".join(grid), _neighbours(rows, cols)
    parent: dict[Cell, Cell | None] = {source: None}
    queue = [(source[0] * cols + source[1], source)]
    for index, cell in queue:  # the list grows as it is read: first in, first out
        for near, there in around[index]:
            if flat[near] == ROAD and there not in parent:
                parent[there] = cell
                queue.append((near, there))
    return MappingProxyType(parent)


@functools.lru_cache(maxsize=8)
def _neighbours(rows: int, cols: int) -> tuple[tuple[tuple[int, Cell], ...], ...]:
    """Per flat cell index, its on-board neighbours up, down, left, right as ``(flat index, cell)``."""
    around = [((r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1)) for r in range(rows) for c in range(cols)]
    return tuple(tuple((r * cols + c, (r, c)) for r, c in cells if 0 <= r < rows and 0 <= c < cols) for cells in around)


def to_ascii(state: PathState) -> list[str]:
    """Rows with ``S`` start, ``T`` end (target), letters for labels, ``#``, ``.`` (no marker).

    Example:
        >>> to_ascii(from_ascii(["S#", "BT"]))
        ['S#', 'BT']
    """
    rows = [list(row) for row in state.grid]
    rows[state.start[0]][state.start[1]] = "S"
    rows[state.end[0]][state.end[1]] = "T"
    for letter, (r, c) in state.labels:
        rows[r][c] = letter
    return ["".join(row) for row in rows]


def from_ascii(rows: Sequence[str]) -> PathState:
    """Inverse of ``to_ascii``; any rectangular size (fixtures). Raises ``StateError``."""
    if not rows or not rows[0] or any(len(row) != len(rows[0]) for row in rows):
        raise StateError("ascii path map must be a non-empty rectangle of rows")
    marks: dict[str, Cell] = {}
    grid = []
    for r, row in enumerate(rows):
        for c, char in enumerate(row):
            if char not in "#.ST" + LETTERS:
                raise StateError(f"unknown ascii path character {char!r} at ({r}, {c})")
            if char not in "#.":
                if char in marks:
                    raise StateError(f"ascii path map has more than one {char!r}")
                marks[char] = (r, c)
        grid.append("".join(WALL if char == WALL else ROAD for char in row))
    if "S" not in marks or "T" not in marks:
        raise StateError("ascii path map needs one start (S) and one end (T)")
    labels = tuple((letter, marks[letter]) for letter in LETTERS if letter in marks)
    return _checked(PathState(tuple(grid), marks["S"], marks["T"], labels))
