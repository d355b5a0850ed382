"""Structure statistics of trays (no authors published 8-puzzle instances: ``authors`` is None)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tests.eight_puzzle.state import BLANK, GOAL, SIZE, EightState
from vgau_data.puzzles.capabilities import Measures, Statistic, Structure, manhattan


def measure(state: EightState, answer: Sequence[Any]) -> Measures:
    """Misplaced tiles, the Manhattan heuristic (a lower bound of the optimum) and the slides."""
    cells = [(divmod(index, SIZE), divmod(GOAL.index(letter), SIZE))
             for index, letter in enumerate(state.tiles) if letter != BLANK]  # fmt: skip
    return {
        "misplaced": sum(here != there for here, there in cells),
        "manhattan": sum(manhattan(here, there) for here, there in cells),
        "slides": len(answer),
    }


STRUCTURE = Structure(
    statistics=(Statistic("misplaced", "misplaced tiles"), Statistic("manhattan", "Manhattan sum"),
                Statistic("slides", "slides")),
    measure=measure,
)  # fmt: skip
