"""Structure statistics per family and bucket: our instances beside the authors'.

The paper validates its difficulty split on maze alone (appendix A.1.7, Tables 5-6:
walkable, branch and corridor cells, and the same on the solution path). This module
computes that kind of statistic for every family, on our rows and on the authors'
published instances, so a build can show that its buckets are built like theirs:

    maze      walkable / branch / corridor cells, and on the path (Tables 5-6)
    sokoban   walls inside the border, floor cells, pushes, box-target and player-box distance
    path      route moves, labels on and off the route, off-route labels' distance to it,
              turns, start-destination distance, road cells
    onet      fruit pairs, pairs removable at the start, pairs side by side, tiles on the edge
    parking   vehicles, trucks, vertical vehicles, vehicles in R's corridor, other vehicles
              the optimal solution moves, R's distance to the exit
    klotski   blocks the optimal solution moves, moves of T, T's distance to the goal,
              moves of 1x1 blocks

Solution statistics use the row's stored optimal solution (theirs: their published one).
``AUTHORS`` holds the authors' bucket means as numbers; their files are never part of
this package. ``read_authors`` is a minimal reader of their formats, enough for these
statistics (``benchmarks/structure.py --paper-data`` recomputes ``AUTHORS`` with it).
"""

from __future__ import annotations

import dataclasses
import itertools
import json
import statistics
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any, Final

from vgau_data.puzzles.base import DELTAS, DIFFICULTIES, Cell
from vgau_data.puzzles.klotski import state as klotski_state
from vgau_data.puzzles.maze import generator as maze_generator
from vgau_data.puzzles.maze import render as maze_render
from vgau_data.puzzles.maze import state as maze_state
from vgau_data.puzzles.onet import solver as onet_solver
from vgau_data.puzzles.onet import state as onet_state
from vgau_data.puzzles.parking import state as parking_state
from vgau_data.puzzles.path import rules as path_rules
from vgau_data.puzzles.path import state as path_state
from vgau_data.puzzles.sokoban import state as sokoban_state
from vgau_data.registry import FAMILIES

Measures = dict[str, float]
BucketMeans = dict[str, dict[str, Measures]]
"""``{family: {difficulty: {statistic: mean}}}``."""


@dataclasses.dataclass(frozen=True, slots=True)
class Statistic:
    """One column of the comparison: its key in a ``Measures`` dict and its label."""

    key: str
    label: str


STATISTICS: Final[dict[str, tuple[Statistic, ...]]] = {
    "maze": (
        Statistic("walkable", "walkable cells"),
        Statistic("branch", "branch nodes (3+ open neighbours)"),
        Statistic("corridor", "corridor nodes (2 open neighbours)"),
        Statistic("path_nodes", "path nodes"),
        Statistic("path_branch", "branch nodes on the path"),
        Statistic("path_corridor", "corridor nodes on the path"),
    ),
    "sokoban": (
        Statistic("inner_walls", "walls inside the border"),
        Statistic("floor", "floor cells"),
        Statistic("pushes", "pushes in the optimal solution"),
        Statistic("box_to_target", "box-target distance"),
        Statistic("player_to_box", "player-box distance"),
    ),
    "path": (
        Statistic("moves", "route moves"),
        Statistic("on_route", "labels on the route"),
        Statistic("off_route", "labels off the route"),
        Statistic("decoy_distance", "off-route labels' distance to the route"),
        Statistic("turns", "turns along the route"),
        Statistic("span", "start-destination distance"),
        Statistic("road", "road cells"),
    ),
    "onet": (
        Statistic("pairs", "fruit pairs"),
        Statistic("removable", "pairs removable at the start"),
        Statistic("adjacent", "pairs side by side"),
        Statistic("edge_tiles", "tiles on the board's edge"),
    ),
    "parking": (
        Statistic("vehicles", "vehicles (R included)"),
        Statistic("trucks", "length-3 vehicles"),
        Statistic("vertical", "vertical vehicles"),
        Statistic("blockers", "vehicles in R's corridor"),
        Statistic("movers", "other vehicles the optimal solution moves"),
        Statistic("red_distance", "R's distance to the exit"),
    ),
    "klotski": (
        Statistic("blocks_moved", "blocks the optimal solution moves"),
        Statistic("target_moves", "moves of T"),
        Statistic("target_distance", "T's distance to the goal"),
        Statistic("small_moves", "moves of 1x1 blocks"),
    ),
}
"""The statistics of each family, in table order (distances are Manhattan, in cells)."""

