"""Parking symmetries: the up-down flip and any renaming of the vehicles other than the red car.

The exit is an opening in the right wall, so a left-right mirror or a quarter turn moves
it off that wall: not the same puzzle. The up-down flip keeps it on the right wall (its
row becomes ``7 - exit_row``) and maps up to down, so flipped boards are the same puzzle.
Our generator, like the authors', puts the exit on row 3, so a generated board is never
the flip of another; the flip still catches a test board flipped by someone else's tool. Vehicle names carry no meaning but ``R``'s:
``form`` lists the other vehicles by position, unnamed.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from vgau_data.puzzles.capabilities import Symmetry
from vgau_data.puzzles.parking.state import OTHER_IDS, RED, SIZE, ParkingState, Step, Vehicle
from vgau_data.puzzles.symmetry import map_direction

TRANSFORMS = ("identity", "flip")


def apply(state: ParkingState, transform: str) -> ParkingState:
    """``state`` seen through ``transform`` (``identity`` or the up-down ``flip``)."""
    if transform == "identity":
        return state
    if transform != "flip":
        raise ValueError(f"parking has no transform {transform!r}; it has {', '.join(TRANSFORMS)}")
    vehicles = tuple(
        Vehicle(v.id, SIZE - v.row - (v.length if v.orientation == "v" else 1), v.col, v.length, v.orientation)
        for v in state.vehicles
    )
    return ParkingState(SIZE - 1 - state.exit_row, vehicles, state.size)


def map_step(step: Step, transform: str, state: ParkingState) -> Step:
    vehicle, direction = step
    return (vehicle, map_direction(transform, direction))


def form(state: ParkingState) -> str:
    """``exit row|red car's column|the other vehicles sorted, each row,col,length,orientation``."""
    red = next(v for v in state.vehicles if v.id == RED)
    others = sorted((v.row, v.col, v.length, v.orientation) for v in state.vehicles if v.id != RED)
    return f"{state.exit_row}|{red.col}|" + ";".join(f"{r},{c},{n}{o}" for r, c, n, o in others)


def relabel(state: ParkingState, rng: np.random.Generator) -> tuple[ParkingState, Callable[[Step], Step]]:
    """The other vehicles renamed by a random permutation of the 25 other letters, and the step map."""
    names = dict(zip(OTHER_IDS, (OTHER_IDS[i] for i in rng.permutation(len(OTHER_IDS)))))
    names[RED] = RED
    vehicles = tuple(sorted((Vehicle(names[v.id], v.row, v.col, v.length, v.orientation) for v in state.vehicles),
                            key=lambda v: v.id))
    return ParkingState(state.exit_row, vehicles, state.size), lambda step: (names[step[0]], step[1])


SYMMETRY = Symmetry(transforms=TRANSFORMS, apply=apply, map_step=map_step, form=form, relabel=relabel)
