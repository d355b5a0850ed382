"""The tiny Qwen2-VL's processor without a video processor, for the ``*_reader.py`` scripts.

Those run in other tools' venvs (LLaMA-Factory, verl, OpenRLHF), where the stock
processor cannot load: its video processor needs torchvision, whose PyPI wheel does not
match the CPU torch here. Images never touch the video processor.
"""

from __future__ import annotations

from typing import Any

import transformers


class ImageOnlyQwen2VLProcessor(transformers.Qwen2VLProcessor):
    def check_argument_for_proper_class(self, argument_name: str, argument: Any) -> Any:
        return None if argument is None else super().check_argument_for_proper_class(argument_name, argument)


def image_only_processor(model_dir: str, tokenizer: Any = None) -> Any:
    """The processor of the tiny model in ``model_dir`` (its own tokenizer unless one is given)."""
    tokenizer = tokenizer or transformers.AutoTokenizer.from_pretrained(model_dir)
    return ImageOnlyQwen2VLProcessor(
        image_processor=transformers.Qwen2VLImageProcessorPil.from_pretrained(model_dir),
        tokenizer=tokenizer,
        video_processor=None,
        chat_template=tokenizer.chat_template,
    )
