"""LLaDA2.0-Uni (inclusionAI/LLaDA2.0-Uni) from the user's checkout and checkpoint folder.

Read from the repository's README at commit 11c1155 and its scripts
(``scripts/mmu_understand.py`` at 6a49b7f, ``scripts/image_edit.py`` at cb81c0a,
``scripts/t2i_generate.py`` at 6763d04). The model's own code is remote code in the
checkpoint folder: ``AutoModelForCausalLM.from_pretrained(folder, trust_remote_code=True)``
gives a diffusion LLM with ``understand_image``, ``edit_image`` and ``generate_image``;
``model.tokenizer`` must be set by the caller. The checkout holds the image tokenizer and
the decoder:

- chat (``mmu_understand.py``): ``encoder.image_tokenizer.ImageTokenizer(model_path=...)``
  turns the image, resized by ``decoder.smart_img_process.smart_resize_images`` (which
  the scripts give file paths), into discrete tokens, shifted by the config's
  ``image_token_offset``; ``model.understand_image(tokens, h, w, question=..., steps=32,
  block_length=32, gen_length=...)`` answers. ``gen_length`` is the run's token budget,
  rounded up to whole blocks (the model denoises one block of 32 at a time).
- generate (``image_edit.py``): the board, centre-cropped by ``decoder.utils.var_center_crop``
  to a size from ``generate_crop_size_list((512 // 32) ** 2, 32)``, is tokenized;
  ``model.edit_image(tokens, h, w, instruction, steps=8, block_length=32,
  cfg_text_scale=4.0, cfg_image_scale=0.0)`` returns edited tokens and their grid (the
  offset is removed when present, as the script does); ``decoder.decode_vq_tokens(ids, h,
  w, model_path, device, resolution_multiplier=2, num_steps=50)`` makes the pixels.
  Defaults are the script's.

LLaDA2.0-Uni reads one image per request (the paper's A.4), so ``max_images = 1``: the
driver keeps only a conversation's last image; its texts are joined into the question.

Not verified here: the stored copy of the repository lists ``decoder/decode.py`` and
``decoder/decoder_model.py`` but not ``encoder/`` or ``decoder/utils.py``, which the README
imports; the adapter needs them and says so when they are missing. ``understand_image``
takes no temperature in the README, so answers use the model's own (deterministic)
remasking whatever ``--temperature`` says; ``describe()`` records that.

Example::

    git clone https://github.com/inclusionAI/LLaDA2.0-Uni ~/src/LLaDA2.0-Uni   # and its requirements
    huggingface-cli download inclusionAI/LLaDA2.0-Uni --local-dir ~/models/LLaDA2.0-Uni
    vgau-data run --backend llada2-uni --model ~/models/LLaDA2.0-Uni --backend-arg repo=~/src/LLaDA2.0-Uni \\
        --protocol self_gta self_vcot self_vr --out runs
"""

from __future__ import annotations

import json
import tempfile
import time
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from vgau_data.runners.backends.base import BackendError, Completion, GeneratedImage, GenParams, ImageRequest, require
from vgau_data.runners.backends.checkouts import (
    describe_checkout,
    flatten,
    import_from_checkout,
    request_context,
    request_seed,
    require_paths,
    returned_image,
    save_png,
    torch_on,
)
from vgau_data.runners.backends.local_model import model_fingerprint

if TYPE_CHECKING:
    from PIL import Image

    from vgau_data.runners.messages import Conversation

CHECKPOINT_FILES = ("config.json", "image_tokenizer", "decoder", "vae")
REPO_FILES = ("encoder/image_tokenizer.py", "decoder/__init__.py", "decoder/smart_img_process.py", "decoder/utils.py")
DEFAULT_IMAGE_TOKEN_OFFSET = 157184
"""The scripts' fallback when ``config.json`` names no ``image_token_offset``."""


