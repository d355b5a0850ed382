"""The exhaustive solver: one breadth-first search from the goal over the 181,440 solvable trays, kept."""

from __future__ import annotations

import functools
from collections import deque

import numpy as np

from tests.eight_puzzle.rules import MOVES, apply_step, is_goal, source
from tests.eight_puzzle.state import BLANK, GOAL, SIZE, EightState
from vgau_data.puzzles.base import Direction, Illegal, Solution


@functools.cache
def distances() -> dict[str, int]:
    """Fewest slides to the goal of every solvable tray (slides are reversible, so BFS from the goal).

    The search swaps characters of the tray string: for each blank cell, the cells whose tile can slide
    into it (``rules.source``, so the rules are the one place that says which)."""
    cells = SIZE * SIZE
    trays = [EightState("x" * blank + BLANK + "x" * (cells - 1 - blank)) for blank in range(cells)]
    sources = [[index for move in MOVES if (index := source(tray, move)) is not None] for tray in trays]
    found = {GOAL: 0}
    queue = deque([GOAL])
    while queue:
        here = queue.popleft()
        depth = found[here] + 1
        blank = here.index(BLANK)
        for index in sources[blank]:
            tiles = list(here)
            tiles[blank], tiles[index] = tiles[index], BLANK
            after = "".join(tiles)
            if after not in found:
                found[after] = depth
                queue.append(after)
    return found


@functools.cache
def at_distance(length: int) -> tuple[str, ...]:
    """Every tray exactly ``length`` slides from the goal, sorted (the generator draws from them)."""
    return tuple(sorted(tiles for tiles, depth in distances().items() if depth == length))


def solve(state: EightState) -> Solution | None:
    """The fewest slides, first direction in ``MOVES`` order at each step; None for the other parity."""
    table = distances()
    if state.tiles not in table:
        return None
    answer: list[Direction] = []
    while not is_goal(state):
        for move in MOVES:
            after = apply_step(state, move)
            if not isinstance(after, Illegal) and table.get(after.tiles) == table[state.tiles] - 1:
                answer.append(move)
                state = after
                break
    return Solution(tuple(answer), len(answer))


def random_answer(state: EightState, rng: np.random.Generator) -> tuple[Direction, ...]:
    """One to twenty random directions (the random baseline)."""
    return tuple(MOVES[int(i)] for i in rng.integers(len(MOVES), size=int(rng.integers(1, 21))))
