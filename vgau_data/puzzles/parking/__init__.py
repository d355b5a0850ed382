"""Parking (Rush Hour): slide the vehicles until the red car reaches the exit.

Board:
    8x8 cells holding vehicles of length 2 or 3, each horizontal (``h``, it fills cells of
    one row) or vertical (``v``, cells of one column); a vehicle sits at its top-left cell
    ``(row, col)``. The red car ``R`` is horizontal on ``exit_row``; the exit is an opening
    in the right wall at the end of that row. Other vehicles are named by single upper-case
    letters (``A``-``Z`` without ``R``).
Step:
    ``(vehicle_id, direction)``: one vehicle slides ONE cell along its orientation
    (horizontal: ``left``/``right``, vertical: ``up``/``down``). Illegal steps:
    ``unknown_vehicle`` (no such id), ``against_orientation`` (e.g. ``up`` for a horizontal
    vehicle), ``out_of_bounds`` (a vehicle would leave the board; ``R`` never drives out
    through the exit either), ``blocked`` (the cell it slides into is occupied).
Goal:
    ``R``'s rightmost cell is on column 7 of the exit row (otherwise ``not_solved``).
Buckets:
    ``optimal_length`` (fewest single-cell slides) 1-5 easy, 8-16 medium, 18-34 hard.
    Generation pins ``R`` on the exit of a densely packed random board, lists the goal
    positions the other vehicles reach with ``R`` parked there (small sets only), runs a
    retrograde BFS from them to just past the row's length, solves positions of the
    deepest layers forward and walks one whose optimum is at least that length along its
    optimal answer until exactly that length is left (see ``generate``). Boards are much
    denser than the authors' (about 25 vehicles against their 6-13): their sparse boards
    take the exhaustive solver seconds each, past the build's time budget.
Answer:
    ``<ANSWER_JSON>[{"car":"A","direction":"up"},...]</ANSWER_JSON>``; the last tagged list
    wins; car ids are case-insensitive and directions may be ``u d l r``. One interactive
    step is ``<STEP_JSON>{"car":"A","direction":"up"}</STEP_JSON>``.

The bit-board search behind ``solve`` and ``generate`` is ``parking_search``; drawing is
``parking_render``.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final, Literal

import numpy as np

from vgau_data.answers import answer_text, last_step_value, last_tagged, load_lenient, step_text
from vgau_data.errors import GenerationError, StateError
from vgau_data.puzzles.parking import fidelity as parking_fidelity
from vgau_data.puzzles.base import (
    AnswerError,
    Direction,
    FamilySpec,
    Illegal,
    Replay,
    Slot,
    Solution,
    canonical_json,
    draw_slot,
    parse_direction,
)
from vgau_data.puzzles.parking.render import GEOMETRY, render
from vgau_data.puzzles.parking.search import (
    EMPTY_LAYER,
    SIZE,
    Car,
    Layer,
    LayeredSearch,
    Search,
    bit,
    car_cells,
    cell_of,
    expand,
    independent_positions,
    positions_of,
    shortest_exit,
    to_layer,
)
from vgau_data.puzzles.prompts import FamilyPrompts

# ---------------------------------------------------------------------------- constants

NAME: Final = "parking"
BUCKETS: Final[dict[str, tuple[int, int]]] = {"easy": (1, 5), "medium": (8, 16), "hard": (18, 34)}
LENGTH_MIX: Final[dict[str, dict[int, int]]] = {
    "easy": {1: 5, 2: 3, 3: 2, 4: 6, 5: 4},
    "medium": {8: 7, 9: 3, 12: 8, 13: 6, 14: 2, 15: 3, 16: 1},
    "hard": {18: 6, 19: 11, 20: 6, 21: 2, 22: 8, 23: 4, 24: 2, 25: 3, 27: 1, 28: 7},
}
"""Rows per optimum in the authors' 100 published instances (their ``optimal_steps``, counted
once), except that their three longest hard rows (31, 31 and 34 slides) are built at 28:
boards that deep take our generator seconds each, past the build's time budget."""
RED: Final = "R"
OTHER_IDS: Final = tuple(ch for ch in "ABCDEFGHIJKLMNOPQRSTUVWXYZ" if ch != RED)
"""Names of the other vehicles, at most 25 of them."""
MAX_ANSWER_STEPS: Final = 1000
ANSWER_TAG: Final = "ANSWER_JSON"

