"""MVoT per-step rows, checked against what MVoT's maze loader writes and its tokenized dataset reads.

MVoT (chengzu-li/MVoT) ships a ``datasets`` loading script per task and an Anole training
loop; neither installs as a package (Anole weights, a GPU), so the test checks the fields
its ``InterleaveAnoleTokenizedDataset`` reads: ``input_text`` with one ``<image>`` per
``input_imgs`` image, ``label_text`` ``<image>`` with one label image for a visualization
row, and a text label with no image for a reasoning row.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.training.conftest import TRAINING_STATES
from vgau_data.registry import get_family
from vgau_data.training.exporters import ExportError, export_training, get_exporter


def test_rows_pair_inputs_with_the_next_board_or_step(training_dir: Path, tmp_path: Path) -> None:
    from datasets import load_dataset

    out = tmp_path / "mvot_rows"
    export_training(training_dir, get_exporter("mvot"), out, progress=False)
    for family, state in TRAINING_STATES.items():
        spec = get_family(family)
        rows = list(load_dataset(str(out), family, split="train"))
        steps = spec.solve(spec.from_json(state)).optimal_length
        assert len(rows) == 2 * steps + 1
        for row in rows:
            assert row["input_text"].count("<image>") == len(row["input_imgs"]) in (1, 2)
            if row["train_task"] == "single_step_visualization":
                assert row["label_text"] == "<image>" and len(row["label_imgs"]) == 1
            else:
                assert row["train_task"] == "action_reasoning" and row["label_imgs"] == []
        visual = [r for r in rows if r["train_task"] == "single_step_visualization"]
        for before, after in zip(visual, visual[1:]):
            assert before["label_imgs"][0].tobytes() == after["input_imgs"][1].tobytes(), (
                "each board feeds the next step"
            )
        assert spec.replay(spec.from_json(state), spec.parse_answer(rows[-1]["label_text"])).feasible


def test_text_only_traces_are_refused(training_dir: Path, tmp_path: Path) -> None:
    with pytest.raises(ExportError, match="board after every step"):
        export_training(training_dir, get_exporter("mvot"), tmp_path / "out", traces="text_cot", progress=False)
