"""A stand-in for a VectorSpaceLab/OmniGen2 checkout (commit 0f72fa9): the pipeline parts the
``omnigen2`` backend calls, with the same names and signatures, recording what they get."""

from __future__ import annotations

from pathlib import Path

from tests.runners.fake_checkouts import write_files

FILES = {
    "omnigen2/__init__.py": "",
    "omnigen2/pipelines/__init__.py": "",
    "omnigen2/pipelines/omnigen2/__init__.py": "",
    "omnigen2/pipelines/omnigen2/pipeline_omnigen2_chat.py": '''
from PIL import Image
CALLS = []

class _Inputs(dict):
    __getattr__ = dict.__getitem__

class _Tokenizer:
    pass

class _Processor:
    tokenizer = _Tokenizer()

    def batch_decode(self, rows, skip_special_tokens=False):
        CALLS.append(("decode", rows, skip_special_tokens))
        return ["".join(chr(token) for token in row) for row in rows]

class _Mllm:
    device = "cpu"

    def generate(self, input_ids, tokenizer, stop_strings, max_new_tokens, do_sample, **options):
        CALLS.append(("mllm.generate", stop_strings, max_new_tokens, do_sample))
        return [row + [ord(c) for c in "up"] for row in input_ids]

class OmniGen2ChatPipeline:
    @classmethod
    def from_pretrained(cls, path, torch_dtype=None, trust_remote_code=False):
        CALLS.append(("from_pretrained", path, str(torch_dtype), trust_remote_code))
        pipeline = cls()
        pipeline.mllm, pipeline.processor, pipeline.transformer = _Mllm(), _Processor(), None
        return pipeline

    def to(self, device):
        CALLS.append(("to", device))
        return self

    def _apply_chat_template(self, prompt, images=None):
        marks = "".join(f"<img{i}>" for i in range(1, len(images) + 1)) if images else ""
        return f"<user>{marks}{prompt}<assistant>"

    def prepare_inputs_for_text_generation(self, prompts, input_images, device):
        CALLS.append(("inputs", prompts, len(input_images or []), device))
        return _Inputs(input_ids=[[7, 7, 7]])

    def generate_image(self, prompt=None, input_images=None, generator=None, **settings):
        CALLS.append(("generate_image", prompt, len(input_images or []), settings))
        size = input_images[0].size if input_images else (settings["width"], settings["height"])
        return [Image.new("RGB", size, (0, 0, 255))]
''',
    "omnigen2/models/__init__.py": "",
    "omnigen2/models/transformers/__init__.py": "",
    "omnigen2/models/transformers/transformer_omnigen2.py": '''
class OmniGen2Transformer2DModel:
    @classmethod
    def from_pretrained(cls, path, subfolder=None, torch_dtype=None):
        model = cls()
        model.source = (path, subfolder)
        return model
''',
}


def write(folder: Path) -> Path:
    return write_files(folder, FILES)


def write_checkpoint(folder: Path) -> Path:
    (folder / "transformer").mkdir(parents=True, exist_ok=True)
    (folder / "model_index.json").write_text('{"_class_name": "OmniGen2ChatPipeline"}')
    (folder / "transformer" / "config.json").write_text("{}")
    (folder / "transformer" / "diffusion_pytorch_model.safetensors").write_bytes(b"weights")
    return folder