TRUCK_SHARE: Final[dict[str, float]] = {"easy": 0.28, "medium": 0.32, "hard": 0.42}
"""Share of the other vehicles 3 cells long (the authors': 1.35 of 4.8, 2.73 of 8.47, 4.96 of 11.7)."""
VERTICAL_SHARE: Final[dict[str, float]] = {"easy": 0.51, "medium": 0.65, "hard": 0.57}
"""Share of the other vehicles that are vertical (the authors': 2.45 of 4.8, 5.47 of 8.47, 6.64 of 11.7)."""
STRUCTURE: Final[dict[str, tuple[float, float, float]]] = {
    "easy": (0.25, 0.25, 2.8),
    "medium": (2.87, 4.1, 5.6),
    "hard": (3.68, 8.12, 6.0),
}
"""The authors' means of vehicles in ``R``'s corridor, other vehicles an optimal answer
moves, and ``R``'s distance to the exit: candidate positions nearest them (on the first
and last, which need no search) are solved first."""
MAX_ATTEMPTS: Final = 4000
"""Boards sampled per instance; a hard instance needs about 60 on average (300 at worst in 40)."""
GOAL_CAP: Final = 150
"""Boards whose goal positions (``R`` parked on the exit) exceed this are dropped: small
goal sets make deep, narrow clusters, and dropping the rest early is the main speed-up."""
CLUSTER_CAP: Final = 60_000
"""States a retrograde search may visit before it stops at the layers found so far."""
CANDIDATES: Final = 6
"""Positions of one retrograde layer ordered by ``STRUCTURE`` and solved until one fits."""
DEPTH_SLACK: Final = 2
"""Retrograde layers explored beyond the wanted optimum (deeper ones cost more than they find)."""
SOLVE_MAX_STATES: Final = 3_000_000
"""``solve`` gives up past this many states (only loose, hand-made boards get near it)."""


# ---------------------------------------------------------------------------- state

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
    """SPEC §4's canonical JSON of a state.

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
    """Parse and fully validate SPEC §4's JSON.

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
    fields = {"id", "row", "col", "length", "orientation"}
    for item in raw:
        if not isinstance(item, dict) or set(item) != fields:
            raise StateError(
                f"parking vehicle must be an object with exactly the keys {sorted(fields)}, got {item!r:.80}"
            )
        vid, orientation = item["id"], item["orientation"]
        if not isinstance(vid, str):
            raise StateError(f"parking vehicle id must be a string, got {vid!r:.40}")
        if orientation not in ("h", "v"):
            raise StateError(f"parking vehicle {vid!r:.10} orientation must be 'h' or 'v', got {orientation!r:.20}")
        vehicles.append(
            Vehicle(
                vid,
                _int(item["row"], "vehicle row"),
                _int(item["col"], "vehicle col"),
                _int(item["length"], "vehicle length"),
                orientation,
            )
        )
    return _checked(ParkingState(exit_row, tuple(sorted(vehicles, key=lambda v: v.id))))


def _checked(state: ParkingState) -> ParkingState:
    """Validate the board: ids, lengths, bounds, overlaps and the red car."""
    if not 0 <= state.exit_row < SIZE:
        raise StateError(f"parking exit_row must be 0-{SIZE - 1}, got {state.exit_row}")
    taken: dict[tuple[int, int], str] = {}
    seen: set[str] = set()
    for v in state.vehicles:
        if len(v.id) != 1 or not ("A" <= v.id <= "Z"):
            raise StateError(f"parking vehicle id must be one upper-case letter A-Z, got {v.id!r:.20}")
        if v.id in seen:
            raise StateError(f"parking vehicle id {v.id!r} appears twice")
        seen.add(v.id)
        if v.length not in (2, 3):
            raise StateError(f"parking vehicle {v.id} has length {v.length}; lengths are 2 or 3")
        for r, c in v.cells:
            if not (0 <= r < SIZE and 0 <= c < SIZE):
                raise StateError(f"parking vehicle {v.id} covers {[r, c]}, outside the {SIZE}x{SIZE} board")
            if (r, c) in taken:
                raise StateError(f"parking vehicles {taken[(r, c)]} and {v.id} overlap at {[r, c]}")
            taken[(r, c)] = v.id
    red = [v for v in state.vehicles if v.id == RED]
    if not red:
        raise StateError("parking state has no red car 'R'")
    if red[0].orientation != "h" or red[0].row != state.exit_row:
        raise StateError(f"parking red car must be horizontal on the exit row {state.exit_row}")
    return state


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


