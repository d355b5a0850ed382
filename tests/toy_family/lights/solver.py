"""The exhaustive solver (BFS over the 512 boards) and the random baseline."""

from __future__ import annotations

from collections import deque

import numpy as np

from tests.toy_family.lights.rules import apply_step, is_goal
from tests.toy_family.lights.state import SIZE, LightsState
from vgau_data.puzzles.base import Cell, Illegal, Solution

CELLS: tuple[Cell, ...] = tuple((r, c) for r in range(SIZE) for c in range(SIZE))


def solve(state: LightsState) -> Solution | None:
    """The fewest presses that turn every light off (breadth first; every 3x3 board has a solution)."""
    parent: dict[LightsState, tuple[LightsState, Cell] | None] = {state: None}
    queue = deque([state])
    while queue:
        here = queue.popleft()
        if is_goal(here):
            presses = []
            while parent[here] is not None:
                here, cell = parent[here]
                presses.append(cell)
            return Solution(tuple(reversed(presses)), len(presses))
        for cell in CELLS:
            after = apply_step(here, cell)
            if not isinstance(after, Illegal) and after not in parent:
                parent[after] = (here, cell)
                queue.append(after)
    return None


def random_answer(state: LightsState, rng: np.random.Generator) -> tuple[Cell, ...]:
    """One to nine random presses (the random baseline)."""
    return tuple(CELLS[int(i)] for i in rng.integers(len(CELLS), size=int(rng.integers(1, 10))))
