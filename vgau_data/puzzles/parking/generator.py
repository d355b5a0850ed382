"""Boards built like the authors': sparse and tight around ``R`` on row 3, loose ones kept too.

The authors' boards (``structure.AUTHORS``) hold 5-14 vehicles, rising with difficulty,
with the exit on row 3 in every record. Their hard boards are jammed: each vehicle has
about one free slide on average. So each row here is:

1. targets from the authors' bucket means, spread over a bucket's rows by the slot's
   quantile (``_targets``): how many other vehicles, trucks, vertical ones, blockers in
   ``R``'s corridor, and ``R``'s distance to the exit;
2. a random board meeting them, drawn until it is as tight as the authors' (``_board``);
3. easy rows: that board, if the solver finds exactly the row's optimum. Medium and hard
   rows: the positions of the board's cluster with ``R`` held in place (all of them, or
   the ``REGION`` nearest the drawn board when it is looser: ``_clearing_layer``), then
   those exactly ``optimum - distance`` slides from one whose corridor is clear. Driving
   ``R`` out after clearing its way is one answer, so their optimum is at most the row's;
   ``solver.solve_at`` proves whether it is exactly the row's (no answer one slide
   shorter), and the first candidate that is (blocker count nearest the target first) is
   the row. No board is dropped for its size: about a quarter of the hard rows come from
   boards of more than 300,000 positions, as about a quarter of the authors' do
   (``structure.AUTHORS_LOOSE``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

import numpy as np

from vgau_data.errors import GenerationError
from vgau_data.puzzles.base import Slot, bucket_slot
from vgau_data.puzzles.parking.search import (
    SIZE,
    Car,
    LayeredSearch,
    Search,
    SearchLimitError,
    bit,
    car_mask,
    cell_of,
)
from vgau_data.puzzles.parking.solver import solve, solve_at
from vgau_data.puzzles.parking.state import OTHER_IDS, RED, ParkingState, Vehicle
from vgau_data.puzzles.parking.structure import AUTHORS

BUCKETS: Final[dict[str, tuple[int, int]]] = {"easy": (1, 5), "medium": (8, 16), "hard": (18, 34)}
LENGTH_MIX: Final[dict[str, dict[int, int]]] = {
    "easy": {1: 5, 2: 3, 3: 2, 4: 6, 5: 4},
    "medium": {8: 7, 9: 3, 12: 8, 13: 6, 14: 2, 15: 3, 16: 1},
    "hard": {18: 6, 19: 11, 20: 6, 21: 2, 22: 8, 23: 4, 24: 2, 25: 3, 27: 1, 28: 4, 31: 2, 34: 1},
}
"""Rows per optimum in the authors' 100 published instances (their ``optimal_steps``)."""
EXIT_ROW: Final = 3
"""The authors' exit row in every record (their manifest counts it from 1: ``exit_row`` 4)."""
TIGHTNESS: Final[dict[str, int]] = {"easy": 64, "medium": 22, "hard": 16}
"""The most free slides a board may offer in total (each vehicle's slides with the others
held): the authors' medium and hard boards offer 21.5 and 15 on average (easy boards are not
searched, so they are left as drawn)."""
REGION: Final = 300_000
"""Positions of a cluster with ``R`` held searched around the drawn board (see ``_clearing_layer``)."""
MAX_STATES: Final = 20 * REGION
"""Positions a search of a region may meet (its last layer can overshoot ``REGION``); past it the board is dropped."""
CANDIDATES: Final = 4
"""Positions of the clearing layer tried with the solver before the board is dropped."""
MAX_ATTEMPTS: Final = 5000
"""Boards drawn per row; the deepest rows need a few hundred."""
_SPREAD: Final = 3
"""Integer targets vary over this many values across a bucket's rows (mean preserved)."""
BLOCKER_SPREAD: Final[dict[str, int]] = {"easy": 1, "medium": _SPREAD, "hard": 1}
"""How many blocker counts a bucket's rows take: the authors' hard boards have 3 or 4
(49 of 50), their medium ones 2 to 5."""
VEHICLE_RANGE: Final[dict[str, tuple[int, int]]] = {"easy": (5, 7), "medium": (8, 10), "hard": (11, 14)}
"""The fewest and most vehicles on the authors' boards of each bucket."""
VEHICLES_PER_SLIDE: Final[dict[str, float]] = {"easy": 0.38, "medium": 0.22, "hard": 0.2}
"""Vehicles more per slide of optimum within a bucket: the authors' slope in easy and
medium; in hard (theirs: 0.03) longer rows get more, because deep positions are rare on
boards with few vehicles (none at 31-34 slides in 28 boards of 11 vehicles)."""


@dataclass(frozen=True, slots=True)
class Targets:
    """One row's structure: other vehicles, trucks and vertical ones among them, vehicles
    in ``R``'s corridor, and ``R``'s distance to the exit."""

    others: int
    trucks: int
    vertical: int
    blockers: int
    red_distance: int


