"""LongCat-Next (meituan-longcat/LongCat-Next-inference) from the user's checkout and checkpoint folder.

Read from the repository at commit af1a9a6 (``demo.py``, ``example/test_cases.yaml``,
README at 70ab100). The inference framework is the checkout's ``NmmEnsemble`` (in
``demo.py``): built from ``nmm_pf.yaml`` with ``backend_params["model-path"]`` set to the
checkpoint folder (and ``NMM_INFER_MODEL_ROOT``, as ``demo.py`` sets it), its async
``generate_new(raw_input, request_id, sampling_params, ...)`` runs one request. A request
is one ``question`` string in LongCat's tagged format:

- chat (``img_und``): ``<longcat_user>text<longcat_img_start>PATH<longcat_img_end>...<longcat_assistant>``;
  images are read from files, so each is written to a temporary PNG. Earlier assistant
  turns follow ``<longcat_assistant>``. Greedy is temperature 0 (the demo samples at
  0.7); the budget is the run's ``max_new_tokens``.
- generate (``img_gen``): the conversation and the instruction, then
  ``<longcat_img_token_size>T T</longcat_img_token_size><longcat_img_start>``; the demo's
  classifier-free guidance pair runs concurrently: the conditional request and the
  unconditional one (only the size and start tags), joined by ``custom_params``
  (``cfg_scale`` 1.8). The image tokens are sampled with the demo's settings and the
  decoder writes ``<file_path>.png``, read back here. The board is part of the context.

Not verified here: the demo shows single-turn prompts only, so the multi-turn layout
(turn tags without end tags) follows its format rather than a documented template; whether
the image decoder keeps the board's layout is the model's behaviour, measured by the
fidelity tools. ``nmm_pf.yaml`` may name further paths relative to the checkout: run
from the checkout if it does.

Example::

    git clone https://github.com/meituan-longcat/LongCat-Next-inference ~/src/LongCat-Next-inference
    (cd ~/src/LongCat-Next-inference && sh setup.sh)   # CUDA >= 12.9, SGLang
    vgau-data run --backend longcat-next --model ~/models/LongCat-Next \\
        --backend-arg repo=~/src/LongCat-Next-inference --protocol self_gta self_vcot self_vr --out runs
"""

from __future__ import annotations

import asyncio
import os
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import yaml
from PIL import Image

from vgau_data.runners.backends.base import BackendError, Completion, GeneratedImage, GenParams, ImageRequest, require
from vgau_data.runners.backends.checkouts import (
    describe_checkout,
    files_fingerprint,
    import_from_checkout,
    request_seed,
    require_paths,
    returned_image,
    save_png,
)
from vgau_data.runners.messages import ImagePart, TextPart, user

if TYPE_CHECKING:
    from vgau_data.runners.messages import Message

REPO_FILES = ("demo.py", "nmm_pf.yaml", "framework/fluentllm.py", "processor/preprocessor.py", "processor/postprocessor.py")
ROLE_TAGS = {"system": "<longcat_system>", "user": "<longcat_user>", "assistant": "<longcat_assistant>"}
WEIGHT_SUFFIXES = (".safetensors", ".bin", ".pt", ".pth")
IMAGE_SAMPLING = {"temperature": 0.5, "top_p": 0.75, "top_k": 1024, "repetition_penalty": 1.0}
"""``test_cases.yaml``'s ``img_gen`` sampling, for the image-token turn."""
MULTI_SAMPLING = {"temperature": 0.2, "top_p": 0.85, "top_k": 20, "repetition_penalty": 1.1}
"""``demo.py``'s multimodal-head sampling."""


def tagged_question(messages: Sequence[Message], folder: Path) -> str:
    """The conversation in LongCat's tags, its images saved under ``folder`` and named by path."""
    pieces = []
    for message in messages:
        pieces.append(ROLE_TAGS.get(message.role, ROLE_TAGS["user"]))
        for part in message.parts:
            if isinstance(part, TextPart):
                pieces.append(part.text)
            elif isinstance(part, ImagePart):
                path = save_png(part.image, folder, f"image{len(list(folder.iterdir()))}")
                pieces.append(f"<longcat_img_start>{path}<longcat_img_end>")
    return "".join(pieces)


