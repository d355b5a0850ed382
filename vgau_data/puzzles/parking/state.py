"""A parking position (vehicles and the exit row) and its JSON and ASCII forms."""

from __future__ import annotations

import functools
import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final, Literal

from vgau_data.errors import StateError
from vgau_data.puzzles.base import Direction, canonical_json
from vgau_data.puzzles.parking.search import SIZE

RED: Final = "R"
OTHER_IDS: Final = tuple(ch for ch in "BCDEFGHIJKLMNOPQSTUVWXYZA")
"""Names of the other vehicles in the order a generated board uses them, at most 25: from
``B``, as the authors name theirs (their prompts' example move is car ``A``, on no board),
``A`` last."""


Orientation = Literal["h", "v"]
Step = tuple[str, Direction]
"""``(vehicle_id, direction)``: one vehicle slides one cell."""


@dataclass(frozen=True, slots=True)
class Vehicle:
    """One vehicle: its id, top-left cell, length (2 or 3) and orientation."""

    id: str
    row: int
    col: int
    length: int
    orientation: Orientation

    @property
    def cells(self) -> tuple[tuple[int, int], ...]:
        """The cells it covers, top-left first."""
        if self.orientation == "h":
            return tuple((self.row, self.col + k) for k in range(self.length))
        return tuple((self.row + k, self.col) for k in range(self.length))


@dataclass(frozen=True, slots=True)
class ParkingState:
    """A position: the exit row and every vehicle, sorted by id."""

    exit_row: int
    vehicles: tuple[Vehicle, ...]
    size: int = SIZE


def to_json(state: ParkingState) -> str:
    """The canonical JSON of a state (docs/contract/states.md).

    Example:
        >>> to_json(from_ascii(["RR......>"] + ["........"] * 7))
        '{"exit_row":0,"size":8,"vehicles":[{"col":0,"id":"R","length":2,"orientation":"h","row":0}]}'
    """
    return canonical_json(
        {
            "size": state.size,
            "exit_row": state.exit_row,
            "vehicles": [
                {"id": v.id, "row": v.row, "col": v.col, "length": v.length, "orientation": v.orientation}
                for v in state.vehicles
            ],
        }
    )


def _int(value: object, what: str) -> int:
    if not isinstance(value, int) or isinstance(value, bool):
        raise StateError(f"parking {what} must be an integer, got {value!r:.40}")
    return value


def from_json(text: str) -> ParkingState:
    """Parse and fully validate the state JSON (docs/contract/states.md).

    Vehicles may come in any order; the state keeps them sorted by id.

    Raises:
        StateError: on malformed JSON, wrong keys or types, unknown ids, vehicles off the
            board or overlapping, or a red car that is missing or not on the exit row.

    Example:
        >>> s = from_json('{"size":8,"exit_row":2,"vehicles":[{"id":"R","row":2,"col":0,'
        ...     '"length":2,"orientation":"h"}]}')
        >>> s.vehicles[0].cells
        ((2, 0), (2, 1))
    """
    if not isinstance(text, str):
        raise StateError(f"parking state must be a JSON string, got {type(text).__name__}")
    try:
        obj = json.loads(text)
    except (ValueError, RecursionError) as e:
        raise StateError(f"parking state is not valid JSON: {e}") from e
    if not isinstance(obj, dict):
        raise StateError(f"parking state must be a JSON object, got {type(obj).__name__}")
    keys = {"size", "exit_row", "vehicles"}
    if set(obj) != keys:
        raise StateError(f"parking state needs exactly the keys {sorted(keys)}, got {sorted(obj)}")
    if _int(obj["size"], "'size'") != SIZE:
        raise StateError(f"parking 'size' must be {SIZE}, got {obj['size']}")
    exit_row = _int(obj["exit_row"], "'exit_row'")
    raw = obj["vehicles"]
    if not isinstance(raw, list):
        raise StateError("parking 'vehicles' must be a list of objects")
    vehicles = []
    for item in raw:
        if not isinstance(item, dict) or item.keys() != _VEHICLE_KEYS:
            raise StateError(
                f"parking vehicle must be an object with exactly the keys {sorted(_VEHICLE_KEYS)}, got {item!r:.80}"
            )
        vid, orientation, row, col, length = item["id"], item["orientation"], item["row"], item["col"], item["length"]
        if not isinstance(vid, str):
            raise StateError(f"parking vehicle id must be a string, got {vid!r:.40}")
        if orientation not in ("h", "v"):
            raise StateError(f"parking vehicle {vid!r:.10} orientation must be 'h' or 'v', got {orientation!r:.20}")
        if type(row) is not int or type(col) is not int or type(length) is not int:  # the common case, fast
            row, col, length = _int(row, "vehicle row"), _int(col, "vehicle col"), _int(length, "vehicle length")
        vehicles.append(_vehicle(vid, row, col, length, orientation))
    vehicles.sort(key=_vehicle_id)
    return _checked(ParkingState(exit_row, tuple(vehicles)))


_VEHICLE_KEYS: Final = frozenset({"id", "row", "col", "length", "orientation"})
_RUNS: Final = tuple((1 << n) - 1 for n in range(4))
"""``_RUNS[n]``: the bits of ``n`` cells side by side in a row, from bit 0."""
_COLUMNS: Final = tuple(sum(1 << (SIZE * k) for k in range(n)) for n in range(4))
"""``_COLUMNS[n]``: the bits of ``n`` cells one above the other, from bit 0."""


