"""Boards made by pressing ``slot.length`` distinct cells of a dark board: the optimum is that count."""

from __future__ import annotations

import numpy as np

from tests.toy_family.lights.rules import apply_step
from tests.toy_family.lights.solver import CELLS
from tests.toy_family.lights.state import OFF, SIZE, LightsState
from vgau_data.puzzles.base import Slot, bucket_slot

BUCKETS = {"easy": (1, 2), "medium": (3, 5), "hard": (6, 9)}
LENGTH_MIX = {"easy": {1: 8, 2: 12}, "medium": {3: 10, 4: 10, 5: 10}, "hard": {6: 25, 7: 25}}


def generate(difficulty: str, rng: np.random.Generator, slot: Slot | None = None) -> LightsState:
    """A board whose fewest presses are ``slot.length`` (presses commute and two undo each other, so
    ``k`` distinct presses of the dark board need exactly ``k`` to undo: 3x3 Lights Out has one
    solution per board)."""
    slot = bucket_slot("lights", BUCKETS, LENGTH_MIX, difficulty, rng, slot)
    state = LightsState((OFF * SIZE,) * SIZE)
    for index in rng.choice(len(CELLS), size=slot.length, replace=False):
        state = apply_step(state, CELLS[int(index)])
    return state
