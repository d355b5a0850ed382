"""One slide: the tile beside the blank moves into it. The goal: ``ABC/DEF/GH.``."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from tests.eight_puzzle.state import GOAL, SIZE, EightState
from vgau_data.puzzles.base import DELTAS, DIRECTIONS, Direction, Illegal, Replay, replay_steps


def source(state: EightState, step: Direction) -> int | None:
    """The index of the tile that slides ``step`` into the blank, or None when the blank has no tile there."""
    dr, dc = DELTAS[step]
    r, c = state.blank
    r, c = r - dr, c - dc  # the tile moving up comes from below the blank
    return r * SIZE + c if 0 <= r < SIZE and 0 <= c < SIZE else None


def apply_step(state: EightState, step: Direction) -> EightState | Illegal:
    """Slide the tile beside the blank ``step``-wards; no tile on that side is ``out_of_bounds``.

    Example:
        >>> apply_step(EightState("ABCDEFG.H"), "left").tiles
        'ABCDEFGH.'
        >>> apply_step(EightState("ABCDEFGH."), "left")
        Illegal(code='out_of_bounds', step_index=0)
    """
    if step not in DIRECTIONS:
        return Illegal("unknown_action", 0)
    index = source(state, step)
    if index is None:
        return Illegal("out_of_bounds", 0)
    blank = state.tiles.index(".")
    tiles = list(state.tiles)
    tiles[blank], tiles[index] = tiles[index], tiles[blank]
    return EightState("".join(tiles))


MOVES: Final[tuple[Direction, ...]] = ("up", "down", "left", "right")


def candidate_steps(state: EightState) -> tuple[Direction, ...]:
    """The four directions: each slides a different tile, or is refused."""
    return MOVES


def is_goal(state: EightState) -> bool:
    return state.tiles == GOAL


def replay(state: EightState, answer: Sequence[Direction]) -> Replay:
    """Slide the answer's tiles in order (the step-by-step path: nine cells need no faster one)."""
    return replay_steps(state, answer, apply_step, is_goal)
