"""The solver (the route is unique: its letters), and the random baselines of answers and steps."""

from __future__ import annotations

import numpy as np

from vgau_data.puzzles.base import DIRECTIONS, Solution
from vgau_data.puzzles.path.rules import _declares_in_order, _here, _route, _truth
from vgau_data.puzzles.path.state import PathState, PathStep


def solve(state: PathState) -> Solution | None:
    """The on-path letters and the path's moves (BFS over the road), None if unreachable.

    For a mid-episode state (the marker away from the start, or letters declared) the
    letters are still all the on-path ones, and the moves are those left from the marker to
    the destination (declarations go with any move, so only the walk counts; at the
    destination with letters missing, two moves: out and back). None when the
    declarations already went wrong.

    Example:
        >>> from vgau_data.puzzles.path.rules import apply_step
        >>> from vgau_data.puzzles.path.state import from_ascii
        >>> solve(from_ascii(["SA.T", "##B#"]))
        Solution(answer=('A',), optimal_length=3)
        >>> solve(apply_step(from_ascii(["SA.T", "##B#"]), PathStep("right", ("A",))))
        Solution(answer=('A',), optimal_length=2)
    """
    truth = _truth(state.grid, state.start, state.end, state.labels)
    if truth is None:
        return None
    letters, moves = truth
    if state.position is None and not state.declared:
        return Solution(letters, moves)
    if not _declares_in_order(state.declared, letters):
        return None
    route = _route(state.grid, _here(state), state.end)
    if route is None:
        return None
    distance = len(route) - 1
    return Solution(letters, 2 if distance == 0 and len(state.declared) < len(letters) else distance)


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