@functools.lru_cache(maxsize=8192)
def _vehicle(vid: str, row: int, col: int, length: int, orientation: Orientation) -> Vehicle:
    """One ``Vehicle`` per placement, shared (they are frozen): a board's vehicles are built on every parse."""
    return Vehicle(vid, row, col, length, orientation)


def _vehicle_id(vehicle: Vehicle) -> str:
    return vehicle.id


def _checked(state: ParkingState) -> ParkingState:
    """Validate the board: ids, lengths, bounds, overlaps and the red car."""
    if not 0 <= state.exit_row < SIZE:
        raise StateError(f"parking exit_row must be 0-{SIZE - 1}, got {state.exit_row}")
    occupied = 0  # one bit per cell: every state is parsed before it is scored, so this loop is hot
    seen: set[str] = set()
    for v in state.vehicles:
        if len(v.id) != 1 or not ("A" <= v.id <= "Z"):
            raise StateError(f"parking vehicle id must be one upper-case letter A-Z, got {v.id!r:.20}")
        if v.id in seen:
            raise StateError(f"parking vehicle id {v.id!r} appears twice")
        seen.add(v.id)
        if v.length not in (2, 3):
            raise StateError(f"parking vehicle {v.id} has length {v.length}; lengths are 2 or 3")
        horizontal = v.orientation == "h"
        last_row, last_col = (v.row, v.col + v.length - 1) if horizontal else (v.row + v.length - 1, v.col)
        if not (0 <= v.row < SIZE and 0 <= v.col < SIZE and last_row < SIZE and last_col < SIZE):
            r, c = next((r, c) for r, c in v.cells if not (0 <= r < SIZE and 0 <= c < SIZE))
            raise StateError(f"parking vehicle {v.id} covers {[r, c]}, outside the {SIZE}x{SIZE} board")
        cells = (_RUNS[v.length] if horizontal else _COLUMNS[v.length]) << (v.row * SIZE + v.col)
        if occupied & cells:
            _raise_overlap(state, v)
        occupied |= cells
    red = [v for v in state.vehicles if v.id == RED]
    if not red:
        raise StateError("parking state has no red car 'R'")
    if red[0].orientation != "h" or red[0].row != state.exit_row:
        raise StateError(f"parking red car must be horizontal on the exit row {state.exit_row}")
    return state


def _raise_overlap(state: ParkingState, vehicle: Vehicle) -> None:
    """Name the first cell ``vehicle`` shares with a vehicle before it (the error path of ``_checked``)."""
    taken: dict[tuple[int, int], str] = {}
    for v in state.vehicles:
        for cell in v.cells:
            if cell in taken and v is vehicle:
                raise StateError(f"parking vehicles {taken[cell]} and {v.id} overlap at {list(cell)}")
            taken.setdefault(cell, v.id)
        if v is vehicle:
            break


def from_ascii(rows: Sequence[str] | str) -> ParkingState:
    """A state from 8 text rows: ``.`` empty, a letter per vehicle cell, and ``>`` after the
    exit row (fixtures and debugging). Orientation follows from the cells' shape.

    Example:
        >>> s = from_ascii(["..A.....", "RRA.....>"] + ["........"] * 6)
        >>> s.exit_row, s.vehicles[0]
        (1, Vehicle(id='A', row=0, col=2, length=2, orientation='v'))
    """
    lines = [line.strip() for line in rows.strip().splitlines()] if isinstance(rows, str) else list(rows)
    if len(lines) != SIZE:
        raise StateError(f"parking ascii needs {SIZE} rows, got {len(lines)}")
    exits = [r for r, line in enumerate(lines) if line.endswith(">")]
    if len(exits) != 1:
        raise StateError("parking ascii needs exactly one row ending in '>' (the exit row)")
    cells: dict[str, list[tuple[int, int]]] = {}
    for r, line in enumerate(lines):
        body = line[:-1] if r == exits[0] else line
        if len(body) != SIZE:
            raise StateError(f"parking ascii row {r} must have {SIZE} cells, got {body!r}")
        for c, ch in enumerate(body):
            if ch != ".":
                cells.setdefault(ch, []).append((r, c))
    vehicles = []
    for vid, where in sorted(cells.items()):
        rows_, cols_ = {r for r, _ in where}, {c for _, c in where}
        orientation: Orientation = "h" if len(rows_) == 1 else "v"
        vehicle = Vehicle(vid, min(rows_), min(cols_), len(where), orientation)
        if set(vehicle.cells) != set(where):
            raise StateError(f"parking ascii vehicle {vid!r} is not a straight bar of cells")
        vehicles.append(vehicle)
    return _checked(ParkingState(exits[0], tuple(vehicles)))


def to_ascii(state: ParkingState) -> list[str]:
    """The text form read by ``from_ascii``.

    Example:
        >>> to_ascii(from_ascii(["RR......>"] + ["........"] * 7))[0]
        'RR......>'
    """
    grid = [["."] * SIZE for _ in range(SIZE)]
    for v in state.vehicles:
        for r, c in v.cells:
            grid[r][c] = v.id
    return ["".join(row) + (">" if r == state.exit_row else "") for r, row in enumerate(grid)]