# The authors' bucket means over their 100 published instances per family (repository
# zyb1029/VGAU-Diag, data/, CC BY 4.0), computed once from a local copy with
#     python benchmarks/structure.py --paper-data <their data/ folder> --authors-literal
# Their maze figures are exactly the paper's Tables 5-6. Numbers only: their files are
# not part of this package.
AUTHORS: Final[BucketMeans] = {
    "maze": {
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
    },
    "sokoban": {
        "easy": {"inner_walls": 7.6, "floor": 56.4, "pushes": 1.85, "box_to_target": 1.85, "player_to_box": 2.95},
        "medium": {"inner_walls": 14.27, "floor": 49.73, "pushes": 4.07, "box_to_target": 3.8, "player_to_box": 4.93},
        "hard": {"inner_walls": 19.38, "floor": 44.62, "pushes": 6.68, "box_to_target": 4.76, "player_to_box": 4.92},
    },
    "path": {
        "easy": {"moves": 3.55, "on_route": 2.3, "off_route": 2.7, "decoy_distance": 1.36, "turns": 2.25, "span": 3.55},
        "medium": {
            "moves": 11.73,
            "on_route": 3.0,
            "off_route": 2.0,
            "decoy_distance": 1.02,
            "turns": 6.93,
            "span": 9.53,
        },
        "hard": {
            "moves": 21.78,
            "on_route": 3.0,
            "off_route": 2.0,
            "decoy_distance": 1.0,
            "turns": 12.06,
            "span": 11.86,
        },
    },
    "onet": {
        "easy": {"pairs": 4.95, "removable": 4.9, "adjacent": 2.85, "edge_tiles": 5.0},
        "medium": {"pairs": 8.37, "removable": 5.17, "adjacent": 0.0, "edge_tiles": 7.97},
        "hard": {"pairs": 13.76, "removable": 2.48, "adjacent": 0.76, "edge_tiles": 15.56},
    },
    "parking": {
        "easy": {
            "vehicles": 5.8,
            "trucks": 1.35,
            "vertical": 2.45,
            "blockers": 0.25,
            "movers": 0.25,
            "red_distance": 2.8,
        },
        "medium": {
            "vehicles": 9.47,
            "trucks": 2.73,
            "vertical": 5.47,
            "blockers": 2.87,
            "movers": 4.1,
            "red_distance": 5.6,
        },
        "hard": {
            "vehicles": 12.7,
            "trucks": 4.96,
            "vertical": 6.64,
            "blockers": 3.68,
            "movers": 8.12,
            "red_distance": 6.0,
        },
    },
    "klotski": {
        "easy": {"blocks_moved": 2.3, "target_moves": 1.0, "target_distance": 1.0, "small_moves": 1.1},
        "medium": {"blocks_moved": 6.63, "target_moves": 1.07, "target_distance": 1.07, "small_moves": 4.53},
        "hard": {"blocks_moved": 10.26, "target_moves": 1.88, "target_distance": 1.88, "small_moves": 10.5},
    },
}

# ------------------------------------------------------------------------------ measures


def _manhattan(a: Cell, b: Cell) -> int:
    return abs(a[0] - b[0]) + abs(a[1] - b[1])


def _walk(start: Cell, directions: Sequence[str]) -> list[Cell]:
    cells = [start]
    for direction in directions:
        dr, dc = DELTAS[direction]
        cells.append((cells[-1][0] + dr, cells[-1][1] + dc))
    return cells


