"""The structure statistics of maze instances, ours beside the authors' (``FamilySpec.structure``).

Statistics: walkable, branch and corridor cells, overall and on the path (the paper's
Tables 5-6, which the generator aims at; the authors' mazes give exactly the paper's
figures). Solution statistics use the row's stored optimal solution (theirs: their
published one); distances are Manhattan, in cells.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Mapping, Sequence
from typing import Any, Final

from vgau_data.puzzles.capabilities import Measures, Statistic, Structure
from vgau_data.puzzles.grids import OPEN, WALL
from vgau_data.puzzles.maze.generator import PAPER_STRUCTURE
from vgau_data.puzzles.maze.state import MazeState
from vgau_data.puzzles.paper_records import raw_cell
from vgau_data.types import DELTAS, DIFFICULTIES, Cell

STATISTICS: Final = (
    Statistic("walkable", "walkable cells"),
    Statistic("branch", "branch nodes (3+ open neighbours)"),
    Statistic("corridor", "corridor nodes (2 open neighbours)"),
    Statistic("path_nodes", "path nodes"),
    Statistic("path_branch", "branch nodes on the path"),
    Statistic("path_corridor", "corridor nodes on the path"),
)

# The authors' bucket means over their 100 published instances (repository zyb1029/VGAU-Diag,
# data/, CC BY 4.0), computed once from a local copy with
#     python benchmarks/structure.py --paper-data <their data/ folder> --authors-literal
# Numbers only: their files are not part of this package.
AUTHORS: Final[dict[str, Measures]] = {
    "easy": {
        "walkable": 20.3,
        "branch": 4.25,
        "corridor": 9.35,
        "path_nodes": 4.1,
        "path_branch": 1.55,
        "path_corridor": 2.0,
    },
    "medium": {
        "walkable": 30.1,
        "branch": 5.83,
        "corridor": 16.07,
        "path_nodes": 13.27,
        "path_branch": 3.7,
        "path_corridor": 8.97,
    },
    "hard": {
        "walkable": 39.12,
        "branch": 6.98,
        "corridor": 22.76,
        "path_nodes": 24.64,
        "path_branch": 6.0,
        "path_corridor": 18.0,
    },
}


def _walk(start: Cell, directions: Sequence[str]) -> list[Cell]:
    cells = [start]
    for direction in directions:
        dr, dc = DELTAS[direction]
        cells.append((cells[-1][0] + dr, cells[-1][1] + dc))
    return cells


def measure(state: MazeState, answer: Sequence[str]) -> Measures:
    grid = state.grid
    open_cells = {(r, c) for r, row in enumerate(grid) for c, char in enumerate(row) if char == OPEN}
    degree = {(r, c): sum((r + dr, c + dc) in open_cells for dr, dc in DELTAS.values()) for r, c in open_cells}
    route = _walk(state.start, answer)
    return {
        "walkable": len(open_cells),
        "branch": sum(d >= 3 for d in degree.values()),
        "corridor": sum(d == 2 for d in degree.values()),
        "path_nodes": len(route),
        "path_branch": sum(degree[cell] >= 3 for cell in route),
        "path_corridor": sum(degree[cell] == 2 for cell in route),
    }


def measure_record(record: Mapping[str, Any]) -> Measures:
    walkable = {raw_cell(cell) for cell in record["walkable"]}
    size = int(record["grid_size"])
    grid = tuple("".join(OPEN if (r, c) in walkable else WALL for c in range(size)) for r in range(size))
    state = MazeState(grid, raw_cell(record["start"]), raw_cell(record["goal"]))
    return measure(state, json.loads(record["steps"]))


STRUCTURE: Final = Structure(
    statistics=STATISTICS,
    measure=measure,
    authors=AUTHORS,
    paper={d: dataclasses.asdict(PAPER_STRUCTURE[d]) for d in DIFFICULTIES},
    measure_record=measure_record,
)
