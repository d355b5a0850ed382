"""Rows the trace and export tests share: fixed states per family, a training folder, a benchmark build.

The fixed states are short puzzles written out as state JSON (docs/contract/states.md), so what the tests (and
the consumer fixtures under tests/data/training_consumers) expect does not move when a
generator changes. The training folder is laid out as ``vgau-data generate`` writes it,
with the ``visual_cot`` trace stored (through the kind's own ``features``) and every other
kind left for the exporters to compute; the benchmark folder is a real ``build_dataset``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.families import SHIPPED, family_table

FIXED_STATES: dict[str, str] = family_table("FIXED_STATE")
"""One short puzzle per family that keeps one (optimum 3 or 4; ``tests/puzzles/<family>/golden.py``)."""
TRAINING_STATES: dict[str, str] = {family: state for family, state in FIXED_STATES.items() if family in SHIPPED}
"""The rows of ``training_dir``: the ``FIXED_STATE`` of each family of the package that keeps one. Not one a test registers
(``VGAU_TEST_EXTRA_FAMILY``): the exporters' tests read the folder in fresh processes too, which know only the
package's registry, and compare with the trainers' readings recorded over these families
(``tests/data/training_consumers``)."""


def short_state(family: str) -> str:
    """The family's ``FIXED_STATE``, or, for a family that keeps none, its first easy row at seed 0 (state JSON)."""
    if family in FIXED_STATES:
        return FIXED_STATES[family]
    from vgau_data.registry import get_family
    from vgau_data.seeding import instance_seed, rng_for

    spec = get_family(family)
    return spec.to_json(spec.generate("easy", rng_for(instance_seed(0, family, "easy", 0)), spec.slot("easy", 0)))


STORED_KIND = "visual_cot"
"""The trace the training folder stores; the other kinds are computed by the exporters."""


def training_row(family: str, state_json: str, index: int, split: str = "train") -> dict[str, Any]:
    """A row as ``vgau-data generate`` writes it (the training columns), for a fixed state."""
    from vgau_data.registry import get_family
    from vgau_data.rendering import png_bytes

    spec = get_family(family)
    state = spec.from_json(state_json)
    solution = spec.solve(state)
    return {
        "id": f"{family}-{split}-{index:06d}", "family": family, "split": split, "band": "1-6", "seed": 1000 + index,
        "optimal_length": solution.optimal_length, "state": state_json, "solution": spec.answer_payload(solution.answer),
        "prompt": spec.question(state, "text_cot"), "image": {"bytes": png_bytes(spec.render(state)), "path": None},
    }  # fmt: skip


def write_training_folder(root: Path, rows_per_family: dict[str, list[dict[str, Any]]], kinds: tuple[str, ...]) -> Path:
    """``<root>/<family>/<split>-00000-of-00001.parquet`` with the rows and the traces of ``kinds``."""
    from datasets import Dataset, Features, Image, Value

    from vgau_data.registry import get_family
    from vgau_data.training.traces import get_trace_kind, trace_rng

    columns = {
        "id": Value("string"), "family": Value("string"), "split": Value("string"), "band": Value("string"),
        "seed": Value("int64"), "optimal_length": Value("int32"), "state": Value("string"),
        "solution": Value("string"), "prompt": Value("string"), "image": Image(),
    }  # fmt: skip
    for kind in kinds:
        columns |= get_trace_kind(kind).features()
    for family, rows in rows_per_family.items():
        spec = get_family(family)
        full = []
        for row in rows:
            state = spec.from_json(row["state"])
            answer = spec.answer_from_payload(row["solution"])
            traces = {}
            for kind in kinds:
                traces |= get_trace_kind(kind).columns(spec, state, answer, trace_rng(row["seed"], kind))
            full.append(row | traces)
        path = root / family / f"{rows[0]['split']}-00000-of-00001.parquet"
        path.parent.mkdir(parents=True, exist_ok=True)
        Dataset.from_list(full, features=Features(columns)).to_parquet(str(path))
    return root


@pytest.fixture(scope="session")
def training_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A training folder: one fixed row per family in ``train``, its ``visual_cot`` trace stored."""
    rows = {family: [training_row(family, state, 0)] for family, state in TRAINING_STATES.items()}
    return write_training_folder(tmp_path_factory.mktemp("training") / "rows", rows, (STORED_KIND,))


@pytest.fixture(scope="session")
def benchmark_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A real benchmark build: one easy row per family."""
    from vgau_data.builders import build_dataset

    out = tmp_path_factory.mktemp("benchmark") / "puzzles"
    build_dataset(out, seed=0, counts={"easy": 1, "medium": 0, "hard": 0}, workers=1, progress=False)
    return out


@pytest.fixture(scope="session")
def tiny_vlm(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A tiny random Qwen2-VL folder (model, tokenizer, image processor), built offline."""
    from vgau_data.testing.tiny_models import build_tiny_vlm

    return build_tiny_vlm("qwen2_vl", tmp_path_factory.mktemp("tiny") / "qwen2_vl")