def _maze(state: maze_state.MazeState, answer: Sequence[str]) -> Measures:
    grid = state.grid
    open_cells = {(r, c) for r, row in enumerate(grid) for c, char in enumerate(row) if char == maze_render.OPEN}
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


def _sokoban(state: sokoban_state.SokobanState, answer: Sequence[str]) -> Measures:
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
        "inner_walls": sum(grid[r][c] == sokoban_state.WALL for r in range(1, rows - 1) for c in range(1, cols - 1)),
        "floor": sum(row.count(sokoban_state.FLOOR) for row in grid),
        "pushes": pushes,
        "box_to_target": _manhattan(state.box, state.target),
        "player_to_box": _manhattan(state.player, state.box),
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
        "decoy_distance": statistics.mean(min(_manhattan(cell, r) for r in route) for cell in off) if off else 0.0,
        "turns": sum(a != b for a, b in itertools.pairwise(steps)),
        "span": _manhattan(route[0], route[-1]),
    }
    if road is not None:
        measures["road"] = road
    return measures


def _path(state: path_state.PathState, answer: Sequence[str]) -> Measures:
    route = path_rules.route(state) or ()
    road = sum(row.count(path_state.ROAD) for row in state.grid)
    return _path_measures(route, [cell for _, cell in state.labels], road)


def _onet(state: onet_state.OnetState, answer: Sequence[Any]) -> Measures:
    tiles = {(r, c): fruit for r, row in enumerate(state.board) for c, fruit in enumerate(row) if fruit is not None}
    by_fruit: dict[str, list[Cell]] = {}
    for cell, fruit in sorted(tiles.items()):
        by_fruit.setdefault(fruit, []).append(cell)
    last = onet_state.SIZE - 1
    return {
        "pairs": len(by_fruit),
        "removable": len(onet_solver.removable_pairs(state)),
        "adjacent": sum(_manhattan(*cells) == 1 for cells in by_fruit.values()),
        "edge_tiles": sum(r in (0, last) or c in (0, last) for r, c in tiles),
    }


def _parking(state: parking_state.ParkingState, answer: Sequence[tuple[str, str]]) -> Measures:
    red = next(v for v in state.vehicles if v.id == parking_state.RED)
    corridor = {(state.exit_row, c) for c in range(red.col + red.length, state.size)}
    return {
        "vehicles": len(state.vehicles),
        "trucks": sum(v.length == 3 for v in state.vehicles),
        "vertical": sum(v.orientation == "v" for v in state.vehicles),
        "blockers": sum(bool(corridor & set(v.cells)) for v in state.vehicles if v.id != parking_state.RED),
        "movers": len({vid for vid, _ in answer} - {parking_state.RED}),
        "red_distance": state.size - red.col - red.length,
    }


def _klotski(state: klotski_state.KlotskiState, answer: Sequence[tuple[Cell, str]]) -> Measures:
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
        "target_distance": _manhattan(state.target, klotski_state.GOAL),
        "small_moves": sum(blocks[i][0] == "single" for i in moved),
    }


_MEASURES: Final[dict[str, Callable[[Any, Sequence[Any]], Measures]]] = {
    "maze": _maze,
    "sokoban": _sokoban,
    "path": _path,
    "onet": _onet,
    "parking": _parking,
    "klotski": _klotski,
}


def measure(family: str, state: Any, answer: Sequence[Any]) -> Measures:
    """The structure statistics of one instance and its optimal answer.

    Example:
        >>> from vgau_data.puzzles.maze.state import from_ascii
        >>> measure("maze", from_ascii(["S.G"]), ("right", "right"))["path_corridor"]
        1
    """
    return _MEASURES[family](state, answer)


def measure_row(row: Mapping[str, Any]) -> Measures:
    """``measure`` of a dataset row (its ``task``, ``state`` and ``solution`` columns)."""
    spec = FAMILIES[row["task"]]
    return measure(spec.name, spec.from_json(row["state"]), spec.answer_from_payload(row["solution"]))


