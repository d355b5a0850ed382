"""One press: it toggles the pressed light and its orthogonal neighbours. The goal: every light off."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from tests.toy_family.lights.state import OFF, ON, SIZE, LightsState
from vgau_data.puzzles.base import Cell, Illegal, Replay, replay_steps


def apply_step(state: LightsState, step: Cell) -> LightsState | Illegal:
    """Press ``step``; a cell off the board is ``out_of_bounds``, anything else not a cell ``unknown_action``.

    Example:
        >>> apply_step(LightsState(("...", "...", "...")), (0, 0)).lights
        ('##.', '#..', '...')
    """
    if not (isinstance(step, tuple) and len(step) == 2 and all(type(x) is int for x in step)):
        return Illegal("unknown_action", 0)
    r, c = step
    if not (0 <= r < SIZE and 0 <= c < SIZE):
        return Illegal("out_of_bounds", 0)
    flipped = {(r, c), (r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1)}
    rows = [
        "".join((OFF if char == ON else ON) if (i, j) in flipped else char for j, char in enumerate(row))
        for i, row in enumerate(state.lights)
    ]
    return LightsState(tuple(rows))


CELLS: Final = tuple((r, c) for r in range(SIZE) for c in range(SIZE))


def candidate_steps(state: LightsState) -> tuple[Cell, ...]:
    """Every lamp: each press is legal, and none leads where another does.

    Example:
        >>> len(candidate_steps(LightsState(("...", "...", "..."))))
        9
    """
    return CELLS


def is_goal(state: LightsState) -> bool:
    """Every light is off."""
    return all(ON not in row for row in state.lights)


def replay(state: LightsState, answer: Sequence[Cell]) -> Replay:
    """Press the answer's cells in order (the scorer's path is the step-by-step one here)."""
    return replay_steps(state, answer, apply_step, is_goal)
