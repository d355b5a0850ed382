"""Boards laid out as the authors' and kept when their BFS optimum fits the row."""

from __future__ import annotations

from typing import Final

import numpy as np

from vgau_data.errors import GenerationError
from vgau_data.puzzles.base import Cell, Slot, bucket_slot
from vgau_data.puzzles.klotski.solver import _neighbours, _search
from vgau_data.puzzles.klotski.state import _GOAL_INDEX, EMPTY_CELLS, GOAL, INVENTORY, SIZE, KlotskiState

BUCKETS: Final = {"easy": (1, 4), "medium": (6, 10), "hard": (15, 20)}
LENGTH_MIX: Final[dict[str, dict[int, int]]] = {
    "easy": {1: 5, 2: 5, 3: 5, 4: 5},
    "medium": {6: 6, 7: 6, 8: 6, 9: 6, 10: 6},
    "hard": {15: 9, 16: 9, 17: 8, 18: 8, 19: 8, 20: 8},
}
"""Rows per optimum in the authors' 100 published instances (their ``optimal_steps``, counted once)."""


_EASY_RADIUS: Final = 6
TOP_VERTICALS: Final = 6
"""Vertical blocks a generated board starts with in rows 0-1 (the authors' boards have 5.6-6 there)."""
TRIM_SLACK: Final = 3
"""A random board whose optimum is up to this much longer than wanted (even past the
bucket) is walked along its optimal solution until exactly the wanted number of moves is left."""
_START_TARGETS: Final = {
    "medium": ((3, 1), (3, 2), (4, 1), (4, 3)),
    "hard": ((2, 2), (3, 1), (3, 2), (3, 3), (4, 0), (4, 1), (4, 3), (4, 4)),
}
"""Target top-left cells whose random tilings often have an optimum in the bucket
(measured: 4-12 ms per medium and 8-150 ms per hard instance, depending on the cell)."""
_MAX_ATTEMPTS: Final = {"easy": 2000, "medium": 2000, "hard": 3000}


def _random_tiling(target: Cell, rng: np.random.Generator) -> str | None:
    """A random board laid out like the authors': six vertical blocks fill rows 0-1, the
    target sits at ``target`` and the other blocks fill rows 2-5 at random (None when the
    dominoes jam)."""
    chars = [""] * (SIZE * SIZE)
    for col in range(TOP_VERTICALS):
        chars[col], chars[SIZE + col] = "v", "w"
    index = target[0] * SIZE + target[1]
    for offset, code in zip((0, 1, SIZE, SIZE + 1), "ABCD"):
        chars[index + offset] = code
    order = ["v"] * (INVENTORY["vertical"] - TOP_VERTICALS) + ["h"] * INVENTORY["horizontal"]
    for slot in rng.permutation(len(order)):
        if order[slot] == "v":
            spots = [i for i in range(SIZE * (SIZE - 1)) if not chars[i] and not chars[i + SIZE]]
            other = SIZE
        else:
            spots = [i for i in range(SIZE * SIZE) if i % SIZE < SIZE - 1 and not chars[i] and not chars[i + 1]]
            other = 1
        if not spots:
            return None
        spot = spots[int(rng.integers(len(spots)))]
        chars[spot], chars[spot + other] = ("v", "w") if other == SIZE else ("h", "i")
    free = [i for i in range(SIZE * SIZE) if not chars[i]]
    for i in free:
        chars[i] = "s"
    for pick in rng.choice(len(free), EMPTY_CELLS, replace=False):
        chars[free[int(pick)]] = "."
    return "".join(chars)


def _generate_easy(rng: np.random.Generator, want: int, high: int) -> KlotskiState:
    """Walk backward from a random goal tiling: a BFS ball of slides around it holds boards
    whose target has moved; keep one whose exact optimum is ``want``."""
    for _ in range(_MAX_ATTEMPTS["easy"]):
        goal = _random_tiling(GOAL, rng)
        if goal is None:
            continue
        seen = {goal}
        layer = [goal]
        candidates: list[str] = []
        for depth in range(1, _EASY_RADIUS + 1):
            following = []
            for board in layer:
                for nxt in _neighbours(board):
                    if nxt not in seen:
                        seen.add(nxt)
                        following.append(nxt)
                        if depth >= want and nxt[_GOAL_INDEX] != "A":
                            candidates.append(nxt)
            layer = following
        for pick in rng.permutation(len(candidates)):
            path = _search(candidates[int(pick)], high)
            if path is not None and len(path) - 1 == want:
                return KlotskiState(candidates[int(pick)])
    raise GenerationError(f"klotski/easy: no board of length {want} in {_MAX_ATTEMPTS['easy']} goal tilings")


def generate(difficulty: str, rng: np.random.Generator, slot: Slot | None = None) -> KlotskiState:
    """A random board whose BFS optimum lies in ``BUCKETS[difficulty]``.

    Deterministic for a given ``rng`` state.

    Raises:
        ValueError: an unknown difficulty.
        GenerationError: nothing found within the attempt budget (practically never).

    Example:
        >>> from vgau_data.puzzles.klotski.solver import solve
        >>> state = generate("medium", np.random.default_rng(0))
        >>> 6 <= solve(state).optimal_length <= 10
        True
    """
    slot = bucket_slot("klotski", BUCKETS, LENGTH_MIX, difficulty, rng, slot)
    if difficulty == "easy":
        return _generate_easy(rng, slot.length, BUCKETS["easy"][1])
    starts = _START_TARGETS[difficulty]
    depth = slot.length + TRIM_SLACK
    for _ in range(_MAX_ATTEMPTS[difficulty]):
        board = _random_tiling(starts[int(rng.integers(len(starts)))], rng)
        if board is None:
            continue
        path = _search(board, depth)
        if path is not None and len(path) - 1 >= slot.length:
            return KlotskiState(path[len(path) - 1 - slot.length])
    raise GenerationError(f"klotski/{difficulty}: no board in {_MAX_ATTEMPTS[difficulty]} attempts")
