"""Fixtures for the scoring tests: a small dataset made from the families directly.

``scoring_dataset`` is a folder in the Hub layout holding only the scoring columns
(``id, task, difficulty, optimal_length, state, solution``), two rows per family and
difficulty, generated and solved with each family's own ``generate``/``solve``. It needs
no image rendering, so every test file stays fast; ``tests/metrics/test_end_to_end.py``
uses a real ``build_dataset`` folder.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from vgau_data.metrics.references import ReferenceSet, load_references
from vgau_data.puzzles.base import DIFFICULTIES
from vgau_data.registry import FAMILIES
from vgau_data.seeding import instance_seed, rng_for

ROWS_PER_BUCKET = 2


def family_rows(family: str, per_bucket: int = ROWS_PER_BUCKET, master_seed: int = 7) -> list[dict[str, Any]]:
    spec = FAMILIES[family]
    rows = []
    for difficulty in DIFFICULTIES:
        for index in range(per_bucket):
            seed = instance_seed(master_seed, family, difficulty, index)
            state = spec.generate(difficulty, rng_for(seed))
            solution = spec.solve(state)
            assert solution is not None
            rows.append(
                {
                    "id": f"{family}-{difficulty}-{index:04d}",
                    "task": family,
                    "difficulty": difficulty,
                    "optimal_length": solution.optimal_length,
                    "state": spec.to_json(state),
                    "solution": spec.answer_payload(solution.answer),
                }
            )
    return rows


def write_scoring_folder(folder: Path, rows_by_family: dict[str, list[dict[str, Any]]]) -> Path:
    import pyarrow as pa
    import pyarrow.parquet as pq

    schema = pa.schema(
        [
            ("id", pa.string()),
            ("task", pa.string()),
            ("difficulty", pa.string()),
            ("optimal_length", pa.int32()),
            ("state", pa.string()),
            ("solution", pa.string()),
        ]
    )
    for family, rows in rows_by_family.items():
        (folder / family).mkdir(parents=True, exist_ok=True)
        pq.write_table(pa.Table.from_pylist(rows, schema=schema), folder / family / "test-00000-of-00001.parquet")
    return folder


@pytest.fixture(scope="session")
def scoring_rows() -> dict[str, list[dict[str, Any]]]:
    return {family: family_rows(family) for family in FAMILIES}


@pytest.fixture(scope="session")
def scoring_dataset(tmp_path_factory: pytest.TempPathFactory, scoring_rows: dict[str, list[dict[str, Any]]]) -> Path:
    return write_scoring_folder(tmp_path_factory.mktemp("scoring_dataset"), scoring_rows)


@pytest.fixture(scope="session")
def references(scoring_dataset: Path) -> ReferenceSet:
    return load_references(scoring_dataset)


HARNESS_OUTPUTS = Path(__file__).resolve().parents[1] / "data" / "harness_outputs"
"""Files lmms-eval and VLMEvalKit really wrote, and the scoring columns they were made on."""


def scoring_folder_from(references_jsonl: Path, folder: Path) -> Path:
    """A scoring folder of the rows in a fixture's ``references.jsonl`` (the build a harness ran on)."""
    import json

    rows: dict[str, list[dict[str, Any]]] = {}
    for line in references_jsonl.read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        rows.setdefault(row["task"], []).append(row)
    return write_scoring_folder(folder, rows)


@pytest.fixture(scope="session")
def real_dataset(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The scoring columns of the build the ``HARNESS_OUTPUTS`` files were made on."""
    return scoring_folder_from(HARNESS_OUTPUTS / "references.jsonl", tmp_path_factory.mktemp("harness_dataset"))


@pytest.fixture(scope="session")
def real_references(real_dataset: Path) -> ReferenceSet:
    return load_references(real_dataset)


HARNESS_V2 = HARNESS_OUTPUTS / "lmms_eval_0.7.3_tasks_v2"
"""lmms-eval 0.7.3 runs of the version-2 task files (and two of version 1), with the build they were made on."""


@pytest.fixture(scope="session")
def harness_v2_dataset(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The scoring columns of the build the ``HARNESS_V2`` runs (and ``vlmevalkit_e8e78f05_v2``) were made on."""
    return scoring_folder_from(HARNESS_V2 / "references.jsonl", tmp_path_factory.mktemp("harness_v2"))
