"""STAR-7B (MM-MVR/STAR) from the user's checkout, its config and a checkpoint file.

Read from the repository at commit 8263fb5 (``star/models/model.py``, the 7B config) and its
scripts ``inference_understand.py`` (628768b) and ``inference_edit.py`` (528d8aa). The
scripts build ``STARMultiModal(STARMultiModalConfig(**load_config_from_json(config)), args)``
with their argparse namespace as ``args``, load ``torch.load(checkpoint)["state_dict"]``
with ``strict=False`` and move the model to the device in bfloat16. This backend does the
same, with the edit script's settings as ``args``; the config's relative paths (the
Qwen2.5-VL-7B folder, ``VQ-Model.pt``, the Lumina decoder) are read against the checkout,
where the scripts run, and a missing one is named.

- chat: STAR's understanding half is the frozen Qwen2.5-VL it holds (``model.llm``,
  ``model.processor``). ``inference_understand`` sends one image (the first of a list); this
  backend sends the conversation with all its images through the same processor and
  ``llm.generate``, greedy with the run's token budget (the script takes the
  generation config's defaults).
- generate: ``generate_images_edit([board], prompt, max_new_tokens=576, cfg_weight=20,
  topk_sample=2000, topp_sample=1.0, return_dict=True)`` (the edit script's defaults); the
  VQ image (``output_images`` in [-1, 1]) is the drawing, or the Lumina decoder's
  ``diff_images`` with ``diffusion_as_decoder=true``. The prompt is the conversation's
  texts then the instruction; the board is the context's last image.

STAR's own code calls ``.cuda()`` and loads Qwen2.5-VL with flash attention on
``device_map="cuda"``: it needs a GPU, whatever ``device`` says.

Example::

    git clone https://github.com/MM-MVR/STAR ~/src/STAR   # checkpoints/ as its README lays them out
    vgau-data run --backend star --model ~/src/STAR/checkpoints/STAR-7B.pt --backend-arg repo=~/src/STAR \\
        --protocol self_gta self_vcot self_vr --out runs
"""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from pathlib import Path
from types import SimpleNamespace
from typing import TYPE_CHECKING, Any

import numpy as np
from PIL import Image

from vgau_data.runners.backends.base import BackendError, Completion, GeneratedImage, GenParams, ImageRequest, require
from vgau_data.runners.backends.checkouts import (
    describe_checkout,
    files_fingerprint,
    import_from_checkout,
    qwen_vl_answer,
    request_context,
    request_seed,
    require_paths,
    returned_image,
)

if TYPE_CHECKING:
    from vgau_data.runners.messages import Conversation

DEFAULT_CONFIG = "star/configs/STAR_Qwen2.5-VL-7B.json"
REPO_FILES = ("star/models/model.py", "star/models/config.py")
CONFIG_PATHS = (("language_model", "model_path"), ("pixel_encoder", "model_path"))
DECODER_PATH = ("pixel_decoder", "model_path")


