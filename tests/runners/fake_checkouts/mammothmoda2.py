"""A stand-in for a bytedance/mammothmoda checkout (commit df2154e): ``mammothmoda2.model`` (the
model, its processor, the negative prompt) and ``mammothmoda2.utils.decode_diffusion_image``, with
the README's names and signatures, recording their calls."""

from __future__ import annotations

import json
from pathlib import Path

from tests.runners.fake_checkouts import QWEN_PROCESSOR, REPLY, write_files

__all__ = ["REPLY", "write", "write_checkpoint"]

FILES = {
    "mammothmoda2/__init__.py": "",
    "mammothmoda2/model/qwen.py": QWEN_PROCESSOR,
    "mammothmoda2/model/__init__.py": '''
import json
import os

import torch

from mammothmoda2.model.qwen import CALLS, Inputs, QwenProcessor, generate_reply

DEFAULT_NEGATIVE_PROMPT = "blurry, low quality"


class Mammothmoda2Processor(QwenProcessor):
    tokenizer = "tokenizer"

    @classmethod
    def from_pretrained(cls, folder, **options):
        CALLS.append(("Mammothmoda2Processor", folder, options))
        processor = cls()
        processor.t2i = bool(options.get("t2i_generate"))
        return processor

    def __call__(self, text=None, images=None, **options):
        inputs = super().__call__(text=text, images=images, **options)
        if self.t2i:
            inputs["negative_ids"] = torch.zeros((1, 3), dtype=torch.long)
        return inputs


class Mammothmoda2Model:
    @classmethod
    def from_pretrained(cls, folder, attn_implementation=None, torch_dtype=None, t2i_generate=False):
        CALLS.append(("Mammothmoda2Model", folder, attn_implementation, torch_dtype, t2i_generate))
        model = cls()
        model.reply = json.load(open(os.path.join(folder, "config.json")))["reply"]
        return model

    def to(self, device):
        CALLS.append(("to", device))
        return self

    def generate(self, input_ids=None, negative_ids=None, **options):
        if negative_ids is not None:  # the text-to-image inputs: AR image tokens and their mask
            CALLS.append(("generate_t2i", input_ids.shape[1]))
            return torch.cat([input_ids, torch.full((1, 4), 7)], dim=1), torch.ones((1, input_ids.shape[1] + 4))
        return generate_reply(self.reply)(input_ids=input_ids, **options)
''',
    "mammothmoda2/utils/__init__.py": "from .t2i_utils import *  # noqa: F403\n",
    "mammothmoda2/utils/t2i_utils.py": '''
from pathlib import Path

import torch
from PIL import Image

from mammothmoda2.model.qwen import CALLS

__all__ = ["decode_diffusion_image"]


def decode_diffusion_image(input_ids, generated_ids, attention_mask, negative_ids, negative_mask, model, tokenizer,
                           output_dir, num_images_per_prompt=1, text_guidance_scale=5.0, vae_scale_factor=16,
                           cfg_range=(0.0, 1.0), num_inference_steps=50, height=512, width=512, device=None, index=0,
                           **kwargs):
    CALLS.append(("decode_diffusion_image", tuple(generated_ids.shape), negative_ids is not None, text_guidance_scale,
                  num_inference_steps, height, width))
    shade = int(torch.randint(0, 256, (1,)))  # the DiT's noise, from torch's generator
    image = Image.new("RGB", (width, height), (shade, 0, 0))
    Path(output_dir).mkdir(parents=True, exist_ok=True)
    path = f"{output_dir}/image_index{index}_bs0.png"
    image.save(path)
    return [{"save_path": path, "decoded_img": image}]
''',
}


def write(folder: Path) -> Path:
    return write_files(folder, FILES)


def write_checkpoint(folder: Path, reply: str = REPLY) -> Path:
    write_files(folder, {"config.json": json.dumps({"model_type": "mammothmoda2", "reply": reply})})
    (folder / "model.safetensors").write_bytes(b"weights")
    return folder
