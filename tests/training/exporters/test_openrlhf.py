"""OpenRLHF JSONL: read back by OpenRLHF's own ``blending_datasets``, ``PromptDataset`` and image loading."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.training.conftest import FIXED_STATES
from tests.training.exporters.readers import fixture, run_reader
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
    assert line["label"] == FIXED_STATES["maze"] and line["datasource"] == "vgau/maze"
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
