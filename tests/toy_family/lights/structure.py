"""Structure statistics of Lights Out boards (the paper's authors published none: ``authors`` is None)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tests.toy_family.lights.state import ON, LightsState
from vgau_data.puzzles.capabilities import Measures, Statistic, Structure


def measure(state: LightsState, answer: Sequence[Any]) -> Measures:
    """Lit lamps and presses."""
    return {"lit": sum(row.count(ON) for row in state.lights), "presses": len(answer)}


STRUCTURE = Structure(statistics=(Statistic("lit", "lit lamps"), Statistic("presses", "presses")), measure=measure)
