"""BAGEL think traces, checked against what Bagel-Zebra-CoT's ``ThinkTraceJSONLIterableDataset`` requires.

The loader is part of a training repository (multimodal-reasoning-lab/Bagel-Zebra-CoT,
``data/interleave_datasets/think_trace_dataset.py``), not a package that installs: it needs
the BAGEL model code, flash-attn and a GPU. The test checks its documented contract as its
``parse_row`` reads a line: the three keys non-empty; every ``<image_start>[key]<image_end>``
a key of the line whose value, joined to ``image_prefix_dir``, opens as an image; the text
split on the references into one more part than images, in the question and in the trace.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from PIL import Image

from tests.training.conftest import TRAINING_STATES
from vgau_data.registry import get_family
from vgau_data.training.exporters import export_training, get_exporter

REFERENCE = re.compile(r"<image_start>\[([^\]]+)\]<image_end>")


@pytest.mark.parametrize("kind", ["visual_cot", "aug_visual_cot", "text_cot", "exploratory"])
def test_lines_follow_the_think_trace_loader(kind: str, training_dir: Path, tmp_path: Path) -> None:
    out = tmp_path / "think"
    export_training(training_dir, get_exporter("bagel_think"), out, traces=kind, progress=False)
    for family, state in TRAINING_STATES.items():
        spec = get_family(family)
        (line,) = [
            json.loads(text)
            for text in (out / family / "train" / "train-00000-of-00001.jsonl").read_text().splitlines()
        ]
        assert line["Question"] and line["Text Reasoning Trace"] and line["Final Answer"]
        for field, prefix in (("Question", "problem_image_"), ("Text Reasoning Trace", "reasoning_image_")):
            names = REFERENCE.findall(line[field])
            assert all(name.startswith(prefix) for name in names)
            assert len(REFERENCE.sub("<IMAGE>", line[field]).split("<IMAGE>")) == len(names) + 1
            for name in names:
                with Image.open(out / line[name]) as image:
                    assert image.size == spec.geometry.size
        questions = len(REFERENCE.findall(line["Question"]))
        assert questions == (2 if kind == "aug_visual_cot" else 1)
        reasoning = len(REFERENCE.findall(line["Text Reasoning Trace"]))
        verdict = spec.replay(spec.from_json(state), spec.parse_answer(line["Final Answer"]))
        assert verdict.feasible
        if kind == "text_cot":
            assert reasoning == 0 and line["Text Reasoning Trace"].startswith("Reading the board")
        else:
            steps = [
                spec.parse_step(text) for text in REFERENCE.split(line["Text Reasoning Trace"])[::2] if text.strip()
            ]
            assert reasoning == len(steps) == verdict.length


def test_formats_where_the_model_draws_ask_self_vcot_s_question(training_dir: Path, tmp_path: Path) -> None:
    """visual_cot asks, there, what Self-VCoT asks (the model draws each board); aug_visual_cot has no such protocol."""
    from vgau_data.integrations.prompts import first_message

    for kind in ("visual_cot", "aug_visual_cot"):
        export_training(training_dir, get_exporter("bagel_think"), tmp_path / kind, traces=kind, families=["maze"],
                        progress=False)  # fmt: skip
        (line,) = [
            json.loads(t) for t in (tmp_path / kind / "maze/train/train-00000-of-00001.jsonl").read_text().splitlines()
        ]
        question = REFERENCE.sub("", line["Question"]).strip()
        row = {"id": "x", "task": "maze", "difficulty": "easy", "optimal_length": 3, "state": TRAINING_STATES["maze"]}
        protocol = "self_vcot" if kind == "visual_cot" else "oracle_aug_vcot"
        assert question == first_message(row, protocol)[1]
