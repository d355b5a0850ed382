"""Road maps as the authors' (a depth-first route grown into a road tree), labelled as theirs."""

from __future__ import annotations

import itertools
from typing import Final

import numpy as np

from vgau_data.errors import GenerationError
from vgau_data.puzzles.base import Slot, bucket_slot
from vgau_data.puzzles.grids import NEIGHBOURS, grow_tree, induced_path
from vgau_data.puzzles.path.state import LETTERS, N_LABELS, ROAD, SIZE, WALL, PathState

BUCKETS: Final[dict[str, tuple[int, int]]] = {"easy": (2, 5), "medium": (8, 14), "hard": (18, 25)}
LENGTH_MIX: Final[dict[str, dict[int, int]]] = {
    "easy": {2: 5, 3: 4, 4: 6, 5: 5},
    "medium": {8: 2, 9: 3, 10: 4, 11: 5, 12: 3, 13: 4, 14: 9},
    "hard": {18: 5, 19: 6, 20: 6, 21: 5, 22: 6, 23: 8, 24: 6, 25: 8},
}
"""Rows per path length in the authors' 100 published instances (their ``distance``, counted once)."""


MAX_ATTEMPTS: Final = 500
ROAD_CELLS: Final = (40, 66)
"""Range (half-open) of the road-cell count the generator grows the tree towards."""
ROUTE_SHAPE: Final[dict[str, tuple[float, float]]] = {
    "easy": (0.88, 1.0),
    "medium": (0.65, 0.81),
    "hard": (0.58, 0.54),
}
"""Per bucket, the authors' turns per inner path cell and start-end distance per move
(their means: 2.25 of 2.55, 6.93 of 10.73, 12.06 of 20.78; 3.55 of 3.55, 9.53 of 11.73,
11.86 of 21.78): easy routes are staircases, hard ones wind back."""
ROUTE_PROGRESS: Final = 1.0
ROUTE_TURN: Final = 0.6
"""The depth-first search's preference for moves away from the start and for turns
(``grids.induced_path``); tuned so its paths come near ``ROUTE_SHAPE`` unselected."""
ROUTE_CANDIDATES: Final = 8
ON_ROUTE_SHARE: Final = {2: 2, 3: 5, 4: 3}
"""Share of medium and hard rows with 2-4 labels on the path. The authors always put 3
there; a fixed count would tell a model the answer's length, so ours vary around it."""


def generate(difficulty: str, rng: np.random.Generator, slot: Slot | None = None) -> PathState:
    """A map whose start-end path has exactly ``slot.length`` moves.

    Lays the path as a random induced simple path (randomized DFS: each new cell touches
    only the previous one), grows side roads as an induced tree around it (which cannot
    shorten or duplicate the path), then labels it as the authors do: ``on_route_count``
    inner path cells, and the other labels on side roads next to the path (``decoy
    distances``), with the letters shuffled.

    Raises:
        ValueError: unknown difficulty, or a slot length outside the bucket.
        GenerationError: nothing fitted within the attempt budget.
    """
    slot = bucket_slot("path", BUCKETS, LENGTH_MIX, difficulty, rng, slot)
    on_count = on_route_count(difficulty, slot)
    for _ in range(MAX_ATTEMPTS):
        route = _sample_route(difficulty, slot, rng)
        is_road = grow_tree(rng, route, max(int(rng.integers(*ROAD_CELLS)), len(route) + N_LABELS))
        decoys = _decoys(is_road, route, N_LABELS - on_count, difficulty == "easy", rng)
        if decoys is None:
            continue
        inner = route[1:-1]
        cells = [inner[int(i)] for i in rng.choice(len(inner), size=on_count, replace=False)] + decoys
        order = rng.permutation(N_LABELS)
        labels = tuple(sorted((LETTERS[int(order[j])], divmod(cell, SIZE)) for j, cell in enumerate(cells)))
        grid = tuple("".join(ROAD if is_road[r * SIZE + c] else WALL for c in range(SIZE)) for r in range(SIZE))
        return PathState(grid, divmod(route[0], SIZE), divmod(route[-1], SIZE), labels)
    raise GenerationError(f"path/{difficulty}: no map with a {slot.length}-move path in {MAX_ATTEMPTS} attempts")


def _sample_route(difficulty: str, slot: Slot, rng: np.random.Generator) -> list[int]:
    """Of ``ROUTE_CANDIDATES`` induced paths of the slot's length, the nearest to the
    authors' shape: ``ROUTE_SHAPE``'s shares of turns and of start-end distance, each
    target rounded down or up by the slot's quantile."""
    turn_share, span_share = ROUTE_SHAPE[difficulty]
    turns_wanted = int(turn_share * (slot.length - 1) + slot.quantile)
    span_wanted = int(span_share * slot.length + (slot.quantile + 0.5) % 1.0)

    def miss(route: list[int]) -> int:
        cells = [divmod(cell, SIZE) for cell in route]
        steps = [(b[0] - a[0], b[1] - a[1]) for a, b in itertools.pairwise(cells)]
        turns = sum(a != b for a, b in itertools.pairwise(steps))
        span = abs(cells[0][0] - cells[-1][0]) + abs(cells[0][1] - cells[-1][1])
        return abs(turns - turns_wanted) + abs(span - span_wanted)

    routes: list[list[int]] = []
    for _ in range(MAX_ATTEMPTS):
        route = induced_path(rng, slot.length, progress=ROUTE_PROGRESS, turn=ROUTE_TURN)
        if route is not None:
            routes.append(route)
            if len(routes) == ROUTE_CANDIDATES:
                break
    if not routes:
        raise GenerationError(f"path/{difficulty}: no {slot.length}-move path in {MAX_ATTEMPTS} searches")
    return min(routes, key=miss)


def on_route_count(difficulty: str, slot: Slot) -> int:
    """Labels on the path: easy as many as fit, up to 3 (the authors' rule); else by ``ON_ROUTE_SHARE`` at the quantile.

    Example:
        >>> on_route_count("easy", Slot(2, 0.5)), on_route_count("easy", Slot(5, 0.5))
        (1, 3)
    """
    if difficulty == "easy":
        return min(3, slot.length - 1)
    total = sum(ON_ROUTE_SHARE.values())
    point = slot.quantile * total
    for count, share in ON_ROUTE_SHARE.items():
        if point < share:
            return count
        point -= share
    return max(ON_ROUTE_SHARE)


def _decoys(
    is_road: bytearray, route: list[int], count: int, spread: bool, rng: np.random.Generator
) -> list[int] | None:
    """``count`` side-road cells near the path: next to it, or with ``spread`` and more
    than two, one next to it and the rest two cells away (as the authors' easy maps);
    nearer or farther when none is left; None when the side roads are too few."""
    distance = dict.fromkeys(route, 0)
    queue = list(route)
    for cell in queue:
        for nb in NEIGHBOURS[cell]:
            if is_road[nb] and nb not in distance:
                distance[nb] = distance[cell] + 1
                queue.append(nb)
    free = [cell for cell in queue if distance[cell] > 0]
    if len(free) < count:
        return None
    wanted = [1] * count if count <= 2 or not spread else [1] + [2] * (count - 1)
    chosen: list[int] = []
    for d in wanted:
        nearest = min(abs(distance[cell] - d) for cell in free)
        options = [cell for cell in free if abs(distance[cell] - d) == nearest]
        pick = options[int(rng.integers(len(options)))]
        chosen.append(pick)
        free.remove(pick)
    return chosen
