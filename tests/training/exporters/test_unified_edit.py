"""``unified_edit`` parquet, read as BAGEL's loader reads it, checked against ThinkMorph's ``parse_row``.

BAGEL (ByteDance-Seed/Bagel) and ThinkMorph (ThinkMorph/ThinkMorph) are training
repositories, not installable packages (model code, flash-attn, GPUs), so the test replays
their reading in our own words: ``ParquetStandardIterableDataset`` takes the files named by
``parquet_info`` and reads one row group at a time into pandas; ThinkMorph's
``UnifiedEditIterableDataset.parse_row`` opens ``image_list[0]`` as the input with
``instruction_list[0]``, then for each output text the next image, so there is one output
per later image plus the answer.
"""

from __future__ import annotations

import io
import json
from pathlib import Path

import pyarrow.parquet as pq
from PIL import Image

from tests.training.conftest import TRAINING_STATES
from vgau_data.registry import get_family
from vgau_data.training.exporters import export_training, get_exporter


def test_rows_follow_thinkmorph_and_parquet_info_names_every_row_group(training_dir: Path, tmp_path: Path) -> None:
    out = tmp_path / "edit"
    export_training(training_dir, get_exporter("unified_edit"), out, progress=False)
    for family, state in TRAINING_STATES.items():
        spec = get_family(family)
        info = json.loads((out / "parquet_info" / f"{family}_train.json").read_text())
        ((path, entry),) = info.items()
        parquet = pq.ParquetFile(path)
        assert entry == {"num_row_groups": parquet.num_row_groups, "num_rows": parquet.metadata.num_rows}
        for group in range(entry["num_row_groups"]):
            for _, row in parquet.read_row_group(group).to_pandas().iterrows():
                images = [Image.open(io.BytesIO(data)) for data in row["image_list"]]
                assert all(image.size == spec.geometry.size for image in images)
                outputs = list(row["output_text_list"])
                assert len(outputs) == len(images) and isinstance(row["instruction_list"][0], str)
                assert outputs[0].startswith("<think>") and outputs[0].endswith("<image_start>")
                assert all(text.startswith("<image_end>") for text in outputs[1:])
                answer = outputs[-1].removeprefix("<image_end>").removeprefix("<answer>").removesuffix("</answer>")
                assert spec.replay(spec.from_json(state), spec.parse_answer(answer)).feasible


def test_row_groups_hold_one_hundred_rows(tmp_path: Path) -> None:
    from tests.training.conftest import training_row, write_training_folder

    rows = {"maze": [training_row("maze", TRAINING_STATES["maze"], i) for i in range(230)]}
    source = write_training_folder(tmp_path / "src", rows, ())
    export_training(source, get_exporter("unified_edit"), tmp_path / "out", traces="text_cot", progress=False)
    meta = pq.read_metadata(tmp_path / "out" / "maze" / "train" / "train-00000-of-00001.parquet")
    assert [meta.row_group(i).num_rows for i in range(meta.num_row_groups)] == [100, 100, 30]
