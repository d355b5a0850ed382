"""TRL prompt/completion rows: read back by ``datasets`` and TRL's own vision collator (``SFTTrainer``'s)."""

from __future__ import annotations

from pathlib import Path

import pytest
import trl  # noqa: F401  (in the test extra: the export is checked against the installed TRL)

from tests.training.conftest import TRAINING_STATES
from tests.training.exporters.readers import fixture
from vgau_data.training.exporters import export_training, get_exporter


@pytest.fixture(scope="module", params=["visual_cot", "text_cot"])
def exported(
    request: pytest.FixtureRequest, training_dir: Path, tmp_path_factory: pytest.TempPathFactory
) -> tuple[str, Path]:
    out = tmp_path_factory.mktemp("trl") / f"trl_{request.param}"
    export_training(training_dir, get_exporter("trl"), out, traces=request.param, progress=False)
    return request.param, out


def _load(out: Path, family: str):  # noqa: ANN202
    from datasets import load_dataset

    return load_dataset(str(out), family, split="train")


def test_rows_are_trl_conversational_with_one_image_per_placeholder(exported: tuple[str, Path]) -> None:
    from trl.data_utils import is_conversational, prepare_multimodal_messages

    kind, out = exported
    for family in TRAINING_STATES:
        dataset = _load(out, family)
        replies = 1 if kind == "text_cot" else len(dataset)
        assert [row["turn"] for row in dataset] == list(range(replies))
        for row in dataset:
            assert is_conversational(row) and row["completion"][0]["role"] == "assistant"
            filled = prepare_multimodal_messages(row["prompt"], images=row["images"])
            assert [p["image"].size for m in filled for p in m["content"] if p["type"] == "image"] == [
                image.size for image in row["images"]
            ]
            prepare_multimodal_messages(row["completion"])  # a completion holds no image placeholder


def test_trl_collator_trains_on_the_completions_only(exported: tuple[str, Path], tiny_vlm: Path) -> None:
    from trl.trainer.sft_trainer import DataCollatorForVisionLanguageModeling

    from vgau_data.runners.backends.hf import load_processor

    kind, out = exported
    processor, _ = load_processor(tiny_vlm)
    collate = DataCollatorForVisionLanguageModeling(processor, completion_only_loss=True)
    seen = []
    for family in TRAINING_STATES:
        rows = list(_load(out, family))
        batch = collate([dict(row) for row in rows])
        assert int(batch["image_grid_thw"].shape[0]) == sum(len(row["images"]) for row in rows)
        for labels, ids, row in zip(batch["labels"], batch["input_ids"], rows):
            trained = processor.tokenizer.decode(ids[labels != -100])
            assert trained == row["completion"][0]["content"][0]["text"] + "<|im_end|>\n"
            seen.append({"family": family, "images": len(row["images"]), "trained_text": trained})
    fixture(f"trl_vision_collator_{kind}", {"samples": seen})
