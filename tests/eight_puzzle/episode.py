"""How an episode plays an answer (``EPISODE_STEPS``): the answer's own slides, and a random *legal* slide.

The 8-puzzle's answer is its episode, so this group changes only the baseline's interactive step
(one of the slides the blank allows, where the default picks any direction of a random answer);
it is declared so that every consumer of ``episode_steps`` meets a family other than path.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from tests.eight_puzzle.rules import MOVES, apply_step
from tests.eight_puzzle.state import EightState
from vgau_data.puzzles.base import Direction, Illegal, walk
from vgau_data.puzzles.capabilities import EpisodeSteps


def answer_steps(state: EightState, answer: Sequence[Direction]) -> tuple[Direction, ...]:
    return tuple(answer)


def trajectory(state: EightState, answer: Sequence[Direction]) -> list[EightState]:
    return walk(state, answer, apply_step)


def random_step(state: EightState, rng: np.random.Generator) -> Direction:
    """One slide the blank allows, uniformly."""
    legal = [move for move in MOVES if not isinstance(apply_step(state, move), Illegal)]
    return legal[int(rng.integers(len(legal)))]


EPISODE_STEPS = EpisodeSteps(answer_steps=answer_steps, trajectory=trajectory, random_step=random_step)
