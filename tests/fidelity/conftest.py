"""One generated, solved instance per family and bucket, shared by the fidelity tests."""

from __future__ import annotations

from typing import Any

import pytest

from vgau_data.puzzles.base import DIFFICULTIES
from vgau_data.registry import FAMILIES
from vgau_data.seeding import instance_seed, rng_for


@pytest.fixture(scope="session")
def solved() -> dict[str, list[tuple[Any, Any]]]:
    """``family -> [(state, solution)]``, one per difficulty."""
    cases: dict[str, list[tuple[Any, Any]]] = {}
    for name, family in FAMILIES.items():
        for difficulty in DIFFICULTIES:
            state = family.generate(difficulty, rng_for(instance_seed(23, name, difficulty, 0)))
            cases.setdefault(name, []).append((state, family.solve(state)))
    return cases
