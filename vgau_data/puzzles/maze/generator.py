"""Mazes built as the authors' (appendix A.1.1), aimed at the paper's Tables 5-6."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

import numpy as np

from vgau_data.errors import GenerationError
from vgau_data.puzzles.base import Slot, bucket_slot
from vgau_data.puzzles.grids import INTERIOR, NEIGHBOURS, OPEN, SIZE, WALL, grow_tree, induced_path
from vgau_data.puzzles.maze.solver import count_simple_paths
from vgau_data.puzzles.maze.state import MazeState, to_json

BUCKETS: Final[dict[str, tuple[int, int]]] = {"easy": (1, 6), "medium": (7, 17), "hard": (18, 30)}


@dataclass(frozen=True, slots=True)
class MazeStructure:
    """Table 5 / Table 6 of the paper: a maze's structure and its solution path's.

    ``branch`` cells have three or more open neighbours, ``corridor`` cells exactly two;
    the ``path_*`` counts are over the start-goal path, both ends included.
    """

    walkable: float
    branch: float
    corridor: float
    path_nodes: float
    path_branch: float
    path_corridor: float


PAPER_STRUCTURE: Final[dict[str, MazeStructure]] = {
    "easy": MazeStructure(20.30, 4.25, 9.35, 4.10, 1.55, 2.00),
    "medium": MazeStructure(30.10, 5.83, 16.07, 13.27, 3.70, 8.97),
    "hard": MazeStructure(39.12, 6.98, 22.76, 24.64, 6.00, 18.00),
}
"""The paper's Tables 5 and 6 (bucket means); the generator aims at their proportions."""
LENGTH_MIX: Final[dict[str, dict[int, int]]] = {
    "easy": {1: 5, 2: 5, 3: 3, 5: 4, 6: 3},
    "medium": {7: 3, 8: 1, 9: 6, 12: 3, 13: 5, 14: 3, 15: 4, 16: 3, 17: 2},
    "hard": {18: 6, 19: 1, 20: 6, 21: 1, 22: 2, 23: 3, 25: 14, 26: 10, 27: 5, 28: 2},
}
"""Rows per path length in the authors' 100 published mazes (their ``steps``, counted once)."""
OPEN_CELLS: Final[dict[str, tuple[int, int]]] = {"easy": (16, 24), "medium": (25, 35), "hard": (35, 43)}
"""Range of open cells the tree grows to, per bucket (the authors' mazes span 15-24, 24-36, 36-43)."""
CORRIDOR_SPROUT_WEIGHT: Final = 1.5
"""Odds of a corridor cell sprouting the next leaf, relative to any other open cell.

Uniform sprouting (1.0) leaves hard mazes about 10% short of the paper's branch counts;
1.5 puts every Table 5/6 figure within a few percent of the paper in expectation."""
CANDIDATES: Final = 12
"""Mazes drawn per row; the one nearest the paper's proportions for its length and size is kept."""
MAX_DFS_TRIES: Final = 200


def generate(difficulty: str, rng: np.random.Generator, slot: Slot | None = None) -> MazeState:
    """A maze whose start-goal distance is ``slot.length`` (appendix A.1.1's construction).

    Per candidate: a simple path of that length by randomized DFS (open cells only in rows
    and columns 1-8), grown by leaf cells (``grids.grow_tree``) to a size drawn from
    ``OPEN_CELLS``; the open cells form a tree, so every pair of cells has one simple path.
    Start and goal are then drawn among all ordered pairs at the target distance (the DFS
    path guarantees one), so their ends are as often dead ends as any cell. Of
    ``CANDIDATES`` such mazes the one whose branch and corridor counts, overall and on the
    path, lie nearest the paper's Table 5/6 proportions is kept; the targets are rounded
    up or down by ``slot.quantile``, so a bucket's means land on the paper's. The result
    is checked by BFS and by counting simple paths (exactly one).

    Raises:
        ValueError: unknown difficulty, or a slot length outside the bucket.
        GenerationError: the DFS found no path (never seen) or the checks failed (a bug).
    """
    slot = bucket_slot("maze", BUCKETS, LENGTH_MIX, difficulty, rng, slot)
    candidates = [_candidate(difficulty, slot, rng) for _ in range(CANDIDATES)]
    _, is_open, route = min(candidates, key=lambda candidate: candidate[0])  # the first of the nearest
    grid = tuple("".join(OPEN if is_open[r * SIZE + c] else WALL for c in range(SIZE)) for r in range(SIZE))
    state = MazeState(grid, divmod(route[0], SIZE), divmod(route[-1], SIZE))
    if _distances(is_open, route[0])[route[-1]] != slot.length or count_simple_paths(state, limit=2) != 1:
        raise GenerationError(f"maze/{difficulty}: the maze fails its BFS or unique-path check: {to_json(state)}")
    return state


