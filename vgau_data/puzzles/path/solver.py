"""The solver (the route is unique: its letters), and the random baselines of answers and steps."""

from __future__ import annotations

import numpy as np

from vgau_data.puzzles.base import DIRECTIONS, Solution
from vgau_data.puzzles.path.rules import _truth
from vgau_data.puzzles.path.state import PathState, PathStep


def solve(state: PathState) -> Solution | None:
    """The on-path letters and the path's moves (BFS over the road), None if unreachable.

    Example:
        >>> from vgau_data.puzzles.path.state import from_ascii
        >>> solve(from_ascii(["SA.T", "##B#"]))
        Solution(answer=('A',), optimal_length=3)
    """
    truth = _truth(state.grid, state.start, state.end, state.labels)
    if truth is None:
        return None
    return Solution(truth[0], truth[1])


def random_answer(state: PathState, rng: np.random.Generator) -> tuple[str, ...]:
    """1 to 5 of the board's letters in random order: the random baseline."""
    letters = [letter for letter, _ in state.labels]
    if not letters:
        return ()
    order = rng.permutation(len(letters))
    count = int(rng.integers(1, len(letters) + 1))
    return tuple(letters[int(i)] for i in order[:count])


def random_step(state: PathState, rng: np.random.Generator) -> PathStep:
    """A random move declaring nothing: the random baseline of interactive episodes."""
    return PathStep(DIRECTIONS[int(rng.integers(len(DIRECTIONS)))])