def bucket_means(measured: Iterable[tuple[str, str, Measures]]) -> BucketMeans:
    """Mean of every statistic per family and difficulty, from ``(family, difficulty, measures)``."""
    grouped: dict[str, dict[str, list[Measures]]] = {}
    for family, difficulty, measures in measured:
        grouped.setdefault(family, {}).setdefault(difficulty, []).append(measures)
    return {
        family: {
            difficulty: {key: statistics.fmean(m[key] for m in rows) for key in rows[0]}
            for difficulty, rows in by_difficulty.items()
        }
        for family, by_difficulty in grouped.items()
    }


# ------------------------------------------------------------------------------ the authors' records

_AUTHOR_DIFFICULTY: Final = {"easy": "easy", "middle": "medium", "hard": "hard"}


def _cells(value: Any) -> Cell:
    return (int(value[0]), int(value[1]))


def _author_maze(record: Mapping[str, Any]) -> Measures:
    walkable = {_cells(cell) for cell in record["walkable"]}
    size = int(record["grid_size"])
    grid = tuple("".join(maze_render.OPEN if (r, c) in walkable else maze_render.WALL for c in range(size)) for r in range(size))
    state = maze_state.MazeState(grid, _cells(record["start"]), _cells(record["goal"]))
    return _maze(state, json.loads(record["steps"]))


def _author_sokoban(record: Mapping[str, Any]) -> Measures:
    walls = {_cells(cell) for cell in record["walls"]}
    rows, cols = int(record["grid_h"]), int(record["grid_w"])
    grid = tuple("".join(sokoban_state.WALL if (r, c) in walls else sokoban_state.FLOOR for c in range(cols)) for r in range(rows))
    pieces = (_cells(record[key]) for key in ("player_start", "box_start", "target"))
    state = sokoban_state.SokobanState(grid, *pieces)
    return _sokoban(state, json.loads(record["solution"]))


def _author_path(record: Mapping[str, Any]) -> Measures:
    route = [_cells(cell) for cell in record["answer_path"]]
    return _path_measures(route, [_cells(cell) for cell in record["labeled_points"].values()], None)


def _author_onet(record: Mapping[str, Any]) -> Measures:
    letters = sorted({tile for row in record["board"] for tile in row if tile})
    fruit = dict(zip(letters, onet_state.FRUITS))  # any distinct fruits do: only equality matters
    state = onet_state.OnetState(tuple(tuple(fruit[tile] if tile else None for tile in row) for row in record["board"]))
    return _onet(state, ())


def _author_parking(record: Mapping[str, Any]) -> Measures:
    vehicles = tuple(
        sorted(
            (
                parking_state.Vehicle(
                    car["id"], int(car["row"]), int(car["col"]), int(car["length"]), car["orientation"].lower()
                )
                for car in record["cars"]
            ),
            key=lambda v: v.id,
        )
    )
    red = next(v for v in vehicles if v.id == parking_state.RED)
    state = parking_state.ParkingState(red.row, vehicles, int(record["grid_size"]))
    return _parking(state, [(move["car"], move["direction"]) for move in record["solution"]])


def _author_klotski(record: Mapping[str, Any]) -> Measures:
    initial = record["initial_state"]
    blocks = [{"kind": "target", "row": initial["T"][0], "col": initial["T"][1], "height": 2, "width": 2}]
    for key, kind in (("Vs", "vertical"), ("Hs", "horizontal"), ("Ss", "single")):
        height, width = klotski_state.SHAPES[kind]
        blocks += [{"kind": kind, "row": r, "col": c, "height": height, "width": width} for r, c in initial[key]]
    state = klotski_state.from_json(json.dumps({"size": klotski_state.SIZE, "goal": list(klotski_state.GOAL), "blocks": blocks}))
    return _klotski(state, [(_cells(move["from"]), move["direction"].lower()) for move in record["solution"]])


