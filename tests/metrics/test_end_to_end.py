"""The whole pipeline on a real (reduced) build: build_dataset -> baseline -> score / evaluate.load.

The 600-row check ("oracle 100% on every row, random near 0 on medium/hard, empty 0") is
``--run-slow`` (it builds the full dataset); the CI run uses one row per bucket.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.families import SHIPPED
from vgau_data.cli import main
from vgau_data.metrics.references import load_references
from vgau_data.metrics.scoring import make_reference
from vgau_data.puzzles.base import BUCKET_SIZES
from vgau_data.registry import FAMILIES

SMALL_COUNTS = {"easy": 1, "medium": 1, "hard": 1}


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from vgau_data.builders import build_dataset

    out = tmp_path_factory.mktemp("built")
    build_dataset(out, seed=0, counts=SMALL_COUNTS, workers=1, progress=False)  # spawned workers know no test family
    return out


def score_cli(dataset: Path, kind: str, tmp_path: Path, *extra: str) -> dict:
    submission, results = tmp_path / f"{kind}.jsonl", tmp_path / f"{kind}.json"
    assert main(["baseline", "--kind", kind, "--dataset", str(dataset), "--out", str(submission), *extra]) == 0
    assert main(["score", str(submission), "--dataset", str(dataset), "--out", str(results)]) == 0
    return json.loads(results.read_text(encoding="utf-8"))[f"baseline-{kind}"]["direct"]


def test_built_dataset__references_and_fingerprint(built: Path) -> None:
    from vgau_data.builders import dataset_fingerprint

    references = load_references(built)
    assert references.fingerprint == dataset_fingerprint(built)
    assert references.families == list(FAMILIES)
    assert len(references.rows) == len(FAMILIES) * sum(SMALL_COUNTS.values())


def test_built_dataset__oracle_one_empty_zero_via_the_cli(built: Path, tmp_path: Path) -> None:
    oracle = score_cli(built, "oracle", tmp_path)
    assert oracle["optimal_accuracy"] == oracle["feasible_accuracy"] == 1.0
    assert all(cell["optimal_accuracy"] == 1.0 for cells in oracle["per_family_difficulty"].values()
               for cell in cells.values())
    assert score_cli(built, "empty", tmp_path)["optimal_accuracy"] == 0.0


def test_built_dataset__evaluate_on_load_dataset_rows(built: Path) -> None:
    evaluate = pytest.importorskip("evaluate")
    datasets = pytest.importorskip("datasets")
    import vgau_data.metrics
    from vgau_data.metrics.baselines import oracle_output
    from vgau_data.metrics.references import rows_from_records

    metric = evaluate.load(vgau_data.metrics.solver_accuracy_path(), keep_in_memory=True)
    for family in FAMILIES:
        rows = datasets.load_dataset(str(built), family, split="test")
        rows = rows.select_columns(["id", "task", "difficulty", "optimal_length", "state", "solution"])
        records = list(rows)
        predictions = [oracle_output(row) for row in rows_from_records(records)]
        result = metric.compute(predictions=predictions, references=[make_reference(r) for r in records])
        assert result["optimal_accuracy"] == 1.0, family
        assert list(result["per_family"]) == [family]


@pytest.mark.slow
def test_full_dataset__oracle_random_empty(tmp_path: Path) -> None:
    """The issue's done criterion, on the 600-row build (several minutes)."""
    from vgau_data.builders import build_dataset

    dataset = tmp_path / "full"
    build_dataset(dataset, seed=0, families=SHIPPED, workers=2, progress=False)
    oracle = score_cli(dataset, "oracle", tmp_path)
    assert oracle["n"] == len(SHIPPED) * sum(BUCKET_SIZES.values())
    assert oracle["optimal_accuracy"] == oracle["feasible_accuracy"] == 1.0
    assert score_cli(dataset, "empty", tmp_path)["optimal_accuracy"] == 0.0
    random_result = score_cli(dataset, "random", tmp_path, "--runs", "3")
    for family, cells in random_result["per_family_difficulty"].items():
        for difficulty in ("medium", "hard"):
            assert cells[difficulty]["optimal_accuracy"] <= 0.05, (family, difficulty)