# ---------------------------------------------------------------------------- rules

_AXIS: Final[dict[str, tuple[Orientation, int]]] = {
    "left": ("h", -1),
    "right": ("h", 1),
    "up": ("v", -1),
    "down": ("v", 1),
}
"""The orientation a direction needs and the sign of the slide."""


def apply_step(state: ParkingState, step: Step) -> ParkingState | Illegal:
    """Slide one vehicle one cell.

    Example:
        >>> s = from_ascii(["RR......>"] + ["........"] * 7)
        >>> apply_step(s, ("R", "right")).vehicles[0].col
        1
        >>> apply_step(s, ("R", "up")).code
        'against_orientation'
    """
    vid, direction = step
    axis = _AXIS.get(direction) if isinstance(direction, str) else None
    if axis is None:
        return Illegal("unknown_action", 0)
    vehicles = state.vehicles
    index = next((i for i, v in enumerate(vehicles) if v.id == vid), -1)
    if index < 0:
        return Illegal("unknown_vehicle", 0)
    v = vehicles[index]
    orientation, sign = axis
    if v.orientation != orientation:
        return Illegal("against_orientation", 0)
    if orientation == "h":
        row, col = v.row, v.col + sign
        cell = (row, col + v.length - 1 if sign > 0 else col)
    else:
        row, col = v.row + sign, v.col
        cell = (row + v.length - 1 if sign > 0 else row, col)
    if not (0 <= cell[0] < SIZE and 0 <= cell[1] < SIZE):
        return Illegal("out_of_bounds", 0)
    if any(cell in other.cells for other in vehicles if other is not v):
        return Illegal("blocked", 0)
    moved = Vehicle(v.id, row, col, v.length, v.orientation)
    return ParkingState(state.exit_row, vehicles[:index] + (moved,) + vehicles[index + 1 :], state.size)


def is_goal(state: ParkingState) -> bool:
    """``R``'s rightmost cell is on the last column (it is always on the exit row)."""
    red = next(v for v in state.vehicles if v.id == RED)
    return red.col + red.length == SIZE


def replay(state: ParkingState, answer: Sequence[Step]) -> Replay:
    """Play ``answer`` from ``state``; stop at the first illegal step.

    Same rules as ``apply_step``, on a dict of positions and an occupancy bitmask.

    Example:
        >>> s = from_ascii(["......RR>"] + ["........"] * 7)
        >>> replay(s, []).feasible, replay(s, [("R", "left"), ("R", "right")]).feasible
        (True, True)
        >>> replay(s, [("R", "right")]).error
        'out_of_bounds'
    """
    cars = {}
    occupied = 0
    for v in state.vehicles:
        fixed, offset = (v.row, v.col) if v.orientation == "h" else (v.col, v.row)
        cars[v.id] = [v.orientation, v.length, fixed, offset]
        for r, c in v.cells:
            occupied |= 1 << (r * SIZE + c)
    n = len(answer)
    for index, step in enumerate(answer):
        try:
            vid, direction = step
        except (TypeError, ValueError):
            return Replay(False, n, "bad_format", index)
        axis = _AXIS.get(direction) if isinstance(direction, str) else None
        if axis is None:
            return Replay(False, n, "unknown_action", index)
        car = cars.get(vid) if isinstance(vid, str) else None
        if car is None:
            return Replay(False, n, "unknown_vehicle", index)
        orientation, length, fixed, offset = car
        if axis[0] != orientation:
            return Replay(False, n, "against_orientation", index)
        if axis[1] > 0:
            enter, leave = offset + length, offset
        else:
            enter, leave = offset - 1, offset + length - 1
        if not 0 <= enter < SIZE:
            return Replay(False, n, "out_of_bounds", index)
        if orientation == "h":
            enter_bit, leave_bit = 1 << (fixed * SIZE + enter), 1 << (fixed * SIZE + leave)
        else:
            enter_bit, leave_bit = 1 << (enter * SIZE + fixed), 1 << (leave * SIZE + fixed)
        if occupied & enter_bit:
            return Replay(False, n, "blocked", index)
        occupied ^= enter_bit | leave_bit
        car[3] = offset + axis[1]
    red = cars[RED]
    if red[3] + red[1] != SIZE:
        return Replay(False, n, "not_solved", n)
    return Replay(True, n)



