"""Fixtures for the reward tests: real rows with their oracle answers, a small built dataset, tiny models.

``reward_rows`` are the 24 rows of ``tests/data/harness_outputs/references.jsonl`` (every
family and difficulty, as a real build wrote them), each with its oracle answer text.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from vgau_data.registry import FAMILIES

DATA = Path(__file__).resolve().parents[1] / "data"
CALLS = DATA / "rewards"
"""Fixtures of the exact arguments each trainer passes (written from their runs and source)."""


@pytest.fixture(scope="session")
def reward_rows() -> list[dict[str, Any]]:
    rows = []
    for line in (DATA / "harness_outputs" / "references.jsonl").read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        family = FAMILIES[row["task"]]
        row["answer"] = family.format_answer(family.answer_from_payload(row["solution"]))
        rows.append(row)
    return rows


@pytest.fixture(scope="session")
def calls() -> Callable[[str], Any]:
    """``calls(name)``: a trainer-call fixture from ``tests/data/rewards``."""
    return lambda name: json.loads((CALLS / name).read_text(encoding="utf-8"))


@pytest.fixture(scope="session")
def maze_dataset(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Two easy maze rows, built with images (the GRPO runs train on them)."""
    from vgau_data.builders import build_dataset

    out = tmp_path_factory.mktemp("maze_dataset")
    build_dataset(out, seed=0, families=["maze"], counts={"easy": 2, "medium": 0, "hard": 0}, workers=1, progress=False)
    return out


@pytest.fixture(scope="session")
def tiny_model(tmp_path_factory: pytest.TempPathFactory) -> Callable[..., Path]:
    """``tiny_model(reply)``: a tiny Qwen2-VL folder that always answers ``reply`` (built once per reply)."""
    from vgau_data.testing.tiny_models import build_tiny_vlm

    built: dict[str, Path] = {}

    def make(reply: str) -> Path:
        if reply not in built:
            built[reply] = build_tiny_vlm("qwen2_vl", tmp_path_factory.mktemp("tiny-qwen2-vl"), reply=reply)
        return built[reply]

    return make
