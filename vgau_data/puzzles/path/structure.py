"""The structure statistics of path instances, ours beside the authors' (``FamilySpec.structure``).

Statistics: route moves, labels on and off the route, the off-route labels' distance to
it, turns, start-destination distance and road cells (their records hold no walls: no
road count). Solution statistics use the row's stored optimal solution (theirs: their
published one); distances are Manhattan, in cells.
"""

from __future__ import annotations

import itertools
import statistics
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Final

from vgau_data.puzzles.capabilities import Measures, Statistic, Structure, manhattan
from vgau_data.puzzles.paper_records import raw_cell
from vgau_data.puzzles.path import rules
from vgau_data.puzzles.path.state import ROAD, PathState
from vgau_data.types import Cell

STATISTICS: Final = (
    Statistic("moves", "route moves"),
    Statistic("on_route", "labels on the route"),
    Statistic("off_route", "labels off the route"),
    Statistic("decoy_distance", "off-route labels' distance to the route"),
    Statistic("turns", "turns along the route"),
    Statistic("span", "start-destination distance"),
    Statistic("road", "road cells"),
)

# The authors' bucket means over their 100 published instances (repository zyb1029/VGAU-Diag,
# data/, CC BY 4.0), computed once from a local copy with
#     python benchmarks/structure.py --paper-data <their data/ folder> --authors-literal
# Numbers only: their files are not part of this package.
AUTHORS: Final[dict[str, Measures]] = {
    "easy": {"moves": 3.55, "on_route": 2.3, "off_route": 2.7, "decoy_distance": 1.36, "turns": 2.25, "span": 3.55},
    "medium": {"moves": 11.73, "on_route": 3.0, "off_route": 2.0, "decoy_distance": 1.02, "turns": 6.93, "span": 9.53},
    "hard": {"moves": 21.78, "on_route": 3.0, "off_route": 2.0, "decoy_distance": 1.0, "turns": 12.06, "span": 11.86},
}


def _path_measures(route: Sequence[Cell], labels: Iterable[Cell], road: int | None) -> Measures:
    """Path statistics from the route's cells and the label cells (``road`` unknown: None)."""
    on_route = set(route)
    off = [cell for cell in labels if cell not in on_route]
    steps = [(b[0] - a[0], b[1] - a[1]) for a, b in itertools.pairwise(route)]
    measures: Measures = {
        "moves": len(route) - 1,
        "on_route": sum(1 for cell in labels if cell in on_route),
        "off_route": len(off),
        "decoy_distance": statistics.mean(min(manhattan(cell, r) for r in route) for cell in off) if off else 0.0,
        "turns": sum(a != b for a, b in itertools.pairwise(steps)),
        "span": manhattan(route[0], route[-1]),
    }
    if road is not None:
        measures["road"] = road
    return measures


def measure(state: PathState, answer: Sequence[str]) -> Measures:
    route = rules.route(state) or ()
    road = sum(row.count(ROAD) for row in state.grid)
    return _path_measures(route, [cell for _, cell in state.labels], road)


def measure_record(record: Mapping[str, Any]) -> Measures:
    route = [raw_cell(cell) for cell in record["answer_path"]]
    return _path_measures(route, [raw_cell(cell) for cell in record["labeled_points"].values()], None)


STRUCTURE: Final = Structure(
    statistics=STATISTICS,
    measure=measure,
    authors=AUTHORS,
    measure_record=measure_record,
)
