"""A stand-in for a ByteDance-Seed/Bagel checkout (commit 056b5fd): the entry points the
``bagel`` backend calls, with the same names and signatures, recording what they get.

``write(folder)`` lays the files out as in the real repository; ``CALLS`` collects the calls.
"""

from __future__ import annotations

from pathlib import Path

from tests.runners.fake_checkouts import write_files

FILES = {
    "inferencer.py": '''
from PIL import Image
CALLS = []

class InterleaveInferencer:
    def __init__(self, model, vae_model, tokenizer, vae_transform, vit_transform, new_token_ids):
        CALLS.append(("inferencer", model.loaded_from, vae_model, new_token_ids))

    def interleave_inference(self, input_lists, think=False, understanding_output=False, **hyper):
        CALLS.append(("inference", list(input_lists), think, understanding_output, hyper))
        if understanding_output:
            return ["<ANSWER_JSON>[\\"up\\"]</ANSWER_JSON>"]
        size = next((item.size for item in input_lists if isinstance(item, Image.Image)), (16, 16))
        return [Image.new("RGB", size, (255, 0, 0))]
''',
    "data/__init__.py": "",
    "data/data_utils.py": '''
def add_special_tokens(tokenizer):
    return tokenizer, {"start_of_image": 1}, 1

def pil_img2rgb(image):
    return image.convert("RGB")
''',
    "data/transforms.py": '''
class ImageTransform:
    def __init__(self, max_image_size, min_image_size, image_stride):
        self.sizes = (max_image_size, min_image_size, image_stride)
''',
    "modeling/__init__.py": "",
    "modeling/autoencoder.py": '''
def load_ae(local_path):
    return ("vae", local_path), {"z_channels": 16}
''',
    "modeling/qwen2/__init__.py": '''
class Qwen2Tokenizer:
    @classmethod
    def from_pretrained(cls, path):
        tokenizer = cls()
        tokenizer.path = path
        return tokenizer
''',
    "modeling/bagel/__init__.py": '''
import json

class _Config:
    @classmethod
    def from_json_file(cls, path):
        config = cls()
        config.__dict__.update(json.load(open(path)))
        return config

class Qwen2Config(_Config):
    pass

class SiglipVisionConfig(_Config):
    pass

class BagelConfig:
    def __init__(self, **kwargs):
        self.__dict__.update(kwargs)

class Qwen2ForCausalLM:
    def __init__(self, config):
        self.config = config

class _Embeddings:
    def convert_conv2d_to_linear(self, config, meta=False):
        self.converted = meta

class _VisionModel:
    def __init__(self):
        self.embeddings = _Embeddings()

class SiglipVisionModel:
    def __init__(self, config):
        self.config = config
        self.vision_model = _VisionModel()

class Bagel:
    def __init__(self, language_model, vit_model, config):
        self.language_model, self.vit_model, self.config = language_model, vit_model, config
        self.loaded_from = None

    def eval(self):
        return self
''',
}


def write(folder: Path) -> Path:
    return write_files(folder, FILES)


def write_checkpoint(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "llm_config.json").write_text('{"num_hidden_layers": 2}')
    (folder / "vit_config.json").write_text('{"num_hidden_layers": 3}')
    (folder / "ae.safetensors").write_bytes(b"ae")
    (folder / "ema.safetensors").write_bytes(b"weights")
    return folder


class FakeAccelerate:
    """The three accelerate functions the loader uses."""

    def __init__(self) -> None:
        self.dispatched: dict = {}

    class init_empty_weights:  # a context manager, named as in accelerate
        def __enter__(self) -> None:
            return None

        def __exit__(self, *args: object) -> None:
            return None

    def infer_auto_device_map(self, model, max_memory, no_split_module_classes):
        return {"language_model.model.embed_tokens": "cuda:0", "vit_model": "cuda:0"}

    def load_checkpoint_and_dispatch(self, model, checkpoint, device_map, **options):
        model.loaded_from = checkpoint
        self.dispatched = {"device_map": device_map, **options}
        return model