# ---------------------------------------------------------------------------- solver


def _car(v: Vehicle) -> Car:
    return (v.orientation, v.length, v.row, v.col) if v.orientation == "h" else (v.orientation, v.length, v.col, v.row)


@functools.lru_cache(maxsize=256)
def solve(state: ParkingState, max_states: int = SOLVE_MAX_STATES) -> Solution | None:
    """The fewest single-cell slides that park ``R`` on the exit, by exhaustive forward BFS.

    Returns None when no sequence of slides reaches the goal. Cached (states are
    immutable), so the builder's call after ``generate`` costs nothing. The search itself
    is ``parking_search.shortest_exit``.

    Raises:
        SearchLimitError: when more than ``max_states`` positions were met first.

    Example:
        >>> solve(from_ascii(["....RR..>"] + ["........"] * 7))
        Solution(answer=(('R', 'right'), ('R', 'right')), optimal_length=2)
    """
    ids = [v.id for v in state.vehicles]
    cars = [_car(v) for v in state.vehicles]
    slides = shortest_exit(Search(cars), ids.index(RED), (state.exit_row, SIZE - 1), max_states)
    if slides is None:
        return None
    steps: list[Step] = []
    for index, forward in slides:
        horizontal = cars[index][0] == "h"
        direction: Direction = ("right" if forward else "left") if horizontal else ("down" if forward else "up")
        steps.append((ids[index], direction))
    return Solution(tuple(steps), len(steps))


# ---------------------------------------------------------------------------- generator

_PLACEMENTS: Final = tuple(
    (car, sum(bit(cell) for cell in car_cells(car)))
    for car in (
        (orientation, length, fixed, offset)
        for orientation in ("h", "v")
        for length in (2, 3)
        for fixed in range(SIZE)
        for offset in range(SIZE - length + 1)
    )
)
"""Every way to put one car on the empty board, with its cell mask, grouped by (orientation, length)."""
_CLASHES: Final = tuple(
    sum(1 << j for j, (_, other) in enumerate(_PLACEMENTS) if other & mask) for _, mask in _PLACEMENTS
)
"""Per placement, the set of placements (bit j: ``_PLACEMENTS[j]``) that share a cell with it."""
_KINDS: Final = {
    (orientation, length): sum(1 << j for j, (car, _) in enumerate(_PLACEMENTS) if car[:2] == (orientation, length))
    for orientation in ("h", "v")
    for length in (2, 3)
}
"""Per (orientation, length), the set of placements of that kind."""


def _nth_member(members: int, n: int) -> int:
    """The index of the ``n``-th (from 0) set bit of ``members``, lowest first."""
    for _ in range(n):
        members &= members - 1
    return (members & -members).bit_length() - 1


