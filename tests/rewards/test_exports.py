"""The training exports' rows (``vgau-data export-training``) pay their oracle answers through each adapter."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq
import pytest

from tests.training.conftest import FIXED_STATES, training_row, write_training_folder
from vgau_data.registry import FAMILIES
from vgau_data.rewards.openrlhf import reward_payload
from vgau_data.rewards.trl import REWARD_FUNCTIONS, conversational_dataset
from vgau_data.rewards.verl import compute_score
from vgau_data.training.exporters import export_training, get_exporter

PROMPT = "<|im_start|>user\nSolve it.<|im_end|>\n<|im_start|>assistant\n"


@pytest.fixture(scope="module")
def training_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    rows = {family: [training_row(family, state, 0)] for family, state in FIXED_STATES.items()}
    return write_training_folder(tmp_path_factory.mktemp("training") / "rows", rows, ())


def _oracle(family: str) -> str:
    spec = FAMILIES[family]
    return spec.format_answer(spec.solve(spec.from_json(FIXED_STATES[family])).answer)


def _export(training_dir: Path, tmp_path: Path, name: str, **options: Any) -> list[Path]:
    out = tmp_path / name
    export_training(training_dir, get_exporter(name), out, progress=False, **options)
    return sorted(out.glob("*/train/*.*"))


def test_verl_rows__compute_score_reads_them_whole(training_dir: Path, tmp_path: Path) -> None:
    files = _export(training_dir, tmp_path, "verl", protocol="text_cot")
    assert len(files) == len(FIXED_STATES)
    for path in files:
        (row,) = pq.read_table(path).to_pylist()
        family = row["extra_info"]["family"]
        extra = {**row["extra_info"], "num_turns": None, "rollout_reward_scores": {}}  # as verl hands it over
        result = compute_score(row["data_source"], _oracle(family), row["reward_model"]["ground_truth"], extra)
        assert result == {"score": 1.0, "optimal": 1.0, "feasible": 1.0, "format": 1.0}, family  # no progress asked
        progress = compute_score(row["data_source"], _oracle(family), row["reward_model"]["ground_truth"], extra,
                                 kind="progress")  # fmt: skip
        assert progress == {"score": 1.0, "optimal": 1.0, "feasible": 1.0, "progress": 1.0, "format": 1.0}, family
        assert compute_score(row["data_source"], "no idea", row["reward_model"]["ground_truth"], extra)["score"] == 0.0


def test_openrlhf_rows__their_label_pays_the_oracle_answer(training_dir: Path, tmp_path: Path) -> None:
    files = _export(training_dir, tmp_path, "openrlhf", protocol="text_cot")
    rows = [json.loads(line) for path in files for line in path.read_text(encoding="utf-8").splitlines()]
    families = [row["family"] for row in rows]
    result = reward_payload([PROMPT + _oracle(f) for f in families], [PROMPT] * len(rows), [row["label"] for row in rows])
    assert result["rewards"] == [1.0] * len(rows)


def test_trl_rows__the_reward_functions_and_the_grpo_dataset_read_them(training_dir: Path, tmp_path: Path) -> None:
    import datasets

    files = _export(training_dir, tmp_path, "trl", traces="text_cot")
    rows = datasets.concatenate_datasets([datasets.Dataset.from_parquet(str(path)) for path in files])
    columns = {name: rows[name] for name in rows.column_names if name not in ("prompt", "completion")}
    completions = [[{"role": "assistant", "content": _oracle(family)}] for family in rows["family"]]
    assert REWARD_FUNCTIONS["optimal"](prompts=rows["prompt"], completions=completions, completion_ids=None,
                                       **columns) == [1.0] * len(rows)  # fmt: skip
    grpo = conversational_dataset(rows)  # the same rows as GRPO prompts
    assert grpo["task"] == rows["family"] and grpo["optimal_length"] == rows["optimal_length"]