def _candidate(difficulty: str, slot: Slot, rng: np.random.Generator) -> tuple[int, bytearray, list[int]]:
    """One maze for ``slot`` and how far its four counts are from the paper's proportions."""
    paper = PAPER_STRUCTURE[difficulty]
    size = int(rng.integers(OPEN_CELLS[difficulty][0], OPEN_CELLS[difficulty][1] + 1))
    is_open = grow_tree(rng, _dfs_path(slot.length, rng, difficulty), size, INTERIOR, CORRIDOR_SPROUT_WEIGHT)
    route = _route_at_distance(is_open, slot.length, rng)
    degree = [sum(is_open[nb] for nb in NEIGHBOURS[i]) if is_open[i] else 0 for i in range(SIZE * SIZE)]
    cells, nodes = sum(is_open), len(route)
    targets_and_counts = (
        (paper.branch / paper.walkable * cells, sum(d >= 3 for d in degree)),
        (paper.corridor / paper.walkable * cells, degree.count(2)),
        (paper.path_branch / paper.path_nodes * nodes, sum(degree[i] >= 3 for i in route)),
        (paper.path_corridor / paper.path_nodes * nodes, sum(degree[i] == 2 for i in route)),
    )
    miss = sum(  # each target rounded down or up by the slot's quantile (offset per count)
        abs(count - int(target + (slot.quantile + k / 4) % 1.0)) for k, (target, count) in enumerate(targets_and_counts)
    )
    return miss, is_open, route


def _dfs_path(moves: int, rng: np.random.Generator, difficulty: str) -> list[int]:
    for _ in range(MAX_DFS_TRIES):
        path = induced_path(rng, moves, INTERIOR)
        if path is not None:
            return path
    raise GenerationError(f"maze/{difficulty}: no {moves}-move path in {MAX_DFS_TRIES} depth-first searches")


def _route_at_distance(is_open: bytearray, distance: int, rng: np.random.Generator) -> list[int]:
    """The cells from start to goal of a uniformly drawn ordered pair at ``distance`` in the tree."""
    cells = [i for i in range(SIZE * SIZE) if is_open[i]]
    pairs = [(source, cell) for source in cells for cell, d in _distances(is_open, source).items() if d == distance]
    source, goal = pairs[int(rng.integers(len(pairs)))]
    parent = _parents(is_open, source)
    route = [goal]
    while route[-1] != source:
        route.append(parent[route[-1]])
    return route[::-1]


def _parents(is_open: bytearray, source: int) -> dict[int, int]:
    parent = {source: source}
    queue = [source]
    for cell in queue:
        for nb in NEIGHBOURS[cell]:
            if is_open[nb] and nb not in parent:
                parent[nb] = cell
                queue.append(nb)
    return parent


def _distances(is_open: bytearray, source: int) -> dict[int, int]:
    dist = {source: 0}
    queue = [source]
    for cell in queue:
        d = dist[cell] + 1
        for nb in NEIGHBOURS[cell]:
            if is_open[nb] and nb not in dist:
                dist[nb] = d
                queue.append(nb)
    return dist
