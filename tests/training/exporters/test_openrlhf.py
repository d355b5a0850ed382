"""OpenRLHF JSONL: read back by OpenRLHF's own ``blending_datasets``, ``PromptDataset`` and image loading."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.training.conftest import TRAINING_STATES
from tests.training.exporters.readers import fixture, run_reader
from vgau_data.rewards.openrlhf import read_label
from vgau_data.training.exporters import export_training, get_exporter


@pytest.fixture(scope="module")
def exported(training_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("openrlhf") / "export"
    export_training(
        training_dir, get_exporter("openrlhf"), out, protocol="oracle_gta", families=["maze"], progress=False
    )
    return out / "maze" / "train" / "train-00000-of-00001.jsonl"


def test_lines_hold_prompt_label_and_data_uri_images(exported: Path) -> None:
    (line,) = [json.loads(text) for text in exported.read_text().splitlines()]
    assert line["datasource"] == "vgau/maze"
    label = json.loads(line["label"])
    assert label == {"ground_truth": TRAINING_STATES["maze"], "family": "maze", "optimal_length": line["optimal_length"]}
    # the reward reads the optimum from the label: it never solves the state
    assert read_label(line["label"]) == (TRAINING_STATES["maze"], "maze", line["optimal_length"])
    (message,) = line["prompt"]
    assert message["role"] == "user" and message["content"].count("<image>") == len(line["images"]) == 2
    assert all(uri.startswith("data:image/png;base64,iVBOR") for uri in line["images"])


def test_openrlhf_reads_the_export(exported: Path, tiny_vlm: Path, tmp_path: Path) -> None:
    live = run_reader("VGAU_OPENRLHF_PYTHON", "openrlhf_reader.py", tmp_path / "read.json", tiny_vlm, exported)
    fixture("openrlhf_promptdataset_qwen2_vl", live)


def test_the_export_matches_what_openrlhf_read(exported: Path) -> None:
    (seen,) = fixture("openrlhf_promptdataset_qwen2_vl")["rows"]
    (line,) = [json.loads(text) for text in exported.read_text().splitlines()]
    assert seen["label"] == line["label"] and seen["datasource"] == line["datasource"]
    assert seen["images"] == seen["grid_rows"] == len(line["images"]) and seen["prompt_ends_with_generation"]


def test_the_label_pays_an_optimal_answer_and_not_a_longer_one(exported: Path) -> None:
    from vgau_data.registry import get_family
    from vgau_data.rewards.openrlhf import score_queries

    (line,) = [json.loads(text) for text in exported.read_text().splitlines()]
    maze = get_family("maze")
    answer = maze.solve(maze.from_json(TRAINING_STATES["maze"])).answer
    back = {"up": "down", "down": "up", "left": "right", "right": "left"}
    detour = (*answer[:-1], back[answer[-1]], answer[-1], answer[-1])  # a step away and back first: legal here, longer
    texts = [maze.format_answer(answer), maze.format_answer(detour)]
    rewards, _ = score_queries(texts, ["", ""], [line["label"]] * 2, "optimal")
    assert list(rewards) == [1.0, 0.0]
    rewards, _ = score_queries(texts, ["", ""], [line["label"]] * 2, "feasible")
    assert list(rewards) == [1.0, 1.0]
