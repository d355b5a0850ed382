"""A small real build shared by the harness-bridge tests (every family, 2 easy + 1 medium rows)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest


@pytest.fixture(scope="session")
def bridge_dataset(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from vgau_data.builders import build_dataset

    out = tmp_path_factory.mktemp("bridge") / "puzzles"
    build_dataset(out, seed=0, counts={"easy": 2, "medium": 1, "hard": 0}, workers=1, progress=False)
    return out


@pytest.fixture(scope="session")
def decoded_rows(bridge_dataset: Path) -> dict[str, list[dict[str, Any]]]:
    """Rows as lmms-eval hands them to task functions: ``datasets`` rows with PIL images."""
    from vgau_data.builders.load import load_puzzles
    from vgau_data.registry import FAMILIES

    return {family: [dict(row) for row in load_puzzles(bridge_dataset, family)] for family in FAMILIES}
