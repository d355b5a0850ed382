"""Trays drawn uniformly among those exactly ``slot.length`` slides from the goal."""

from __future__ import annotations

import numpy as np

from tests.eight_puzzle.solver import at_distance
from tests.eight_puzzle.state import EightState
from vgau_data.puzzles.base import Slot, bucket_slot

BUCKETS = {"easy": (2, 6), "medium": (8, 14), "hard": (16, 22)}
LENGTH_MIX = {
    "easy": {2: 4, 3: 4, 4: 4, 5: 4, 6: 4},
    "medium": {8: 4, 9: 4, 10: 4, 11: 4, 12: 5, 13: 5, 14: 4},
    "hard": {16: 7, 17: 7, 18: 7, 19: 7, 20: 7, 21: 7, 22: 8},
}


def generate(difficulty: str, rng: np.random.Generator, slot: Slot | None = None) -> EightState:
    """A tray whose optimum is ``slot.length`` (a uniform pick from the solver's table)."""
    slot = bucket_slot("eight_puzzle", BUCKETS, LENGTH_MIX, difficulty, rng, slot)
    trays = at_distance(slot.length)
    return EightState(trays[int(rng.integers(len(trays)))])