def generate(
    difficulty: str, rng: np.random.Generator, slot: Slot | None = None, *, max_attempts: int = MAX_ATTEMPTS
) -> ParkingState:
    """An 8x8 board whose true optimum is exactly ``slot.length`` (see the module docstring).

    Raises:
        ValueError: for an unknown difficulty or a slot length outside the bucket.
        GenerationError: when nothing fits in ``max_attempts`` boards.

    Example:
        >>> s = generate("medium", np.random.default_rng(0))
        >>> 8 <= solve(s).optimal_length <= 16
        True
    """
    slot = bucket_slot("parking", BUCKETS, LENGTH_MIX, difficulty, rng, slot)
    targets = _targets(difficulty, slot)
    for _ in range(max_attempts):
        cars = _board(targets, TIGHTNESS[difficulty], rng)
        if cars is None:
            continue
        state = _easy(cars, slot.length) if difficulty == "easy" else _cleared(cars, targets, slot.length, rng)
        if state is not None:
            return state
    raise GenerationError(f"parking/{difficulty}: no state of length {slot.length} in {max_attempts} boards")


def _targets(difficulty: str, slot: Slot) -> Targets:
    """The authors' bucket means as one row's integers, spread by the slot's quantile.

    Each figure takes its own low-discrepancy stream (the quantile times a different
    integer), so a bucket's rows average the authors' figure and the figures vary apart;
    vehicles also rise with the row's optimum (``VEHICLES_PER_SLIDE``), within the
    authors' range.
    Easy rows put one blocker on half the rows of 4 and 5 slides (the authors' 5 of 20);
    their ``R`` drives the rest of the optimum.
    """
    means = AUTHORS[difficulty]

    def spread(mean: float, stream: int, width: int = _SPREAD) -> int:
        return int(np.floor(mean - width / 2 + width * ((slot.quantile * stream) % 1.0) + 0.5))

    mix = LENGTH_MIX[difficulty]
    mean_length = sum(length * rows for length, rows in mix.items()) / sum(mix.values())
    fewest, most = VEHICLE_RANGE[difficulty]
    vehicles = means["vehicles"] + VEHICLES_PER_SLIDE[difficulty] * (slot.length - mean_length)
    others = min(most, max(fewest, spread(vehicles, 1, 2))) - 1
    trucks = min(others, max(0, spread(means["trucks"] * others / (means["vehicles"] - 1), 2, 1)))
    vertical = min(others, max(0, spread(means["vertical"] * others / (means["vehicles"] - 1), 3, 1)))
    if difficulty == "easy":
        blockers = int(slot.length >= 4 and (slot.quantile * 5) % 1.0 < 0.5)
        return Targets(others, trucks, max(vertical, blockers), blockers, slot.length - blockers)
    red_distance = min(SIZE - 2, spread(means["red_distance"], 7, 1))
    blockers = min(vertical, red_distance, spread(means["blockers"], 5, BLOCKER_SPREAD[difficulty]))
    return Targets(others, trucks, vertical, blockers, red_distance)


_PLACEMENTS: Final = tuple(
    (car, car_mask(car))
    for car in (
        (orientation, length, fixed, offset)
        for orientation in ("h", "v")
        for length in (2, 3)
        for fixed in range(SIZE)
        for offset in range(SIZE - length + 1)
    )
)
"""Every way to put one car on the empty board, with its cell mask."""
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
_CROSSING: Final = {
    column: sum(
        1 << j
        for j, ((orientation, length, fixed, offset), _) in enumerate(_PLACEMENTS)
        if orientation == "v" and fixed == column and offset <= EXIT_ROW < offset + length
    )
    for column in range(SIZE)
}
"""Per column, the vertical placements that cross the exit row there."""


def _board(targets: Targets, tightness: int, rng: np.random.Generator) -> list[Car] | None:
    """A random board meeting ``targets`` (``R`` is ``cars[0]``), or None when it is too loose.

    ``R`` stands ``targets.red_distance`` cells from the exit; ``targets.blockers``
    vertical cars cross the exit row in distinct columns of its corridor; then the other
    cars, in a random order, each at a random free placement of its kind outside the
    corridor.
    """
    red_column = SIZE - 2 - targets.red_distance
    red: Car = ("h", 2, EXIT_ROW, red_column)
    corridor = sum(bit((EXIT_ROW, column)) for column in range(red_column + 2, SIZE))
    kinds = ["v"] * targets.vertical + ["h"] * (targets.others - targets.vertical)
    lengths = [3] * targets.trucks + [2] * (targets.others - targets.trucks)
    order = rng.permutation(targets.others).tolist()
    cars = [red]
    occupied = car_mask(red)
    free = sum(1 << j for j, (_, mask) in enumerate(_PLACEMENTS) if not mask & (occupied | corridor))
    columns = rng.permutation(np.arange(red_column + 2, SIZE))[: targets.blockers].tolist()
    verticals = [i for i in order if kinds[i] == "v"]
    first = verticals[: targets.blockers]
    for i in first + [i for i in order if i not in first]:
        kind = _KINDS[kinds[i], lengths[i]]
        if i in first:  # it crosses the exit row in its own column: the one corridor cell it takes
            crossing = kind & _CROSSING[columns[first.index(i)]]
            choices = sum(1 << j for j in _bits(crossing) if not _PLACEMENTS[j][1] & occupied)
        else:
            choices = kind & free
        if not choices:
            return None
        chosen = _nth_member(choices, int(rng.integers(choices.bit_count())))
        cars.append(_PLACEMENTS[chosen][0])
        occupied |= _PLACEMENTS[chosen][1]
        free &= ~_CLASHES[chosen]
    return cars if _free_slides(cars) <= tightness else None


