"""The structure statistics of onet instances, ours beside the authors' (``FamilySpec.structure``).

Statistics: fruit pairs, pairs removable at the start, pairs side by side, tiles on the
board's edge. Solution statistics use the row's stored optimal solution (theirs: their
published one); distances are Manhattan, in cells.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Final

from vgau_data.puzzles.capabilities import Measures, Statistic, Structure, manhattan
from vgau_data.puzzles.onet.solver import removable_pairs
from vgau_data.puzzles.onet.state import FRUITS, SIZE, OnetState
from vgau_data.types import Cell

STATISTICS: Final = (
    Statistic("pairs", "fruit pairs"),
    Statistic("removable", "pairs removable at the start"),
    Statistic("adjacent", "pairs side by side"),
    Statistic("edge_tiles", "tiles on the board's edge"),
)

# The authors' bucket means over their 100 published instances (repository zyb1029/VGAU-Diag,
# data/, CC BY 4.0), computed once from a local copy with
#     python benchmarks/structure.py --paper-data <their data/ folder> --authors-literal
# Numbers only: their files are not part of this package.
AUTHORS: Final[dict[str, Measures]] = {
    "easy": {"pairs": 4.95, "removable": 4.9, "adjacent": 2.85, "edge_tiles": 5.0},
    "medium": {"pairs": 8.37, "removable": 5.17, "adjacent": 0.0, "edge_tiles": 7.97},
    "hard": {"pairs": 13.76, "removable": 2.48, "adjacent": 0.76, "edge_tiles": 15.56},
}


def measure(state: OnetState, answer: Sequence[Any]) -> Measures:
    tiles = {(r, c): fruit for r, row in enumerate(state.board) for c, fruit in enumerate(row) if fruit is not None}
    by_fruit: dict[str, list[Cell]] = {}
    for cell, fruit in sorted(tiles.items()):
        by_fruit.setdefault(fruit, []).append(cell)
    last = SIZE - 1
    return {
        "pairs": len(by_fruit),
        "removable": len(removable_pairs(state)),
        "adjacent": sum(manhattan(*cells) == 1 for cells in by_fruit.values()),
        "edge_tiles": sum(r in (0, last) or c in (0, last) for r, c in tiles),
    }


def measure_record(record: Mapping[str, Any]) -> Measures:
    letters = sorted({tile for row in record["board"] for tile in row if tile})
    fruit = dict(zip(letters, FRUITS))  # any distinct fruits do: only equality matters
    state = OnetState(tuple(tuple(fruit[tile] if tile else None for tile in row) for row in record["board"]))
    return measure(state, ())


STRUCTURE: Final = Structure(
    statistics=STATISTICS,
    measure=measure,
    authors=AUTHORS,
    measure_record=measure_record,
)
