"""LLaMA-Factory sharegpt: read back by LLaMA-Factory's own ``get_dataset`` (converter, qwen2_vl template, mm_plugin)."""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from tests.training.conftest import TRAINING_STATES
from tests.training.exporters.readers import fixture, run_reader
from vgau_data.training.exporters import export_training, get_exporter
from vgau_data.training.exporters.llamafactory import dataset_name

DATASETS = ",".join(dataset_name(family, "train") for family in TRAINING_STATES)


@pytest.fixture(scope="module")
def exported(training_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("llamafactory") / "export"
    export_training(training_dir, get_exporter("llamafactory"), out, traces="visual_cot", progress=False)
    return out


def _rows(exported: Path) -> list[dict]:
    return [row for family in TRAINING_STATES for row in pq.read_table(exported / family / "train").to_pylist()]


def test_conversations_alternate_and_tags_equal_images(exported: Path) -> None:
    info = json.loads((exported / "dataset_info.json").read_text())
    assert info[dataset_name("maze", "train")]["columns"] == {"messages": "conversations", "images": "images"}
    for row in _rows(exported):
        turns = row["conversations"]
        assert [t["from"] for t in turns] == ["human", "gpt"] * (len(turns) // 2) and len(turns) % 2 == 0
        assert sum(t["value"].count("<image>") for t in turns) == len(row["images"]) == len(turns) // 2


def test_llamafactory_reads_the_export(exported: Path, tiny_vlm: Path, tmp_path: Path) -> None:
    live = run_reader(
        "VGAU_LLAMAFACTORY_PYTHON", "llamafactory_reader.py", tmp_path / "read.json", exported, DATASETS, tiny_vlm
    )
    fixture("llamafactory_get_dataset_qwen2_vl", live)


def test_the_export_matches_what_llamafactory_read(exported: Path) -> None:
    """Without the tool: each conversation still has the images and the trained turns LLaMA-Factory made of it."""
    recorded = fixture("llamafactory_get_dataset_qwen2_vl")["examples"]
    rows = _rows(exported)
    assert len(recorded) == len(rows)
    for row, seen in zip(rows, recorded):
        assert seen["images"] == len(row["images"]) and seen["image_pad_tokens"] % seen["images"] == 0
        replies = [t["value"] for t in row["conversations"] if t["from"] == "gpt"]
        assert seen["trained_text"] == "".join(f"{reply}<|im_end|>\n" for reply in replies)