def generate(
    difficulty: str, rng: np.random.Generator, slot: Slot | None = None, *, max_attempts: int = MAX_ATTEMPTS
) -> ParkingState:
    """An 8x8 board whose true optimum is exactly ``slot.length``.

    The exit row is drawn once, uniformly. Each attempt packs a board around ``R`` parked
    on the exit (``_sample_board``; ``TRUCK_SHARE`` and ``VERTICAL_SHARE`` of the cars as
    the authors'), lists the goal positions the other cars reach with ``R`` parked
    (dropping the board past ``GOAL_CAP``) and scrambles backward: a retrograde BFS from
    them. Up to ``CANDIDATES`` positions from each of the three deepest layers, those
    nearest ``STRUCTURE`` first, are solved forward by ``solve``; the first whose optimum
    ``d`` is at least the slot's length, walked ``d - length`` slides along its optimal
    answer, is returned: its optimum is exactly the slot's. The retrograde depth is only
    an upper bound (goal positions that need ``R`` to back out and return may lie beyond
    the explored layers), which is why the forward solve decides.

    Raises:
        ValueError: for an unknown difficulty or a slot length outside the bucket.
        GenerationError: when nothing fits in ``max_attempts`` boards.

    Example:
        >>> s = generate("medium", np.random.default_rng(0))
        >>> 8 <= solve(s).optimal_length <= 16
        True
    """
    if difficulty not in BUCKETS:
        raise ValueError(f"unknown difficulty {difficulty!r}; choose from {list(BUCKETS)}")
    slot = slot or draw_slot(LENGTH_MIX, difficulty, rng)
    low, high = BUCKETS[difficulty]
    if not low <= slot.length <= high:
        raise ValueError(f"parking/{difficulty}: length {slot.length} is outside {low}-{high}")
    exit_row = int(rng.integers(SIZE))  # uniform: edge rows would win more often per board
    blockers, _, distance = STRUCTURE[difficulty]
    wanted = (int(blockers + slot.quantile), int(distance + (slot.quantile + 0.5) % 1.0))
    for _ in range(max_attempts):
        cars = _sample_board(exit_row, difficulty, rng)
        state = _from_cluster(exit_row, cars, slot.length, min(high, slot.length + DEPTH_SLACK), wanted, rng)
        if state is not None:
            return state
    raise GenerationError(f"parking/{difficulty}: no state of length {slot.length} in {max_attempts} boards")


def _sample_board(exit_row: int, difficulty: str, rng: np.random.Generator) -> list[Car]:
    """A dense random board with ``R`` (always ``cars[0]``) parked on the exit.

    The exit row holds ``R`` and one or two vertical cars crossing it; most often a
    vertical car waits just above or below each of the exit row's last two cells (they
    drop in behind ``R`` as it backs out). Every other row is packed with random cars
    (``VERTICAL_SHARE`` vertical, ``TRUCK_SHARE`` of length 3) until nothing fits or 25
    others are placed.
    """
    draws = iter(rng.random(160).tolist())
    red = ("h", 2, exit_row, SIZE - 2)
    cars = [red]
    occupied = sum(bit(cell) for cell in car_cells(red))

    def place(car: Car) -> None:
        nonlocal occupied
        mask = sum(bit(cell) for cell in car_cells(car))
        if not mask & occupied:
            cars.append(car)
            occupied |= mask

    columns = list(range(SIZE - 2))
    for _ in range(1 + int(next(draws) * 2)):
        col = columns.pop(int(next(draws) * len(columns)))
        length = 3 if next(draws) < 0.4 else 2
        first, last = max(0, exit_row - length + 1), min(exit_row, SIZE - length)
        place(("v", length, col, first + int(next(draws) * (last - first + 1))))
    for col in (SIZE - 2, SIZE - 1):
        if next(draws) < 0.8:
            length = 3 if next(draws) < 0.4 else 2
            tops = [top for top in (exit_row - length, exit_row + 1) if 0 <= top <= SIZE - length]
            place(("v", length, col, tops[int(next(draws) * len(tops))]))
    taken = occupied | 0xFF << (exit_row * SIZE)
    free = sum(1 << j for j, (_, mask) in enumerate(_PLACEMENTS) if not mask & taken)  # a set of placements
    while free and len(cars) < 1 + len(OTHER_IDS):
        orientation = "v" if next(draws) < VERTICAL_SHARE[difficulty] else "h"
        length = 3 if next(draws) < TRUCK_SHARE[difficulty] else 2
        kind = free & _KINDS[orientation, length] or free  # in _PLACEMENTS order, as a list would be
        chosen = _nth_member(kind, int(next(draws) * kind.bit_count()))
        cars.append(_PLACEMENTS[chosen][0])
        free &= ~_CLASHES[chosen]
    return cars


