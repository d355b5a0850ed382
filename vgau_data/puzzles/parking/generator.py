"""Boards packed around the parked red car and scrambled backward by retrograde search."""

from __future__ import annotations

from typing import Final

import numpy as np

from vgau_data.errors import GenerationError
from vgau_data.puzzles.base import Slot, draw_slot
from vgau_data.puzzles.parking.rules import apply_step
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
    to_layer,
)
from vgau_data.puzzles.parking.solver import solve
from vgau_data.puzzles.parking.state import OTHER_IDS, RED, ParkingState, Vehicle

BUCKETS: Final[dict[str, tuple[int, int]]] = {"easy": (1, 5), "medium": (8, 16), "hard": (18, 34)}
LENGTH_MIX: Final[dict[str, dict[int, int]]] = {
    "easy": {1: 5, 2: 3, 3: 2, 4: 6, 5: 4},
    "medium": {8: 7, 9: 3, 12: 8, 13: 6, 14: 2, 15: 3, 16: 1},
    "hard": {18: 6, 19: 11, 20: 6, 21: 2, 22: 8, 23: 4, 24: 2, 25: 3, 27: 1, 28: 7},
}
"""Rows per optimum in the authors' 100 published instances (their ``optimal_steps``, counted
once), except that their three longest hard rows (31, 31 and 34 slides) are built at 28:
boards that deep take our generator seconds each, past the build's time budget."""


TRUCK_SHARE: Final[dict[str, float]] = {"easy": 0.28, "medium": 0.32, "hard": 0.42}
"""Share of the other vehicles 3 cells long (the authors': 1.35 of 4.8, 2.73 of 8.47, 4.96 of 11.7)."""
VERTICAL_SHARE: Final[dict[str, float]] = {"easy": 0.51, "medium": 0.65, "hard": 0.57}
"""Share of the other vehicles that are vertical (the authors': 2.45 of 4.8, 5.47 of 8.47, 6.64 of 11.7)."""
STRUCTURE_TARGETS: Final[dict[str, tuple[float, float, float]]] = {
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
"""Positions of one retrograde layer ordered by ``STRUCTURE_TARGETS`` and solved until one fits."""
DEPTH_SLACK: Final = 2
"""Retrograde layers explored beyond the wanted optimum (deeper ones cost more than they find)."""


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
    nearest ``STRUCTURE_TARGETS`` first, are solved forward by ``solve``; the first whose optimum
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
    blockers, _, distance = STRUCTURE_TARGETS[difficulty]
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
