"""One slide of one vehicle, the slides to try, the goal, and the scorer's fast replay."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from vgau_data.puzzles.base import Illegal, Replay
from vgau_data.puzzles.parking.search import SIZE
from vgau_data.puzzles.parking.state import _COLUMNS, _RUNS, RED, Orientation, ParkingState, Step, Vehicle

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
        >>> from vgau_data.puzzles.parking.state import from_ascii
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


def candidate_steps(state: ParkingState) -> tuple[Step, ...]:
    """Each vehicle one cell either way along its axis, in id order: every slide there is.

    Example:
        >>> from vgau_data.puzzles.parking.state import from_ascii
        >>> candidate_steps(from_ascii(["RR......>"] + ["........"] * 7))
        (('R', 'left'), ('R', 'right'))
    """
    return tuple(
        (v.id, direction)
        for v in state.vehicles
        for direction in (("left", "right") if v.orientation == "h" else ("up", "down"))
    )


def is_goal(state: ParkingState) -> bool:
    """``R``'s rightmost cell is on the last column (it is always on the exit row)."""
    red = next(v for v in state.vehicles if v.id == RED)
    return red.col + red.length == SIZE


def replay(state: ParkingState, answer: Sequence[Step]) -> Replay:
    """Play ``answer`` from ``state``; stop at the first illegal step.

    Same rules as ``apply_step``, on a dict of positions and an occupancy bitmask.

    Example:
        >>> from vgau_data.puzzles.parking.state import from_ascii
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
        occupied |= (_RUNS[v.length] if v.orientation == "h" else _COLUMNS[v.length]) << (v.row * SIZE + v.col)
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
