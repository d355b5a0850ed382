"""Stand-ins for the checkouts of unified models that live in their own repositories."""

from __future__ import annotations

import importlib.util
import json
from collections.abc import Mapping
from pathlib import Path


def write_files(folder: Path, files: Mapping[str, str]) -> Path:
    """Lay ``files`` (relative path -> text) out under ``folder``."""
    for name, text in files.items():
        path = folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text.lstrip("\n"))
    return folder


class FakeTransformers:
    """The two ``transformers`` Auto classes remote-code checkpoints are loaded with, offline.

    ``AutoModelForCausalLM.from_pretrained(folder, trust_remote_code=True, ...)`` imports the
    class ``config.json``'s ``auto_map`` names from the folder's own ``.py`` file, as
    transformers does with remote code; without ``trust_remote_code`` it refuses, as
    transformers does for an unknown architecture. ``CALLS`` records every load.
    """

    def __init__(self) -> None:
        self.CALLS: list[tuple] = []
        self.AutoTokenizer = self._auto("AutoTokenizer")
        self.AutoModelForCausalLM = self._auto("AutoModelForCausalLM")

    def _auto(self, kind: str) -> type:
        calls = self.CALLS

        class Auto:
            @classmethod
            def from_pretrained(cls, folder, trust_remote_code=False, **options):
                calls.append((kind, folder, trust_remote_code, options))
                if not trust_remote_code:
                    raise ValueError(f"{folder} needs trust_remote_code=True")
                config = json.loads((Path(folder) / "config.json").read_text())
                module_name, _, class_name = config["auto_map"][kind].partition(".")
                spec = importlib.util.spec_from_file_location(f"remote_{module_name}", Path(folder) / f"{module_name}.py")
                module = importlib.util.module_from_spec(spec)
                spec.loader.exec_module(module)
                return getattr(module, class_name).from_pretrained(folder, **options)

        Auto.__name__ = kind
        return Auto


REPLY = 'Next, move one step left. <ANSWER_JSON>["left"]</ANSWER_JSON>'
"""What the stand-in models answer: a maze step and a whole answer, so every protocol reads a move.

Left is the first of the two optimal moves of the test dataset's ``maze-easy-0001`` (seed 0),
so Self-VCoT takes a legal step there and draws the next state before its last one.
"""


QWEN_PROCESSOR = '''
import torch

CALLS = []


class Inputs(dict):
    def to(self, device):
        return self


class QwenProcessor:
    """A Qwen2.5-VL processor's surface: chat template, call, batch_decode (one id per character)."""

    def apply_chat_template(self, messages, tokenize=False, add_generation_prompt=False):
        parts = []
        for message in messages:
            body = "".join("<image>" if item["type"] == "image" else item["text"] for item in message["content"])
            parts.append(f"<{message['role']}>{body}")
        return "".join(parts) + ("<assistant>" if add_generation_prompt else "")

    def __call__(self, text=None, images=None, padding=False, return_tensors=None, **options):
        CALLS.append(("processor", list(text), [image.size for image in images or []], options))
        return Inputs(input_ids=torch.tensor([[ord(c) for c in text[0]]]))

    def batch_decode(self, rows, skip_special_tokens=False, clean_up_tokenization_spaces=True):
        return ["".join(chr(int(token)) for token in row) for row in rows]


def generate_reply(reply):
    def generate(input_ids=None, max_new_tokens=None, do_sample=None, **options):
        CALLS.append(("generate", max_new_tokens, do_sample))
        return torch.cat([input_ids, torch.tensor([[ord(c) for c in reply]])], dim=1)
    return generate
'''
"""A Qwen2.5-VL processor and ``generate`` stand-in, written into checkouts whose models use one."""