def _from_cluster(
    exit_row: int, cars: list[Car], target: int, depth_cap: int, wanted: tuple[int, int], rng: np.random.Generator
) -> ParkingState | None:
    """A position of ``cars``' cluster whose optimum is exactly ``target``, if one is found.

    Candidates from the deepest retrograde layers (down to ``depth_cap``), those whose
    corridor blockers and ``R`` distance are nearest ``wanted`` first, are solved forward;
    the first whose optimum ``d`` is ``target`` or more is walked ``d - target`` slides
    along its optimal answer (the rest of an optimal answer stays optimal).
    """
    if independent_positions(cars, 0) > GOAL_CAP:  # too many goal positions, known without a search
        return None
    search = Search(cars)
    if 0 not in search.slots:
        return None
    red_shift = 3 * search.slots.index(0)
    goal = SIZE - 2
    others = [move for move in search.moves if move[0] != red_shift]
    start = (search.key, search.occupied)
    goals = [start]
    seen = {search.key: 0}
    frontier = goals
    while frontier:  # goal positions: R parked, the others slide
        frontier = expand(frontier, others, seen, 0, GOAL_CAP - len(goals))
        goals += frontier
        if len(goals) > GOAL_CAP:
            return None
    layered = LayeredSearch(search)
    red_slot = search.slots.index(0)
    layers: list[Layer] = []
    for _ in range(4):  # a goal position met later (R backed out and came back) restarts
        frontier, before = to_layer(goals), EMPTY_LAYER
        layers, count, late = [frontier], len(goals), []
        while len(frontier[0]) and len(layers) <= depth_cap and count <= CLUSTER_CAP:
            frontier, before = layered.expand(frontier, before), frontier
            parked = np.flatnonzero(layered.offsets(frontier, red_slot) == goal)
            if len(parked):
                late = positions_of(frontier, parked.tolist())
                break
            if len(frontier[0]):
                layers.append(frontier)
                count += len(frontier[0])
        if not late:
            break
        seen = dict.fromkeys((key for key, _ in goals), 0)
        for key, _ in late:
            seen[key] = 0
        goals = goals + late
        frontier_positions = late
        while frontier_positions:
            frontier_positions = expand(frontier_positions, others, seen, 0, 4 * GOAL_CAP - len(goals))
            goals += frontier_positions
            if len(goals) > 4 * GOAL_CAP:
                return None
    else:
        return None
    deepest = len(layers) - 1
    for depth in range(deepest, max(target, deepest - 2) - 1, -1):  # the deepest three layers
        layer = layers[depth]
        chosen = rng.choice(len(layer[0]), size=min(len(layer[0]), CANDIDATES), replace=False).tolist()
        picks = [search.offsets(key) for key, _ in positions_of(layer, chosen)]
        picks.sort(key=lambda o: abs(_blockers(exit_row, cars, o) - wanted[0]) + abs(SIZE - 2 - o[0] - wanted[1]))
        for offsets in picks:
            state = _state(exit_row, cars, offsets)
            solution = solve(state)
            if solution is None or solution.optimal_length < target:
                continue
            for step in solution.answer[: solution.optimal_length - target]:
                state = apply_step(state, step)  # type: ignore[assignment]
            return state
    return None


def _blockers(exit_row: int, cars: list[Car], offsets: list[int]) -> int:
    """How many cars stand in ``R``'s corridor (exit row, right of ``R``)."""
    red_end = offsets[0] + cars[0][1]
    count = 0
    for (orientation, length, fixed, _), offset in zip(cars[1:], offsets[1:]):
        if orientation == "v":
            count += red_end <= fixed and offset <= exit_row < offset + length
        else:
            count += fixed == exit_row and offset >= red_end
    return count


