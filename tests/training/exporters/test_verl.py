"""verl parquet: the exact multimodal schema, read back by verl's own ``RLHFDataset``."""

from __future__ import annotations

import io
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from PIL import Image

from tests.training.conftest import TRAINING_STATES
from tests.training.exporters.readers import fixture, run_reader
from vgau_data.training.exporters import export_training, get_exporter

EXTRA_INFO = {"family", "id", "split", "optimal_length", "band", "protocol", "index"}


@pytest.fixture(scope="module")
def exported(training_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("verl") / "export"
    export_training(training_dir, get_exporter("verl"), out, protocol="oracle_gta", progress=False)
    return out


def _files(exported: Path) -> list[Path]:
    return [exported / family / "train" / "train-00000-of-00001.parquet" for family in TRAINING_STATES]


def test_rows_have_the_schema_compute_score_reads(exported: Path, training_dir: Path) -> None:
    for path, family in zip(_files(exported), TRAINING_STATES):
        (row,) = pq.read_table(path).to_pylist()
        assert row["data_source"] == f"vgau/{family}" and row["ability"] == "visual_planning"
        assert row["reward_model"] == {"style": "rule", "ground_truth": TRAINING_STATES[family]}
        assert set(row["extra_info"]) == EXTRA_INFO and row["extra_info"]["protocol"] == "oracle_gta"
        assert row["extra_info"]["index"] == 0 and row["extra_info"]["family"] == family
        ((message),) = row["prompt"]
        assert message["role"] == "user" and message["content"].startswith("<image><image>The image shows")
        assert [set(image) for image in row["images"]] == [{"bytes"}, {"bytes"}]
        assert all(Image.open(io.BytesIO(image["bytes"])).format == "PNG" for image in row["images"])


def test_verl_reads_the_export(exported: Path, tiny_vlm: Path, tmp_path: Path) -> None:
    live = run_reader("VGAU_VERL_PYTHON", "verl_reader.py", tmp_path / "read.json", tiny_vlm, tmp_path / "cache",
                      *_files(exported))  # fmt: skip
    fixture("verl_rlhfdataset_qwen2_vl", live)


def test_the_export_matches_what_verl_read(exported: Path) -> None:
    recorded = fixture("verl_rlhfdataset_qwen2_vl")["rows"]
    rows = [row for path in _files(exported) for row in pq.read_table(path).to_pylist()]
    assert len(recorded) == len(rows), "verl's length filter dropped no row"
    for row, seen in zip(rows, recorded):
        assert seen["parts"] == ["image"] * len(row["images"]) + ["text"]
        assert seen["ground_truth"] == row["reward_model"]["ground_truth"] and seen["extra_info"] == row["extra_info"]
        assert seen["data_source"] == row["data_source"] and seen["index"] == row["extra_info"]["index"]