def _bits(members: int) -> list[int]:
    """The indices of the set bits of ``members``, lowest first."""
    indices = []
    while members:
        low = members & -members
        indices.append(low.bit_length() - 1)
        members ^= low
    return indices


def _nth_member(members: int, n: int) -> int:
    """The index of the ``n``-th (from 0) set bit of ``members``, lowest first."""
    for _ in range(n):
        members &= members - 1
    return (members & -members).bit_length() - 1


def _free_slides(cars: list[Car]) -> int:
    """How far every car can slide, both ways, with the others where they are (summed)."""
    occupied = sum(car_mask(car) for car in cars)
    total = 0
    for orientation, length, fixed, offset in cars:
        low = offset
        while low > 0 and not occupied & bit(cell_of(orientation, fixed, low - 1)):
            low -= 1
        high = offset
        while high + length < SIZE and not occupied & bit(cell_of(orientation, fixed, high + length)):
            high += 1
        total += high - low
    return total


def _easy(cars: list[Car], length: int) -> ParkingState | None:
    """The drawn board itself, if its optimum is exactly ``length``."""
    state = _state(cars, [car[3] for car in cars])
    solution = solve(state)
    return state if solution is not None and solution.optimal_length == length else None


def _cleared(cars: list[Car], targets: Targets, length: int, rng: np.random.Generator) -> ParkingState | None:
    """A position of ``cars``' cluster with ``R`` in place whose optimum is exactly ``length``."""
    search = Search(cars, held=(0,))
    layered = LayeredSearch(search)
    layer = _clearing_layer(search, layered, length - targets.red_distance)
    if layer is None:
        return None
    blockers = np.zeros(len(layer), dtype=np.int64)
    red_end = cars[0][3] + 2
    for j, i in enumerate(search.slots):
        orientation, size, fixed, _ = cars[i]
        if orientation == "v" and fixed >= red_end:
            top = layered.offsets(layer, j).astype(np.int64)
            blockers += (top <= EXIT_ROW) & (top + size > EXIT_ROW)
    shuffled = rng.permutation(len(layer))
    order = shuffled[np.argsort(np.abs(blockers[shuffled] - targets.blockers), kind="stable")]
    for index in order[:CANDIDATES].tolist():
        state = _state(cars, search.offsets(int(layer[index])))
        try:
            if solve_at(state, length) is not None:
                return state
        except SearchLimitError:
            continue
    return None


def _clearing_layer(search: Search, layered: LayeredSearch, depth: int) -> np.ndarray | None:
    """Positions of the held-``R`` cluster ``depth`` slides from a clear corridor (None: no such position).

    A cluster of at most ``REGION`` positions is searched whole, so those distances are
    exact. A larger one (the authors' loosest boards meet millions) is searched in its
    first ``REGION`` positions around the drawn board, breadth first, and distances are
    taken within them: never shorter than the cluster's, so a candidate may be nearer
    the exit than its depth says, which ``solver.solve_at`` then rules out.
    """
    red_column = search.cars[0][3]
    corridor = np.uint64(sum(bit((EXIT_ROW, column)) for column in range(red_column + 2, SIZE)))
    region, count = [], 0
    try:
        for layer in layered.layers(np.array([search.key], dtype=np.uint64), MAX_STATES):
            region.append(layer)
            count += len(layer)
            if count >= REGION:
                break
        clears = [layer[(layered.occupancy(layer) & corridor) == 0] for layer in region]
        nearest = next((distance for distance, clear in enumerate(clears) if len(clear)), None)
        if nearest is None or nearest + len(region) - 1 < depth:
            return None  # every position is within the drawn board's reach plus its own distance to clear
        within = np.sort(np.concatenate(region)) if count >= REGION else None
        clear = np.concatenate(clears)
        for distance, layer in enumerate(layered.layers(clear, MAX_STATES, within)):
            if distance == depth:
                return layer
    except SearchLimitError:
        return None
    return None


def _state(cars: list[Car], offsets: list[int]) -> ParkingState:
    """The state of ``cars`` at ``offsets``; the other ids go B, C, ... in reading order (the authors' names)."""
    placed = [
        (cell_of(orientation, fixed, offset), length, orientation)
        for (orientation, length, fixed, _), offset in zip(cars, offsets)
    ]
    red = Vehicle(RED, *placed[0][0], placed[0][1], "h")
    vehicles = [
        Vehicle(vid, r, c, length, orientation)  # type: ignore[arg-type]
        for vid, ((r, c), length, orientation) in zip(OTHER_IDS, sorted(placed[1:]))
    ]
    return ParkingState(EXIT_ROW, tuple(sorted(vehicles + [red], key=lambda v: v.id)))