def _state(exit_row: int, cars: list[Car], offsets: list[int]) -> ParkingState:
    """The state of ``cars`` at ``offsets``; other ids go A, B, ... in reading order."""
    placed = [
        (cell_of(orientation, fixed, offset), length, orientation)
        for (orientation, length, fixed, _), offset in zip(cars, offsets)
    ]
    red = Vehicle(RED, *placed[0][0], placed[0][1], "h")
    rest = sorted(placed[1:])
    vehicles = [
        Vehicle(vid, r, c, length, orientation)  # type: ignore[arg-type]
        for vid, ((r, c), length, orientation) in zip(OTHER_IDS, rest)
    ]
    return ParkingState(exit_row, tuple(sorted(vehicles + [red], key=lambda v: v.id)))


# ---------------------------------------------------------------------------- answers


def parse_answer(text: str) -> tuple[Step, ...]:
    """The steps of the last ``<ANSWER_JSON>[...]</ANSWER_JSON>`` in ``text``.

    Each step is an object ``{"car": id, "direction": d}`` (keys case-insensitive, extra
    keys ignored); ids are one letter, any case; directions take the ``u d l r`` forms.

    Raises:
        AnswerError: ``no_answer`` (no tagged answer), ``bad_format`` (not a list of such
            objects, a car that is not one letter, or more than 1000 steps),
            ``unknown_action`` (not a direction).

    Example:
        >>> parse_answer("<answer_json>[{'car': 'a', 'direction': 'U'},]</answer_json>")
        (('A', 'up'),)
    """
    text = answer_text(text)
    payload = last_tagged(text, ANSWER_TAG)
    if payload is None:
        raise AnswerError("no_answer", f"no <{ANSWER_TAG}>...</{ANSWER_TAG}> found")
    value = load_lenient(payload)
    if not isinstance(value, list):
        raise AnswerError("bad_format", 'the answer must be a JSON list of {"car": ..., "direction": ...}')
    if len(value) > MAX_ANSWER_STEPS:
        raise AnswerError("bad_format", f"{len(value)} steps (more than {MAX_ANSWER_STEPS})")
    return tuple(_step_of(item) for item in value)


def _step_of(item: object) -> Step:
    """One ``{"car": id, "direction": d}`` object as a step (keys case-insensitive)."""
    if not isinstance(item, dict):
        raise AnswerError("bad_format", 'every step must be an object {"car": ..., "direction": ...}')
    fields = {str(key).strip().lower(): field for key, field in item.items()}
    car, direction = fields.get("car"), fields.get("direction")
    if not isinstance(car, str) or not isinstance(direction, str):
        raise AnswerError("bad_format", 'every step needs a string "car" and a string "direction"')
    car = car.strip().upper()
    if len(car) != 1 or not ("A" <= car <= "Z"):
        raise AnswerError("bad_format", f"a car is one letter A-Z, got {car!r:.20}")
    return (car, parse_direction(direction))


def parse_step(text: str) -> Step:
    """The step in the last ``<STEP_JSON>{"car": ..., "direction": ...}</STEP_JSON>`` of a reply.

    Example:
        >>> parse_step('Free the way. <STEP_JSON>{"car":"b","direction":"Up"}</STEP_JSON>')
        ('B', 'up')
    """
    return _step_of(last_step_value(text))


def format_step(step: Step) -> str:
    """One step in the per-turn format.

    Example:
        >>> format_step(("R", "right"))
        '<STEP_JSON>{"car":"R","direction":"right"}</STEP_JSON>'
    """
    car, direction = step
    return step_text({"car": car, "direction": direction})


def answer_payload(answer: Sequence[Step]) -> str:
    """The JSON list stored in the dataset's ``solution`` column.

    Example:
        >>> answer_payload([("A", "up"), ("R", "right")])
        '[{"car":"A","direction":"up"},{"car":"R","direction":"right"}]'
    """
    return canonical_json([{"car": car, "direction": direction} for car, direction in answer])


