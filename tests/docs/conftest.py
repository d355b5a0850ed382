"""One tiny real dataset and the files the commands write from it, for the docs tests to read.

A one-row maze build (about a second), an oracle baseline scored with ``--details``, and a
scripted run of a protocol that draws and an interactive one: every file format the
Contract pages describe, written by the real commands.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from vgau_data.cli import main


@dataclass(frozen=True)
class Written:
    """Where the commands wrote; ``model_dir`` is the run's one model folder."""

    dataset: Path
    submission: Path
    results: Path
    details: Path
    model_dir: Path

    def lines(self, path: Path) -> list[dict[str, Any]]:
        return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


@pytest.fixture(scope="session")
def written(tmp_path_factory: pytest.TempPathFactory) -> Written:
    from vgau_data.builders import build_dataset

    root = tmp_path_factory.mktemp("docs")
    dataset = root / "dataset"
    one_row = {"easy": 1, "medium": 0, "hard": 0}
    build_dataset(dataset, seed=0, families=["maze"], counts=one_row, workers=1, progress=False)
    submission, results, details = root / "oracle.jsonl", root / "results.json", root / "details.jsonl"
    assert main(["baseline", "--kind", "oracle", "--dataset", str(dataset), "--out", str(submission)]) == 0
    scored = ["--out", str(results), "--details", str(details)]
    assert main(["score", str(submission), "--dataset", str(dataset), *scored]) == 0
    runs = root / "runs"
    command = ["run", "--backend", "scripted-image", "--model", "oracle", "--protocol", "self_gta", "oracle_vcot"]
    assert main([*command, "--runs", "1", "--dataset", str(dataset), "--out", str(runs), "--no-progress"]) == 0
    (model_dir,) = runs.iterdir()
    return Written(dataset, submission, results, details, model_dir)
