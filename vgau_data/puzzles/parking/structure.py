"""The structure statistics of parking instances, ours beside the authors' (``FamilySpec.structure``).

Statistics: vehicles, length-3 vehicles, vertical vehicles, vehicles in R's corridor,
other vehicles the optimal solution moves, R's distance to the exit. Solution statistics
use the row's stored optimal solution (theirs: their published one); distances are
Manhattan, in cells.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Final

import numpy as np

from vgau_data.puzzles.capabilities import Measures, Statistic, Structure
from vgau_data.puzzles.parking.search import Car, LayeredSearch, Search, SearchLimitError
from vgau_data.puzzles.parking.solver import _car
from vgau_data.puzzles.parking.state import RED, ParkingState, Vehicle

STATISTICS: Final = (
    Statistic("vehicles", "vehicles (R included)"),
    Statistic("trucks", "length-3 vehicles"),
    Statistic("vertical", "vertical vehicles"),
    Statistic("blockers", "vehicles in R's corridor"),
    Statistic("movers", "other vehicles the optimal solution moves"),
    Statistic("red_distance", "R's distance to the exit"),
)

# The authors' bucket means over their 100 published instances (repository zyb1029/VGAU-Diag,
# data/, CC BY 4.0), computed once from a local copy with
#     python benchmarks/structure.py --paper-data <their data/ folder> --authors-literal
# Numbers only: their files are not part of this package.
AUTHORS: Final[dict[str, Measures]] = {
    "easy": {"vehicles": 5.8, "trucks": 1.35, "vertical": 2.45, "blockers": 0.25, "movers": 0.25, "red_distance": 2.8},
    "medium": {
        "vehicles": 9.47,
        "trucks": 2.73,
        "vertical": 5.47,
        "blockers": 2.87,
        "movers": 4.1,
        "red_distance": 5.6,
    },
    "hard": {"vehicles": 12.7, "trucks": 4.96, "vertical": 6.64, "blockers": 3.68, "movers": 8.12, "red_distance": 6.0},
}


LOOSE: Final = 300_000
"""Positions of a board's cluster with ``R`` held past which we call the board loose."""
AUTHORS_LOOSE: Final[dict[str, tuple[int, int]]] = {"medium": (2, 30), "hard": (14, 50)}
"""Loose boards among the authors' (of their bucket), counted once from their ``data/`` with
``benchmarks/structure.py --paper-data``; their easy boards were not counted."""


def is_loose(state: ParkingState) -> bool:
    """Whether the cluster of ``state`` with ``R`` held in place holds more than ``LOOSE`` positions."""
    cars: list[Car] = [_car(v) for v in sorted(state.vehicles, key=lambda v: v.id != RED)]
    search = Search(cars, held=(0,))
    try:
        for _ in LayeredSearch(search).layers(np.array([search.key], dtype=np.uint64), LOOSE):
            pass
    except SearchLimitError:
        return True
    return False


def measure(state: ParkingState, answer: Sequence[tuple[str, str]]) -> Measures:
    red = next(v for v in state.vehicles if v.id == RED)
    corridor = {(state.exit_row, c) for c in range(red.col + red.length, state.size)}
    return {
        "vehicles": len(state.vehicles),
        "trucks": sum(v.length == 3 for v in state.vehicles),
        "vertical": sum(v.orientation == "v" for v in state.vehicles),
        "blockers": sum(bool(corridor & set(v.cells)) for v in state.vehicles if v.id != RED),
        "movers": len({vid for vid, _ in answer} - {RED}),
        "red_distance": state.size - red.col - red.length,
    }


def measure_record(record: Mapping[str, Any]) -> Measures:
    vehicles = tuple(
        sorted(
            (
                Vehicle(
                    car["id"], int(car["row"]), int(car["col"]), int(car["length"]), car["orientation"].lower()
                )
                for car in record["cars"]
            ),
            key=lambda v: v.id,
        )
    )
    red = next(v for v in vehicles if v.id == RED)
    state = ParkingState(red.row, vehicles, int(record["grid_size"]))
    return measure(state, [(move["car"], move["direction"]) for move in record["solution"]])


STRUCTURE: Final = Structure(
    statistics=STATISTICS,
    measure=measure,
    authors=AUTHORS,
    measure_record=measure_record,
)