def whole_blocks(tokens: int, block_length: int) -> int:
    """``tokens`` rounded up to a multiple of ``block_length``."""
    return -(-tokens // block_length) * block_length


class LLaDA2UniBackend:
    """LLaDA2.0-Uni as one unified model: it answers about one image and edits it.

    Args:
        model: the checkpoint folder (``config.json``, weights and remote code,
            ``image_tokenizer/``, ``decoder/``, ``vae/``).
        repo: the user's clone of inclusionAI/LLaDA2.0-Uni (its requirements installed).
        dtype, device: ``bfloat16`` (default) ... and ``auto`` (cuda if available), ``cpu`` ...
        steps, block_length: understanding's denoising steps per block and block size (the script's 32, 32).
        edit_steps, cfg_text_scale, cfg_image_scale, decoder_steps, resolution_multiplier,
        decode_mode: drawing settings (defaults: ``image_edit.py``; ``decode_mode`` as
        ``decode_vq_tokens``' ``normal``, or ``decoder-turbo`` with 8 decoder steps).
    """

    name = "llada2-uni"
    capabilities = frozenset({"chat", "image_edit"})
    max_images = 1
    default_batch_size = 1
    """Every call of the model's methods takes one request."""

    def __init__(
        self,
        model: str,
        *,
        repo: str,
        dtype: str = "bfloat16",
        device: str = "auto",
        steps: int = 32,
        block_length: int = 32,
        edit_steps: int = 8,
        cfg_text_scale: float = 4.0,
        cfg_image_scale: float = 0.0,
        decoder_steps: int = 50,
        resolution_multiplier: int = 2,
        decode_mode: str = "normal",
    ) -> None:
        self.checkpoint = require_paths(model, CHECKPOINT_FILES, "a LLaDA2.0-Uni checkpoint folder",
                                        "huggingface-cli download inclusionAI/LLaDA2.0-Uni --local-dir DIR")  # fmt: skip
        self.repo = require_paths(repo, REPO_FILES, "a checkout of inclusionAI/LLaDA2.0-Uni",
                                  "git clone https://github.com/inclusionAI/LLaDA2.0-Uni")  # fmt: skip
        if min(steps, block_length, edit_steps, decoder_steps, resolution_multiplier) < 1:
            raise BackendError("steps, block_length, edit_steps, decoder_steps and resolution_multiplier must be >= 1")
        if decode_mode not in ("normal", "decoder-turbo"):
            raise BackendError(f"decode_mode must be normal or decoder-turbo, got {decode_mode!r}")
        self.torch, self.device = torch_on(device, dtype)
        self.dtype = dtype
        self.steps, self.block_length = int(steps), int(block_length)
        self.edit_settings = {"steps": int(edit_steps), "block_length": int(block_length),
                              "cfg_text_scale": float(cfg_text_scale), "cfg_image_scale": float(cfg_image_scale)}  # fmt: skip
        self.decode_settings = {"resolution_multiplier": int(resolution_multiplier), "num_steps": int(decoder_steps),
                                "decode_mode": decode_mode}  # fmt: skip
        config = json.loads((self.checkpoint / "config.json").read_text(encoding="utf-8"))
        self.offset = int(config.get("image_token_offset", DEFAULT_IMAGE_TOKEN_OFFSET))
        self._load()
        self._fingerprint = model_fingerprint(self.checkpoint)

    def _load(self) -> None:
        """The model (remote code), its tokenizer, the image tokenizer and the decoder, as the README does."""
        transformers = require("transformers", "hf")
        tokenizer_module, smart_resize, decoder_utils, decoder = import_from_checkout(
            self.repo, "encoder.image_tokenizer", "decoder.smart_img_process", "decoder.utils", "decoder"
        )
        dtype = getattr(self.torch, self.dtype)
        folder = str(self.checkpoint)
        tokenizer = transformers.AutoTokenizer.from_pretrained(folder, trust_remote_code=True)
        self.model = transformers.AutoModelForCausalLM.from_pretrained(
            folder, trust_remote_code=True, torch_dtype=dtype, device_map={"": self.device}
        ).eval()
        self.model.tokenizer = tokenizer
        self.image_tokenizer = tokenizer_module.ImageTokenizer(model_path=folder, device=self.device, dtype=dtype)
        self.smart_resize_images = smart_resize.smart_resize_images
        self.crop = decoder_utils.var_center_crop
        self.crop_sizes = decoder_utils.generate_crop_size_list((512 // 32) ** 2, 32)
        self.decode_vq_tokens = decoder.decode_vq_tokens

    def _tokens(self, image: Image.Image) -> tuple[list[int], int, int]:
        """The image's discrete tokens (shifted into the model's vocabulary) and their grid."""
        info = self.image_tokenizer.encode_with_info(image)
        _, height, width = (int(x) for x in info["grid_thw"])
        return [int(token) + self.offset for token in info["token_ids"]], height, width

    def _answer(self, conversation: Conversation, gen: GenParams) -> Completion:
        question, images = flatten(conversation.messages)
        if not images:
            return Completion(error="LLaDA2.0-Uni's understand_image needs an image; the conversation has none")
        with tempfile.TemporaryDirectory(prefix="vgau-llada-") as folder:  # the scripts resize from a file path
            resized = self.smart_resize_images([str(save_png(images[-1], Path(folder), "image"))])[0]
            tokens, height, width = self._tokens(resized)
        budget = whole_blocks(gen.max_new_tokens, self.block_length)
        with self.torch.inference_mode():
            answer = self.model.understand_image(tokens, height, width, question=question, steps=self.steps,
                                                 block_length=self.block_length, gen_length=budget)  # fmt: skip
        return Completion(text=str(answer), prompt_tokens=len(tokens), finish_reason="stop")

    def chat(self, conversations: Sequence[Conversation], gen: GenParams) -> list[Completion]:
        completions = []
        for conversation in conversations:
            start = time.perf_counter()
            completion = self._answer(conversation, gen)
            completions.append(replace(completion, latency_s=time.perf_counter() - start))
        return completions

    def generate(self, requests: Sequence[ImageRequest], gen: GenParams) -> list[GeneratedImage]:
        results = []
        for request in requests:
            start = time.perf_counter()
            instruction, images = request_context(request)
            if not images:
                results.append(GeneratedImage(error="LLaDA2.0-Uni edits an image; the request has none"))
                continue
            self.torch.manual_seed(request_seed(request, gen))
            try:
                image = self._edit(images[-1], instruction)
            except (RuntimeError, ValueError, KeyError) as error:
                results.append(GeneratedImage(error=f"{type(error).__name__}: {error}", latency_s=time.perf_counter() - start))
                continue
            results.append(returned_image(image, "LLaDA2.0-Uni", start))
        return results

    def _edit(self, board: Image.Image, instruction: str) -> Any:
        tokens, height, width = self._tokens(self.crop(board.convert("RGB"), crop_size_list=self.crop_sizes))
        with self.torch.inference_mode():
            result = self.model.edit_image(tokens, height, width, instruction, **self.edit_settings)
            ids = [int(token) for token in result["token_ids"]]
            if ids and min(ids) >= self.offset:  # image_edit.py strips the offset when the model kept it
                ids = [token - self.offset for token in ids]
            return self.decode_vq_tokens(ids, int(result["h"]), int(result["w"]), str(self.checkpoint), self.device,
                                         **self.decode_settings)  # fmt: skip

    def fingerprint(self) -> str:
        return self._fingerprint

    def describe(self) -> dict[str, Any]:
        return describe_checkout(
            self, dtype=self.dtype, device=self.device, steps=self.steps, block_length=self.block_length,
            sampling="the model's own remasking (understand_image takes no temperature)",
            image_settings={**self.edit_settings, **self.decode_settings},
        )  # fmt: skip
