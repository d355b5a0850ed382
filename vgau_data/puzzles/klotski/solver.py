"""The exhaustive solver (BFS over whole boards, neighbours from the two empty cells) and the random baseline."""

from __future__ import annotations

from typing import Final

import numpy as np

from vgau_data.errors import SearchLimitError
from vgau_data.puzzles.base import DIRECTIONS, Solution
from vgau_data.puzzles.klotski.rules import apply_step, legal_steps
from vgau_data.puzzles.klotski.state import _GOAL_INDEX, _KIND_OF_TOP_LEFT, SIZE, KlotskiState, Step

SOLVE_MAX_STATES: Final = 3_000_000
"""``solve`` gives up past this many boards (the largest component of a generated board
is far smaller; an unsolvable hand-made board could otherwise hold a search for minutes)."""


def _neighbours(s: str) -> list[str]:
    """Every board one slide away from ``s``, generated from its two empty cells.

    A block can only move into an empty cell, so each empty cell ``e`` looks at its four
    neighbours for a block that slides into it; 2-cell-wide moves (a horizontal block or
    the target moving vertically, a vertical block or the target moving sideways) need
    both empty cells side by side and are generated once, from the first empty cell.
    """
    e1 = s.find(".")
    e2 = s.find(".", e1 + 1)
    out = []
    for e in (e1, e2):
        r, c = divmod(e, SIZE)
        if r > 0:  # block above slides down into e
            n = e - 6
            k = s[n]
            if k == "s":
                out.append(s[:n] + "." + s[n + 1 : e] + "s" + s[e + 1 :])
            elif k == "w":
                out.append(s[: n - 6] + "." + s[n - 5 : n] + "v" + s[n + 1 : e] + "w" + s[e + 1 :])
        if r < 5:  # block below slides up into e
            n = e + 6
            k = s[n]
            if k == "s":
                out.append(s[:e] + "s" + s[e + 1 : n] + "." + s[n + 1 :])
            elif k == "v":
                out.append(s[:e] + "v" + s[e + 1 : n] + "w" + s[n + 1 : n + 6] + "." + s[n + 7 :])
        if c > 0:  # block on the left slides right into e
            k = s[e - 1]
            if k == "s":
                out.append(s[: e - 1] + ".s" + s[e + 1 :])
            elif k == "i":
                out.append(s[: e - 2] + ".hi" + s[e + 1 :])
        if c < 5:  # block on the right slides left into e
            k = s[e + 1]
            if k == "s":
                out.append(s[:e] + "s." + s[e + 2 :])
            elif k == "h":
                out.append(s[:e] + "hi." + s[e + 3 :])
    e = e1
    r, c = divmod(e, SIZE)
    if e2 == e + 1 and c < 5:  # empty pair side by side: 2-wide blocks move vertically
        if r > 0:
            n = e - 6
            k = s[n]
            if k == "h":
                out.append(s[:n] + ".." + s[n + 2 : e] + "hi" + s[e + 2 :])
            elif k == "C":
                out.append(s[: n - 6] + ".." + s[n - 4 : n] + "AB" + s[n + 2 : e] + "CD" + s[e + 2 :])
        if r < 5:
            n = e + 6
            k = s[n]
            if k == "h":
                out.append(s[:e] + "hi" + s[e + 2 : n] + ".." + s[n + 2 :])
            elif k == "A":
                out.append(s[:e] + "AB" + s[e + 2 : n] + "CD" + s[n + 2 : n + 6] + ".." + s[n + 8 :])
    elif e2 == e + 6:  # empty pair stacked: 2-tall blocks move sideways
        if c > 0:
            n = e - 1
            k = s[n]
            if k == "v":
                out.append(s[:n] + ".v" + s[e + 1 : n + 6] + ".w" + s[e2 + 1 :])
            elif k == "B":
                out.append(s[: n - 1] + ".AB" + s[e + 1 : n + 5] + ".CD" + s[e2 + 1 :])
        if c < 5:
            n = e + 1
            k = s[n]
            if k == "v":
                out.append(s[:e] + "v." + s[n + 1 : e2] + "w." + s[e2 + 2 :])
            elif k == "A":
                out.append(s[:e] + "AB." + s[n + 2 : e2] + "CD." + s[e2 + 3 :])
    return out


def _search(start: str, max_depth: int | None = None, max_states: int | None = None) -> list[str] | None:
    """Breadth-first search from ``start`` to any goal board.

    Returns the boards of one shortest path (``start`` first), or None when no goal lies
    within ``max_depth`` slides (``None``: the whole component is searched).

    Raises:
        SearchLimitError: when more than ``max_states`` boards were met first (None: no limit).
    """
    if start[_GOAL_INDEX] == "A":
        return [start]
    parent: dict[str, str | None] = {start: None}
    layer = [start]
    depth = 0
    while layer and (max_depth is None or depth < max_depth):
        depth += 1
        following = []
        for board in layer:
            for nxt in _neighbours(board):
                if nxt not in parent:
                    parent[nxt] = board
                    if nxt[_GOAL_INDEX] == "A":
                        path: list[str] = [nxt]
                        while (prev := parent[path[-1]]) is not None:
                            path.append(prev)
                        return path[::-1]
                    following.append(nxt)
            if max_states is not None and len(parent) > max_states:
                raise SearchLimitError(f"klotski solve: more than {max_states} positions")
        layer = following
    return None


def _step_between(before: str, after: str) -> Step:
    """The slide that turns ``before`` into ``after`` (the moved block's old top-left
    cell always changes, so only changed top-left cells are tried)."""
    state = KlotskiState(before)
    for index, (old, new) in enumerate(zip(before, after)):
        if old != new and old in _KIND_OF_TOP_LEFT:
            for direction in DIRECTIONS:
                step = (divmod(index, SIZE), direction)
                moved = apply_step(state, step)
                if isinstance(moved, KlotskiState) and moved.cells == after:
                    return step
    raise RuntimeError(f"no single slide turns {before} into {after}")  # pragma: no cover


def solve(state: KlotskiState, max_states: int = SOLVE_MAX_STATES) -> Solution | None:
    """A shortest answer by breadth-first search over whole boards, or None if unsolvable.

    An unsolvable board searches its whole component, which can hold 10^5+ boards. The
    rewards solve a row that lacks ``optimal_length`` with this search, limited to their
    budget's positions (``rewards.budget``): it meets boards several times faster than a
    search over the family's rules.

    Raises:
        SearchLimitError: when more than ``max_states`` boards were met first.

    Example:
        >>> from vgau_data.puzzles.klotski.state import EXAMPLE
        >>> solve(EXAMPLE)
        Solution(answer=(((3, 2), 'down'),), optimal_length=1)
    """
    path = _search(state.cells, max_states=max_states)
    if path is None:
        return None
    steps = tuple(_step_between(a, b) for a, b in zip(path, path[1:]))
    return Solution(answer=steps, optimal_length=len(steps))


def random_answer(state: KlotskiState, rng: np.random.Generator) -> tuple[Step, ...]:
    """A random walk of 1-20 legal slides (it stops early if no slide is legal)."""
    steps: list[Step] = []
    for _ in range(int(rng.integers(1, 21))):
        options = legal_steps(state)
        if not options:
            break
        step = options[int(rng.integers(len(options)))]
        steps.append(step)
        state = apply_step(state, step)  # type: ignore[assignment]
    return tuple(steps)
