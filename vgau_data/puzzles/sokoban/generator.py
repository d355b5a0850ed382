"""Sokoban rooms as the authors' (a wall ring, scattered walls), searched backward from the solved states."""

from __future__ import annotations

from typing import Final

import numpy as np

from vgau_data.errors import GenerationError
from vgau_data.puzzles.base import Cell, Slot, bucket_slot
from vgau_data.puzzles.sokoban.solver import _board, _index, solve
from vgau_data.puzzles.sokoban.state import FLOOR, SIZE, WALL, SokobanState, to_json

BUCKETS: Final[dict[str, tuple[int, int]]] = {"easy": (1, 8), "medium": (10, 16), "hard": (20, 39)}
LENGTH_MIX: Final[dict[str, dict[int, int]]] = {
    "easy": {1: 5, 2: 1, 3: 4, 5: 1, 6: 1, 7: 6, 8: 2},
    "medium": {10: 1, 11: 4, 12: 6, 13: 4, 14: 5, 15: 4, 16: 6},
    "hard": {20: 11, 21: 4, 22: 5, 23: 4, 24: 10, 25: 3, 26: 1, 28: 2, 30: 1, 31: 1, 32: 2, 33: 3, 35: 2, 39: 1},
}
"""Rows per optimum in the authors' 100 published instances (their ``optimal_steps``, counted once)."""
INNER_WALLS: Final[dict[str, tuple[int, int]]] = {"easy": (4, 11), "medium": (11, 17), "hard": (16, 23)}
"""Walls inside the border ring, per bucket (the authors' boards: 4-11, 12-18, 18-24; means 7.6, 14.3, 19.4)."""
PLAYER_TO_BOX: Final[dict[str, int]] = {"easy": 4, "medium": 5, "hard": 5}
"""Preferred player-box distance among equally long, equally pushy states (the authors' means: 3, 5, 5)."""


def _distances(grid: tuple[str, ...], target: Cell) -> tuple[dict[int, int], dict[int, int]]:
    """Retrograde BFS from every goal state (box on ``target``, player anywhere).

    Returns ``dist`` (exact optimum of every solvable state key) and ``pushes`` (fewest
    pushes among that state's optimal solutions), in BFS order.
    """
    width, free = _board(grid)
    n = len(free)
    goal = _index(target, width)
    frontier = [p * n + goal for p in range(n) if free[p] and p != goal]
    dist = dict.fromkeys(frontier, 0)
    pushes = dict.fromkeys(frontier, 0)
    offsets = (-width, width, -1, 1)
    depth = 0
    while frontier:
        depth += 1
        nxt = []
        for key in frontier:
            player, box = divmod(key, n)
            count = pushes[key]
            for off in offsets:
                back = player - off  # where the player stood one step earlier
                if not free[back]:
                    continue
                if back != box:  # the player walked in direction off
                    _relax(back * n + box, depth, count, dist, pushes, nxt)
                if box == player + off:  # the player pushed the box from `player` to `box`
                    _relax(back * n + player, depth, count + 1, dist, pushes, nxt)
        frontier = nxt
    return dist, pushes


def _relax(key: int, depth: int, count: int, dist: dict[int, int], pushes: dict[int, int], nxt: list[int]) -> None:
    seen = dist.get(key)
    if seen is None:
        dist[key] = depth
        pushes[key] = count
        nxt.append(key)
    elif seen == depth and count < pushes[key]:
        pushes[key] = count


def generate(
    difficulty: str, rng: np.random.Generator, slot: Slot | None = None, *, max_attempts: int = 2000
) -> SokobanState:
    """A 10x10 board whose true optimum is exactly ``slot.length``.

    Samples a wall layout like the authors' (a full border ring and ``INNER_WALLS``
    scattered walls inside it; floor cells the player cannot reach stay floor) and a
    target, runs one retrograde BFS for the exact distance of every (player, box) state,
    and picks a state at the slot's length: among them ordered by the pushes their optimal
    solutions need, the pushes at ``slot.quantile`` (the wall count, too, sits at a
    quantile of its range, so a bucket spreads evenly over both), then the player-box
    distance nearest ``PLAYER_TO_BOX``. A map without such a state is redrawn.

    Raises:
        ValueError: for an unknown difficulty or a slot length outside the bucket.
        GenerationError: when no map in ``max_attempts`` holds such a state.

    Example:
        >>> s = generate("hard", np.random.default_rng(0))
        >>> 20 <= solve(s).optimal_length <= 39
        True
    """
    slot = bucket_slot("sokoban", BUCKETS, LENGTH_MIX, difficulty, rng, slot)
    for _ in range(max_attempts):
        grid = _sample_grid(INNER_WALLS[difficulty], (slot.quantile + 0.5) % 1.0, rng)
        floor = [(r, c) for r in range(SIZE) for c in range(SIZE) if grid[r][c] == FLOOR]
        target = floor[int(rng.integers(len(floor)))]
        dist, pushes = _distances(grid, target)
        picks = [key for key, d in dist.items() if d == slot.length]
        if not picks:
            continue
        picks.sort(key=lambda key: (pushes[key], key))  # the slot's quantile spreads pushes over the bucket
        count = pushes[picks[int(slot.quantile * len(picks))]]
        player, box = min(
            (divmod(key, (SIZE + 2) ** 2) for key in picks if pushes[key] == count),
            key=lambda pair: abs(_walk_distance(*pair) - PLAYER_TO_BOX[difficulty]),
        )
        state = SokobanState(grid, _cell(player), _cell(box), target)
        solution = solve(state)
        if solution is None or solution.optimal_length != slot.length:
            raise GenerationError(f"sokoban/{difficulty}: retrograde and forward BFS disagree on {to_json(state)}")
        return state
    raise GenerationError(f"sokoban/{difficulty}: no map with a state of length {slot.length} in {max_attempts} tries")


def _walk_distance(player: int, box: int) -> int:
    """Manhattan distance between two cells of the padded board."""
    (pr, pc), (br, bc) = divmod(player, SIZE + 2), divmod(box, SIZE + 2)
    return abs(pr - br) + abs(pc - bc)


def _cell(index: int) -> Cell:
    r, c = divmod(index, SIZE + 2)
    return (r - 1, c - 1)


def _sample_grid(count: tuple[int, int], quantile: float, rng: np.random.Generator) -> tuple[str, ...]:
    """A wall ring around the board and walls scattered inside it, their number at ``quantile`` of ``count``."""
    low, high = count
    inside = [(r, c) for r in range(1, SIZE - 1) for c in range(1, SIZE - 1)]
    n_walls = low + int(quantile * (high - low + 1))
    walls = {inside[int(i)] for i in rng.choice(len(inside), size=n_walls, replace=False)}
    return tuple(
        "".join(WALL if r in (0, SIZE - 1) or c in (0, SIZE - 1) or (r, c) in walls else FLOOR for c in range(SIZE))
        for r in range(SIZE)
    )