def format_answer(answer: Sequence[Step]) -> str:
    """The answer in SPEC §3's format, tags included.

    Example:
        >>> format_answer([("B", "down")])
        '<ANSWER_JSON>[{"car":"B","direction":"down"}]</ANSWER_JSON>'
    """
    return f"<{ANSWER_TAG}>{answer_payload(answer)}</{ANSWER_TAG}>"


# ---------------------------------------------------------------------------- prompts
# Table 15 (Text-CoT), 20 (Self-GtA), 28 (Self-VCoT) and 33 (Self-VR), in our own words;
# the board size and the exit row come from the state, as the paper's templates fill them.


def _legend(state: ParkingState) -> str:
    return (
        f"The image shows a parking-exit puzzle on a board of {state.size}x{state.size} cells. Each vehicle covers "
        'two or three cells of one row or one column and carries its letter; the red car is "R". The exit is '
        f"the opening in the right edge of the board, on row index {state.exit_row} (0-based)."
    )


def _rules(state: ParkingState) -> str:
    return (
        "Rules: 1) every vehicle keeps its orientation, horizontal or vertical; 2) one move slides exactly "
        "one vehicle by one cell along its orientation; 3) vehicles never overlap and never leave the board; "
        f'4) the puzzle is solved when the rightmost cell of the red car "R" reaches the right edge of the '
        f"board on row index {state.exit_row} (rows are numbered from 0 at the top)."
    )


PROMPTS: Final = FamilyPrompts(
    legend=_legend,
    rules=_rules,
    reasoning="find the vehicles that block the red car's way to the exit row's right edge and plan the "
    "slides that clear it.",
    answer_format='Give the final moves as one JSON list of objects inside ANSWER_JSON tags, for example '
    '<ANSWER_JSON>[{"car":"A","direction":"up"},{"car":"R","direction":"right"}]</ANSWER_JSON>.',
    step="slide of one vehicle by one cell",
    step_format='<STEP_JSON>{"car":"A","direction":"right"}</STEP_JSON> with the vehicle\'s letter and '
    "up, down, left or right.",
    image_change="only the moved vehicle has changed position",
    labelled_cells="every cell",
    solution_drawing=(
        "Add visual hints of a workable strategy, such as numbered markers or direction cues next to the "
        "vehicles, placed on board cells only. The hints stand for legal one-cell slides: no vehicle turns, "
        "and none overlaps another. Do not move any vehicle in the image."
    ),
    solution_shows="hints of a strategy that gets the red car to the exit",
)


def random_answer(state: ParkingState, rng: np.random.Generator) -> tuple[Step, ...]:
    """4 to 30 random slides, each of a vehicle on the board along its own axis (baseline).

    Example:
        >>> len(random_answer(from_ascii(["RR......>"] + ["........"] * 7), np.random.default_rng(0))) >= 4
        True
    """
    length = int(rng.integers(4, 31))
    steps: list[Step] = []
    for k, side in zip(rng.integers(len(state.vehicles), size=length), rng.integers(2, size=length)):
        v = state.vehicles[int(k)]
        options: tuple[Direction, Direction] = ("left", "right") if v.orientation == "h" else ("up", "down")
        steps.append((v.id, options[int(side)]))
    return tuple(steps)


def _solve(state: ParkingState) -> Solution | None:
    return solve(state)


SPEC = FamilySpec(
    name=NAME,
    buckets=BUCKETS,
    geometry=GEOMETRY,
    from_json=from_json,
    to_json=to_json,
    generate=generate,
    length_mix=LENGTH_MIX,
    solve=_solve,
    replay=replay,
    render=render,
    parse_answer=parse_answer,
    format_answer=format_answer,
    answer_payload=answer_payload,
    prompts=PROMPTS,
    random_answer=random_answer,
    apply_step=apply_step,
    is_goal=is_goal,
    answer_tag=ANSWER_TAG,
    parse_step=parse_step,
    format_step=format_step,
    generation_weight=3.0,
    cell_labels=parking_fidelity.cell_labels,
    palette_states=functools.partial(parking_fidelity.palette_states, Vehicle, ParkingState),
    perturb=parking_fidelity.perturb,
    sketch=parking_fidelity.sketch,
)