_AUTHOR_FILES: Final = {
    "maze": ("maze/maze100.jsonl", _author_maze),
    "sokoban": ("sokoban/dataset_manifest.json", _author_sokoban),
    "path": ("path/dataset_manifest.json", _author_path),
    "onet": ("onet/dataset_manifest.json", _author_onet),
    "parking": ("parking/dataset_manifest.json", _author_parking),
    "klotski": ("klotski/dataset_manifest.json", _author_klotski),
}


def read_authors(data_dir: str | Path) -> list[tuple[str, str, Measures]]:
    """``(family, difficulty, measures)`` of every record in a copy of the authors' ``data/`` folder.

    Reads ``maze/maze100.jsonl`` and ``<family>/dataset_manifest.json`` (their published
    formats; difficulty ``middle`` is our ``medium``). Families whose file is absent are skipped.
    """
    root = Path(data_dir)
    measured = []
    for family, (name, reader) in _AUTHOR_FILES.items():
        file = root / name
        if not file.is_file():
            continue
        text = file.read_text(encoding="utf-8")
        if name.endswith(".jsonl"):
            records = [json.loads(line) for line in text.splitlines() if line.strip()]
        else:
            records = json.loads(text)
        for record in records:
            difficulty = _AUTHOR_DIFFICULTY[record.get("difficulty") or record["level"]]
            measured.append((family, difficulty, reader(record)))
    return measured


# ------------------------------------------------------------------------------ comparison


@dataclasses.dataclass(frozen=True, slots=True)
class Comparison:
    """One statistic of one family: per difficulty ours, the authors' and (maze) the paper's."""

    family: str
    statistic: Statistic
    ours: dict[str, float | None]
    authors: dict[str, float | None]
    paper: dict[str, float | None]

    def difference(self, difficulty: str) -> float | None:
        """Ours relative to the authors' (0.1 = 10% more), None when either is missing or 0."""
        ours, theirs = self.ours.get(difficulty), self.authors.get(difficulty)
        if ours is None or not theirs:
            return None
        return ours / theirs - 1


def _per_difficulty(means: BucketMeans, family: str, key: str) -> dict[str, float | None]:
    return {d: means.get(family, {}).get(d, {}).get(key) for d in DIFFICULTIES}


def compare(ours: BucketMeans, authors: BucketMeans | None = None) -> list[Comparison]:
    """Every family's statistics side by side (families of ``ours`` only, in registry order)."""
    authors = AUTHORS if authors is None else authors
    paper = {"maze": {d: dataclasses.asdict(maze_generator.PAPER_STRUCTURE[d]) for d in DIFFICULTIES}}
    return [
        Comparison(
            family,
            stat,
            _per_difficulty(ours, family, stat.key),
            _per_difficulty(authors, family, stat.key),
            _per_difficulty(paper, family, stat.key),
        )
        for family in FAMILIES
        if family in ours
        for stat in STATISTICS[family]
    ]


def _number(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f}"


def cell_text(row: Comparison, difficulty: str) -> str:
    """``ours / authors [/ paper] (difference)`` for one bucket."""
    parts = [_number(row.ours[difficulty]), _number(row.authors[difficulty])]
    if row.paper[difficulty] is not None:
        parts.append(_number(row.paper[difficulty]))
    difference = row.difference(difficulty)
    shown = " / ".join(parts)
    return shown if difference is None else f"{shown} ({difference:+.0%})"


def markdown_table(rows: Sequence[Comparison]) -> str:
    """The comparison as a Markdown table: each cell ``ours / authors [/ paper] (difference)``."""
    lines = [
        "| family | statistic (bucket mean) | easy | medium | hard |",
        "| --- | --- | --- | --- | --- |",
    ]
    for row in rows:
        cells = " | ".join(cell_text(row, d) for d in DIFFICULTIES)
        lines.append(f"| {row.family} | {row.statistic.label} | {cells} |")
    return "\n".join(lines)