class StarBackend:
    """STAR as one unified model: Qwen2.5-VL answers, the stacked AR modules edit the board.

    Args:
        model: the checkpoint file (``torch.save`` of ``{"state_dict": ...}``).
        repo: the user's clone of MM-MVR/STAR (its requirements installed).
        config: the model config (relative to the checkout, or a path; default the 7B one).
        device: where the model goes (``cuda`` by default; STAR's code needs CUDA).
        vq_tokens, cfg_weight, topk, topp: drawing settings (defaults: ``inference_edit.py``).
        diffusion_as_decoder, diffusion_resolution: decode with the Lumina decoder (its flag).
        max_pixels, min_pixels: the image processor's bounds (the understanding script's).
    """

    name = "star"
    capabilities = frozenset({"chat", "image_edit"})
    default_batch_size = 1

    def __init__(
        self,
        model: str,
        *,
        repo: str,
        config: str = DEFAULT_CONFIG,
        device: str = "cuda",
        vq_tokens: int = 576,
        cfg_weight: float = 20.0,
        topk: int = 2000,
        topp: float = 1.0,
        diffusion_as_decoder: bool = False,
        diffusion_resolution: int = 1024,
        max_pixels: int = 28 * 28 * 1024,
        min_pixels: int = 28 * 28 * 16,
    ) -> None:
        self.checkpoint = Path(model).expanduser()
        if not self.checkpoint.is_file():
            raise BackendError(f"missing the STAR checkpoint file {self.checkpoint} (--model is the .pt file)")
        self.repo = require_paths(repo, REPO_FILES, "a checkout of MM-MVR/STAR", "git clone https://github.com/MM-MVR/STAR")
        self.config_path = self.repo / Path(config).expanduser()
        if not self.config_path.is_file():
            raise BackendError(f"missing the STAR config {self.config_path} (pass config=PATH, e.g. {DEFAULT_CONFIG})")
        if int(np.sqrt(vq_tokens)) ** 2 != vq_tokens:
            raise BackendError(f"vq_tokens must be a square (the image is sqrt(n) x sqrt(n) tokens), got {vq_tokens}")
        self.torch = require("torch", "hf")
        self.device = device
        self.settings = SimpleNamespace(
            data_type="img2img", diffusion_as_decoder=bool(diffusion_as_decoder), ori_inp_dit="seq", grad_ckpt=False,
            diffusion_resolution=int(diffusion_resolution), max_diff_seq_length=256, max_seq_length=8192,
            max_text_tokens=512, max_pixels=int(max_pixels), min_pixels=int(min_pixels), vq_image_size=384,
            vq_tokens=int(vq_tokens),
        )  # fmt: skip
        self.image_settings = {"max_new_tokens": int(vq_tokens), "cfg_weight": float(cfg_weight),
                               "topk_sample": int(topk), "topp_sample": float(topp)}  # fmt: skip
        self.config_data = self._resolved_config()
        self._load()
        self._fingerprint = files_fingerprint("star-v1", [self.checkpoint, self.config_path])

    def _resolved_config(self) -> dict[str, Any]:
        """The config with its relative paths read against the checkout; an error names what is missing."""
        data = json.loads(self.config_path.read_text(encoding="utf-8"))
        wanted = [*CONFIG_PATHS, DECODER_PATH] if self.settings.diffusion_as_decoder else list(CONFIG_PATHS)
        missing = []
        for section, key in wanted:
            named = str(data.setdefault(section, {}).get(key, ""))
            path = self.repo / Path(named).expanduser()
            data[section][key] = str(path)
            if not named or not path.exists():
                missing.append(f"{section}.{key} = {path}")
        if missing:
            raise BackendError(f"the STAR config {self.config_path} names files that are missing: {'; '.join(missing)}")
        return data

    def _load(self) -> None:
        """Build, load and place the model as the scripts' ``model_setup`` does."""
        config_module, model_module = import_from_checkout(self.repo, "star.models.config", "star.models.model")
        config = config_module.STARMultiModalConfig(**self.config_data)
        model = model_module.STARMultiModal(config, self.settings)
        state = self.torch.load(str(self.checkpoint), map_location="cpu", weights_only=True)
        if not isinstance(state, dict) or "state_dict" not in state:
            raise BackendError(f"{self.checkpoint} holds no 'state_dict' (not a STAR checkpoint)")
        with self.torch.no_grad():
            model.load_state_dict(state["state_dict"], strict=False)
        self.model = model.to(self.device).to(self.torch.bfloat16)

    def chat(self, conversations: Sequence[Conversation], gen: GenParams) -> list[Completion]:
        model = self.model
        with self.torch.inference_mode():
            return [qwen_vl_answer(model.processor, model.llm.generate, c, gen, model.llm.device) for c in conversations]

    def generate(self, requests: Sequence[ImageRequest], gen: GenParams) -> list[GeneratedImage]:
        results = []
        for request in requests:
            start = time.perf_counter()
            prompt, images = request_context(request)
            if not images:
                results.append(GeneratedImage(error="STAR edits an image; the request has none"))
                continue
            self.torch.manual_seed(request_seed(request, gen))
            try:
                with self.torch.no_grad():
                    output = self.model.generate_images_edit([images[-1]], prompt, num_return_sequences=1,
                                                             return_dict=True, **self.image_settings)  # fmt: skip
            except (RuntimeError, ValueError) as error:
                results.append(GeneratedImage(error=f"{type(error).__name__}: {error}", latency_s=time.perf_counter() - start))
                continue
            results.append(returned_image(drawing(output), "STAR", start))
        return results

    def fingerprint(self) -> str:
        return self._fingerprint

    def describe(self) -> dict[str, Any]:
        return describe_checkout(self, config=str(self.config_path), device=self.device,
                                 diffusion_as_decoder=self.settings.diffusion_as_decoder,
                                 image_settings=self.image_settings)  # fmt: skip


def drawing(output: object) -> Image.Image | None:
    """The decoder's image when STAR ran it, else the VQ image (pixels in [-1, 1], as the scripts scale them)."""
    if not isinstance(output, dict):
        return None
    decoded = output.get("diff_images")
    if decoded:
        return decoded[0]
    pixels = output.get("output_images")
    if pixels is None or len(pixels) == 0:
        return None
    return Image.fromarray(np.clip((np.asarray(pixels[0], dtype=np.float32) + 1) / 2 * 255, 0, 255).astype(np.uint8))
