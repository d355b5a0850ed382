"""A stand-in for an MM-MVR/STAR checkout (commit 8263fb5; scripts at 628768b / 528d8aa): the config
loader, ``STARMultiModal`` with the members the scripts and the ``star`` backend use, and the
7B config with its relative checkpoint paths."""

from __future__ import annotations

import json
from pathlib import Path

from tests.runners.fake_checkouts import QWEN_PROCESSOR, REPLY, write_files

__all__ = ["REPLY", "write", "write_checkpoint"]

CONFIG = {
    "model_name": "STAR_Qwen2.5-7B_VQGAN",
    "language_model": {"model_name": "Qwen2.5-VL", "model_path": "checkpoints/Qwen2.5-VL-7B-Instruct"},
    "pixel_encoder": {"model_name": "VQ_Model", "model_path": "checkpoints/VQ-Model.pt", "num_tokens": 576},
    "pixel_decoder": {"model_name": "LUMINA2", "model_path": "checkpoints/lumina-image2"},
}

FILES = {
    "star/__init__.py": "",
    "star/models/__init__.py": "",
    "star/models/qwen.py": QWEN_PROCESSOR,
    "star/models/config.py": '''
import json

def load_config_from_json(path):
    return json.load(open(path))

class STARMultiModalConfig:
    def __init__(self, **data):
        self.data = data
''',
    "star/models/model.py": '''
import math
import os

import numpy as np

from star.models.qwen import CALLS, QwenProcessor, generate_reply


class _Llm:
    device = "cpu"

    def __init__(self, reply):
        self.generate = generate_reply(reply)


class STARMultiModal:
    def __init__(self, config, args=None):
        for section in ("language_model", "pixel_encoder"):
            assert os.path.exists(config.data[section]["model_path"]), "the scripts run from the checkout"
        CALLS.append(("STARMultiModal", config.data["language_model"]["model_path"], args.max_pixels,
                      args.diffusion_as_decoder))
        self.args = args
        self.processor = QwenProcessor()
        self.llm = _Llm(config.data.get("reply", ""))

    def load_state_dict(self, state, strict=True):
        CALLS.append(("load_state_dict", sorted(state), strict))

    def to(self, target):
        CALLS.append(("to", str(target)))
        return self

    def generate_images_edit(self, image, prompt, max_new_tokens=256, num_return_sequences=1, cfg_weight=5.0,
                             topk_sample=1000, topp_sample=1.0, temperature=1.0, return_dict=False):
        CALLS.append(("generate_images_edit", [i.size for i in image], prompt, max_new_tokens, cfg_weight, topk_sample,
                      topp_sample))
        side = int(math.sqrt(max_new_tokens)) * 16
        return {"output_images": np.full((num_return_sequences, side, side, 3), 1.0, dtype=np.float32),
                "generated_tokens": None, "diff_images": None}
''',
}


def write(folder: Path, reply: str = REPLY) -> Path:
    """The checkout with its config (answering ``reply``) and the side checkpoints its config names."""
    config = {**CONFIG, "reply": reply}
    write_files(folder, {**FILES, "star/configs/STAR_Qwen2.5-VL-7B.json": json.dumps(config),
                         "checkpoints/Qwen2.5-VL-7B-Instruct/config.json": "{}"})  # fmt: skip
    (folder / "checkpoints" / "VQ-Model.pt").write_bytes(b"vq")
    return folder


def write_checkpoint(path: Path) -> Path:
    import torch

    path.parent.mkdir(parents=True, exist_ok=True)
    torch.save({"state_dict": {"pixel_adapter.weight": torch.zeros(2, 2)}}, path)
    return path
