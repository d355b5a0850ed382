"""The structure statistics of klotski instances, ours beside the authors' (``FamilySpec.structure``).

Statistics: blocks the optimal solution moves, moves of T, T's distance to the goal,
moves of 1x1 blocks. Solution statistics use the row's stored optimal solution (theirs:
their published one); distances are Manhattan, in cells.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any, Final

from vgau_data.puzzles.capabilities import Measures, Statistic, Structure, manhattan
from vgau_data.puzzles.klotski.state import GOAL, SHAPES, SIZE, KlotskiState, from_json
from vgau_data.puzzles.paper_records import raw_cell
from vgau_data.types import DELTAS, Cell

STATISTICS: Final = (
    Statistic("blocks_moved", "blocks the optimal solution moves"),
    Statistic("target_moves", "moves of T"),
    Statistic("target_distance", "T's distance to the goal"),
    Statistic("small_moves", "moves of 1x1 blocks"),
)

# The authors' bucket means over their 100 published instances (repository zyb1029/VGAU-Diag,
# data/, CC BY 4.0), computed once from a local copy with
#     python benchmarks/structure.py --paper-data <their data/ folder> --authors-literal
# Numbers only: their files are not part of this package.
AUTHORS: Final[dict[str, Measures]] = {
    "easy": {"blocks_moved": 2.3, "target_moves": 1.0, "target_distance": 1.0, "small_moves": 1.1},
    "medium": {"blocks_moved": 6.63, "target_moves": 1.07, "target_distance": 1.07, "small_moves": 4.53},
    "hard": {"blocks_moved": 10.26, "target_moves": 1.88, "target_distance": 1.88, "small_moves": 10.5},
}


def measure(state: KlotskiState, answer: Sequence[tuple[Cell, str]]) -> Measures:
    blocks = [[block.kind, (block.row, block.col)] for block in state.blocks]
    moved: list[int] = []
    for cell, direction in answer:
        index = next(i for i, (_, top_left) in enumerate(blocks) if top_left == tuple(cell))
        dr, dc = DELTAS[direction]
        blocks[index][1] = (blocks[index][1][0] + dr, blocks[index][1][1] + dc)
        moved.append(index)
    return {
        "blocks_moved": len(set(moved)),
        "target_moves": sum(blocks[i][0] == "target" for i in moved),
        "target_distance": manhattan(state.target, GOAL),
        "small_moves": sum(blocks[i][0] == "single" for i in moved),
    }


def measure_record(record: Mapping[str, Any]) -> Measures:
    initial = record["initial_state"]
    blocks = [{"kind": "target", "row": initial["T"][0], "col": initial["T"][1], "height": 2, "width": 2}]
    for key, kind in (("Vs", "vertical"), ("Hs", "horizontal"), ("Ss", "single")):
        height, width = SHAPES[kind]
        blocks += [{"kind": kind, "row": r, "col": c, "height": height, "width": width} for r, c in initial[key]]
    state = from_json(json.dumps({"size": SIZE, "goal": list(GOAL), "blocks": blocks}))
    return measure(state, [(raw_cell(move["from"]), move["direction"].lower()) for move in record["solution"]])


STRUCTURE: Final = Structure(
    statistics=STATISTICS,
    measure=measure,
    authors=AUTHORS,
    measure_record=measure_record,
)