class LongcatNextBackend:
    """LongCat-Next as one unified model: it answers about the conversation's images and draws in it.

    Args:
        model: the checkpoint folder (weights, ``nmm_infer/``).
        repo: the user's clone of LongCat-Next-inference (its environment set up).
        image_tokens: the side of the drawn image in tokens (the demo's 18: 18x18 tokens).
        cfg_scale: classifier-free guidance of the image tokens (the demo's 1.8).
    """

    name = "longcat-next"
    capabilities = frozenset({"chat", "image_edit"})
    default_batch_size = 1

    def __init__(self, model: str, *, repo: str, image_tokens: int = 18, cfg_scale: float = 1.8) -> None:
        self.checkpoint = require_paths(model, ("nmm_infer",), "a LongCat-Next checkpoint folder",
                                        "huggingface-cli download meituan-longcat/LongCat-Next --local-dir DIR")  # fmt: skip
        self.repo = require_paths(repo, REPO_FILES, "a checkout of meituan-longcat/LongCat-Next-inference",
                                  "git clone https://github.com/meituan-longcat/LongCat-Next-inference")  # fmt: skip
        if image_tokens < 1 or cfg_scale <= 0:
            raise BackendError("image_tokens must be >= 1 and cfg_scale > 0")
        weights = [p for p in self.checkpoint.rglob("*") if p.is_file() and p.suffix in WEIGHT_SUFFIXES]
        if not weights:
            raise BackendError(f"{self.checkpoint} is not a LongCat-Next checkpoint folder: no weight files")
        self.image_tokens, self.cfg_scale = int(image_tokens), float(cfg_scale)
        self.torch = require("torch", "hf")
        configs = yaml.safe_load((self.repo / "nmm_pf.yaml").read_text(encoding="utf-8"))
        if not isinstance(configs, dict) or not isinstance(configs.get("backend_params"), dict):
            raise BackendError(f"{self.repo / 'nmm_pf.yaml'} has no backend_params mapping")
        configs["backend_params"]["model-path"] = str(self.checkpoint)
        os.environ["NMM_INFER_MODEL_ROOT"] = str(self.checkpoint)  # demo.py's main does this before building
        (demo,) = import_from_checkout(self.repo, "demo")
        self.ensemble = demo.NmmEnsemble(configs)
        self._fingerprint = files_fingerprint("longcat-next-v1", [*weights, self.repo / "nmm_pf.yaml"])
        self._requests = 0

    def _request_id(self) -> str:
        self._requests += 1
        return f"vgau{self._requests}"

    def chat(self, conversations: Sequence[Any], gen: GenParams) -> list[Completion]:
        completions = []
        sampling = {"max_new_tokens": gen.max_new_tokens, "temperature": 0.0 if gen.greedy else gen.temperature,
                    "top_p": 1.0 if gen.greedy else gen.top_p, "repetition_penalty": 1.0, "ignore_eos": False}  # fmt: skip
        for conversation in conversations:
            start = time.perf_counter()
            with tempfile.TemporaryDirectory(prefix="vgau-longcat-") as folder:
                question = tagged_question(conversation.messages, Path(folder)) + ROLE_TAGS["assistant"]
                text, *_ = asyncio.run(self.ensemble.generate_new(
                    raw_input={"question": question, "task": "image"}, request_id=self._request_id(),
                    sampling_params=sampling, multi_sampling_params=dict(MULTI_SAMPLING),
                    file_path=str(Path(folder) / "reply"), enable_gen_multi=False,
                ))  # fmt: skip
            completions.append(Completion(text=str(text), latency_s=time.perf_counter() - start, finish_reason="stop"))
        return completions

    def generate(self, requests: Sequence[ImageRequest], gen: GenParams) -> list[GeneratedImage]:
        results = []
        for request in requests:
            start = time.perf_counter()
            self.torch.manual_seed(request_seed(request, gen))
            try:
                image = self._draw(request)
            except (RuntimeError, ValueError, OSError) as error:
                results.append(GeneratedImage(error=f"{type(error).__name__}: {error}", latency_s=time.perf_counter() - start))
                continue
            results.append(returned_image(image, "LongCat-Next", start))
        return results

    def _draw(self, request: ImageRequest) -> Image.Image | None:
        side = self.image_tokens
        tail = f"<longcat_img_token_size>{side} {side}</longcat_img_token_size><longcat_img_start>"
        messages = request.conversation.messages if request.conversation else (user(*request.images),)
        pair = self._request_id()
        sampling = {**IMAGE_SAMPLING, "max_new_tokens": side * side + side - 1, "ignore_eos": False}
        with tempfile.TemporaryDirectory(prefix="vgau-longcat-") as folder:
            context = tagged_question([*messages, user(request.instruction)], Path(folder))
            base = str(Path(folder) / "drawing")

            def call(question: str, role: str) -> Any:
                return self.ensemble.generate_new(
                    raw_input={"question": question, "task": "image"}, request_id=f"{pair}{role}",
                    sampling_params={**sampling, "custom_params": {"cfg_scale": self.cfg_scale,
                                                                   "cfg_pair_id": f"{pair}pair", "cfg_role": role}},
                    multi_sampling_params=dict(MULTI_SAMPLING), delay=float("inf"), token_w=side,
                    file_path=base if role == "cond" else "", enable_gen_multi=role == "cond",
                    input_extra_infos={"group_name": "CFG_test", "group_size": 2},
                )  # fmt: skip

            async def both() -> list[Any]:
                return list(await asyncio.gather(call(context + ROLE_TAGS["assistant"] + tail, "cond"), call(tail, "uncond")))

            cond, _ = asyncio.run(both())
            made = cond[3]
            if not made or not Path(made).is_file():
                return None
            with Image.open(made) as drawn:
                return drawn.convert("RGB")

    def fingerprint(self) -> str:
        return self._fingerprint

    def describe(self) -> dict[str, Any]:
        return describe_checkout(self, image_settings={"image_tokens": self.image_tokens, "cfg_scale": self.cfg_scale,
                                                       **IMAGE_SAMPLING})  # fmt: skip
