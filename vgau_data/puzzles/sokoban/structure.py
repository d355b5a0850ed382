"""The structure statistics of sokoban instances, ours beside the authors' (``FamilySpec.structure``).

Statistics: walls inside the border, floor cells, pushes in the optimal solution, box-
target and player-box distance. Solution statistics use the row's stored optimal
solution (theirs: their published one); distances are Manhattan, in cells.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any, Final

from vgau_data.puzzles.capabilities import Measures, Statistic, Structure, manhattan
from vgau_data.puzzles.paper_records import raw_cell
from vgau_data.puzzles.sokoban.state import FLOOR, WALL, SokobanState
from vgau_data.types import DELTAS

STATISTICS: Final = (
    Statistic("inner_walls", "walls inside the border"),
    Statistic("floor", "floor cells"),
    Statistic("pushes", "pushes in the optimal solution"),
    Statistic("box_to_target", "box-target distance"),
    Statistic("player_to_box", "player-box distance"),
)

# The authors' bucket means over their 100 published instances (repository zyb1029/VGAU-Diag,
# data/, CC BY 4.0), computed once from a local copy with
#     python benchmarks/structure.py --paper-data <their data/ folder> --authors-literal
# Numbers only: their files are not part of this package.
AUTHORS: Final[dict[str, Measures]] = {
    "easy": {"inner_walls": 7.6, "floor": 56.4, "pushes": 1.85, "box_to_target": 1.85, "player_to_box": 2.95},
    "medium": {"inner_walls": 14.27, "floor": 49.73, "pushes": 4.07, "box_to_target": 3.8, "player_to_box": 4.93},
    "hard": {"inner_walls": 19.38, "floor": 44.62, "pushes": 6.68, "box_to_target": 4.76, "player_to_box": 4.92},
}


def measure(state: SokobanState, answer: Sequence[str]) -> Measures:
    grid = state.grid
    rows, cols = len(grid), len(grid[0])
    player, box, pushes = state.player, state.box, 0
    for direction in answer:
        dr, dc = DELTAS[direction]
        player = (player[0] + dr, player[1] + dc)
        if player == box:
            box = (box[0] + dr, box[1] + dc)
            pushes += 1
    return {
        "inner_walls": sum(grid[r][c] == WALL for r in range(1, rows - 1) for c in range(1, cols - 1)),
        "floor": sum(row.count(FLOOR) for row in grid),
        "pushes": pushes,
        "box_to_target": manhattan(state.box, state.target),
        "player_to_box": manhattan(state.player, state.box),
    }


def measure_record(record: Mapping[str, Any]) -> Measures:
    walls = {raw_cell(cell) for cell in record["walls"]}
    rows, cols = int(record["grid_h"]), int(record["grid_w"])
    grid = tuple("".join(WALL if (r, c) in walls else FLOOR for c in range(cols)) for r in range(rows))
    pieces = (raw_cell(record[key]) for key in ("player_start", "box_start", "target"))
    state = SokobanState(grid, *pieces)
    return measure(state, json.loads(record["solution"]))


STRUCTURE: Final = Structure(
    statistics=STATISTICS,
    measure=measure,
    authors=AUTHORS,
    measure_record=measure_record,
)
