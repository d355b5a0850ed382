"""What a parking image shows cell by cell, and its drawn solution (``FamilySpec.fidelity`` and ``FamilySpec.vr``).

Kept apart from the rules; it reads a state's ``exit_row`` and ``vehicles`` (``id``,
``row``, ``col``, ``length``, ``orientation``, ``cells``) and builds new ones with
``dataclasses.replace``.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any

import numpy as np

from vgau_data.puzzles.base import DELTAS
from vgau_data.puzzles.capabilities import Fidelity, Sketch, SketchMove, SolutionSketch, pick_edits
from vgau_data.puzzles.parking.render import PALETTE, SIZE, text_marks
from vgau_data.puzzles.parking.state import ParkingState, Vehicle

IDS = tuple(PALETTE)
"""Every vehicle id, the red car first."""


def cell_labels(state: ParkingState) -> tuple[str, ...]:
    """Row-major: the id of the vehicle on each cell, or ``empty``."""
    labels = ["empty"] * (SIZE * SIZE)
    for vehicle in state.vehicles:
        for r, c in vehicle.cells:
            labels[r * SIZE + c] = vehicle.id
    return tuple(labels)


def palette_states() -> tuple[ParkingState, ...]:
    """Every id as a horizontal and a vertical vehicle of length 2 and 3, packed on as few boards as fit."""
    states = []
    for orientation in ("h", "v"):
        for length in (2, 3):
            slots = [(line, offset) for line in range(SIZE) for offset in range(0, SIZE - length + 1, length)]
            for first in range(0, len(IDS), len(slots)):
                vehicles = []
                for vid, (line, offset) in zip(IDS[first:], slots):
                    row, col = (line, offset) if orientation == "h" else (offset, line)
                    vehicles.append(Vehicle(vid, row, col, length, orientation))
                states.append(ParkingState(0, tuple(sorted(vehicles, key=lambda v: v.id))))
    return tuple(states)


def perturb(state: ParkingState, k: int, rng: np.random.Generator) -> ParkingState:
    """``state`` with ``k`` cells changed: vehicles recoloured to unused ids (all their cells),
    3-cell vehicles shortened by a cell, 2-cell vehicles lengthened into a free cell ahead."""
    taken = {cell for v in state.vehicles for cell in v.cells}
    unused = [vid for vid in IDS if vid not in {v.id for v in state.vehicles}]
    options: list[list[tuple[int, Any]]] = []
    for index, v in enumerate(state.vehicles):
        edits: list[tuple[int, Any]] = [(v.length, ("recolour", index))] if index < len(unused) else []  # one free id each
        if v.length == 3:
            edits.append((1, ("shorten", index)))
        else:
            r, c = v.cells[-1]
            ahead = (r, c + 1) if v.orientation == "h" else (r + 1, c)
            if ahead[0] < SIZE and ahead[1] < SIZE and ahead not in taken:
                taken.add(ahead)  # claimed: no other vehicle grows into it
                edits.append((1, ("lengthen", index)))
        options.append(edits)
    vehicles = list(state.vehicles)
    fresh = iter(rng.permutation(unused).tolist())
    for kind, index in pick_edits(options, k, rng):
        v = vehicles[index]
        if kind == "recolour":
            vehicles[index] = dataclasses.replace(v, id=next(fresh))
        else:
            vehicles[index] = dataclasses.replace(v, length=v.length + (1 if kind == "lengthen" else -1))
    return dataclasses.replace(state, vehicles=tuple(sorted(vehicles, key=lambda v: v.id)))


def sketch(state: ParkingState, answer: Sequence[tuple[str, str]]) -> Sketch:
    """A numbered arrow per slide, from the vehicle's leading cell into the cell it enters (Table 33)."""
    where = {v.id: v for v in state.vehicles}
    moves = []
    for vid, direction in answer:
        v = where[vid]
        dr, dc = DELTAS[direction]
        moves.append(SketchMove(v.cells[-1] if dr + dc > 0 else v.cells[0], direction))  # type: ignore[arg-type]
        where[vid] = dataclasses.replace(v, row=v.row + dr, col=v.col + dc)
    return Sketch(moves=tuple(moves))


FIDELITY = Fidelity(cell_labels=cell_labels, palette_states=palette_states, perturb=perturb, text_marks=text_marks)
"""What a parking image shows cell by cell (``FamilySpec.fidelity``)."""
VR = SolutionSketch(sketch=sketch)
"""The drawn solution of a parking board (``FamilySpec.vr``)."""
