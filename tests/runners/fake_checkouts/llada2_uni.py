"""A stand-in for an inclusionAI/LLaDA2.0-Uni checkout (README at 11c1155, scripts at 6a49b7f /
cb81c0a / 6763d04) and its checkpoint folder, whose remote code carries the model's methods.

The names and signatures are those the README and scripts call; each records its calls.
The image tokenizer turns a picture into one token per 16x16 patch (its mean grey level),
so a test can tell which image reached the model.
"""

from __future__ import annotations

import json
from pathlib import Path

from tests.runners.fake_checkouts import REPLY, write_files

__all__ = ["REPLY", "write", "write_checkpoint"]
OFFSET = 1000

FILES = {
    "encoder/__init__.py": "",
    "encoder/image_tokenizer.py": '''
CALLS = []

class ImageTokenizer:
    def __init__(self, model_path, device="cuda", dtype=None):
        CALLS.append(("ImageTokenizer", model_path, device, str(dtype)))

    def encode_with_info(self, image):
        width, height = image.size
        h, w = height // 16, width // 16
        grey = image.convert("L")
        tokens = [grey.crop((x * 16, y * 16, x * 16 + 16, y * 16 + 16)).resize((1, 1)).getpixel((0, 0))
                  for y in range(h) for x in range(w)]
        CALLS.append(("encode", image.size))
        return {"token_ids": tokens, "grid_thw": [1, h, w]}
''',
    "decoder/__init__.py": '''
from PIL import Image
CALLS = []

def decode_vq_tokens(token_ids, h, w, model_path, device, resolution_multiplier=2, num_steps=50,
                     decode_mode="normal", dtype=None):
    CALLS.append(("decode_vq_tokens", list(token_ids), h, w, model_path, resolution_multiplier, num_steps, decode_mode))
    side = 16 * resolution_multiplier
    return Image.new("RGB", (w * side, h * side), (min(token_ids) % 256, 0, 0))
''',
    "decoder/smart_img_process.py": '''
from PIL import Image
CALLS = []

def smart_resize_images(paths):
    CALLS.append(("smart_resize_images", list(paths)))
    return [Image.open(path).convert("RGB").resize((32, 32)) for path in paths]
''',
    "decoder/utils.py": '''
def generate_crop_size_list(num_patches, patch_size):
    return [(patch_size * w, patch_size * (num_patches // w)) for w in range(1, num_patches + 1) if num_patches % w == 0]

def var_center_crop(image, crop_size_list):
    return image.resize((48, 32))
''',
    "decoder/decode.py": "# the decoder's implementation (decoder/__init__ exports decode_vq_tokens)\n",
    "scripts/mmu_understand.py": "# the understanding demo script (not imported by the backend)\n",
    "scripts/image_edit.py": "# the editing demo script (not imported by the backend)\n",
}

REMOTE_CODE = '''
import json
import os

CALLS = []


class Tokenizer:
    @classmethod
    def from_pretrained(cls, folder, **options):
        return cls()


class LLaDA2MoeModelLM:
    """The remote-code model: the three methods the README calls."""

    @classmethod
    def from_pretrained(cls, folder, torch_dtype=None, device_map=None, **options):
        CALLS.append(("from_pretrained", folder, str(torch_dtype), device_map))
        model = cls()
        model.config = json.load(open(os.path.join(folder, "config.json")))
        model.tokenizer = None
        return model

    def eval(self):
        return self

    def understand_image(self, image_tokens, h, w, question="", steps=32, block_length=32, gen_length=2048, **sprint):
        assert self.tokenizer is not None, "the README sets model.tokenizer"
        CALLS.append(("understand_image", list(image_tokens), h, w, question, steps, block_length, gen_length))
        return self.config["reply"]

    def edit_image(self, image_tokens, h, w, instruction, steps=8, block_length=32, cfg_text_scale=4.0,
                   cfg_image_scale=0.0):
        CALLS.append(("edit_image", list(image_tokens), h, w, instruction, steps, block_length, cfg_text_scale,
                      cfg_image_scale))
        return {"token_ids": list(image_tokens), "h": h, "w": w}
'''


def write(folder: Path) -> Path:
    return write_files(folder, FILES)


def write_checkpoint(folder: Path, reply: str = REPLY) -> Path:
    config = {"model_type": "llada2_moe", "image_token_offset": OFFSET, "reply": reply,
              "auto_map": {"AutoModelForCausalLM": "modeling_llada2_moe.LLaDA2MoeModelLM",
                           "AutoTokenizer": "modeling_llada2_moe.Tokenizer"}}  # fmt: skip
    write_files(folder, {"config.json": json.dumps(config), "modeling_llada2_moe.py": REMOTE_CODE,
                         "image_tokenizer/config.json": "{}", "decoder/config.json": "{}", "vae/config.json": "{}"})  # fmt: skip
    (folder / "model.safetensors").write_bytes(b"weights")
    return folder
