"""MammothModa2 (bytedance/mammothmoda) from the user's checkout and checkpoint folder.

Read from the repository at commit df2154e (README, ``mammothmoda2/model/__init__.py``,
``mammothmoda2/utils/t2i_utils.py``). ``mammothmoda2.model`` registers
``Mammothmoda2Processor`` for transformers' ``AutoProcessor``; this backend calls that class
directly (the same object ``AutoProcessor`` returns), and ``Mammothmoda2Model``:

- chat (the README's understanding example): the Qwen2.5-VL-style chat template with the
  conversation's images, ``processor(..., padding_side="left", return_token_type_ids=False)``,
  ``model.generate`` with the run's token budget, the prompt trimmed off and decoded.
- generate (the README's text-to-image example): a processor built with
  ``t2i_generate=True, ar_height=32, ar_width=32`` makes the inputs (``cfg_scale=7.0``,
  ``DEFAULT_NEGATIVE_PROMPT``), ``model.generate`` returns the AR tokens and mask, and
  ``mammothmoda2.utils.decode_diffusion_image`` runs the DiT and VAE (text guidance 9, 50
  steps, 1024x1024, as the README) and returns ``decoded_img`` (it also writes a PNG, here
  into a temporary folder).

At this commit ``decode_diffusion_image`` passes no reference image to the DiT, so the
model draws from text alone (``text_to_image``, like Janus-Pro and Show-o2): the prompt is
the conversation's texts then the instruction. The model is loaded once, with
``t2i_generate=True`` (the README loads it without for understanding; the same weights
serve both, which is not verified here).

Example::

    git clone https://github.com/bytedance/mammothmoda ~/src/mammothmoda && (cd ~/src/mammothmoda && uv sync)
    huggingface-cli download bytedance-research/MammothModa2-Preview --local-dir ~/models/MammothModa2-Preview
    vgau-data run --backend mammothmoda2 --model ~/models/MammothModa2-Preview \\
        --backend-arg repo=~/src/mammothmoda --protocol self_gta self_vcot self_vr --out runs
"""

from __future__ import annotations

import contextlib
import tempfile
import time
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from vgau_data.runners.backends.base import BackendError, Completion, GeneratedImage, GenParams, ImageRequest
from vgau_data.runners.backends.checkouts import (
    describe_checkout,
    import_from_checkout,
    qwen_vl_answer,
    request_context,
    request_seed,
    require_paths,
    returned_image,
    torch_on,
)
from vgau_data.runners.backends.local_model import model_fingerprint

if TYPE_CHECKING:
    from vgau_data.runners.messages import Conversation

REPO_FILES = ("mammothmoda2/model/__init__.py", "mammothmoda2/utils/__init__.py", "mammothmoda2/utils/t2i_utils.py")


class Mammothmoda2Backend:
    """MammothModa2 as one unified model: it answers about the conversation's images and draws from text.

    Args:
        model: the checkpoint folder (``config.json``, weights, processor files).
        repo: the user's clone of bytedance/mammothmoda (its environment installed).
        dtype, device, attn_implementation: as ``from_pretrained`` takes them (the README uses flash_attention_2).
        cfg_scale, text_guidance_scale, num_inference_steps, height, width: drawing settings (the README's).
    """

    name = "mammothmoda2"
    capabilities = frozenset({"chat", "text_to_image"})
    default_batch_size = 1

    def __init__(
        self,
        model: str,
        *,
        repo: str,
        dtype: str = "bfloat16",
        device: str = "auto",
        attn_implementation: str = "sdpa",
        cfg_scale: float = 7.0,
        text_guidance_scale: float = 9.0,
        num_inference_steps: int = 50,
        height: int = 1024,
        width: int = 1024,
    ) -> None:
        self.checkpoint = require_paths(model, ("config.json",), "a MammothModa2 checkpoint folder",
                                        "huggingface-cli download bytedance-research/MammothModa2-Preview --local-dir DIR")  # fmt: skip
        self.repo = require_paths(repo, REPO_FILES, "a checkout of bytedance/mammothmoda",
                                  "git clone https://github.com/bytedance/mammothmoda")  # fmt: skip
        if num_inference_steps < 1 or min(height, width) < 16:
            raise BackendError("num_inference_steps must be >= 1 and height, width >= 16")
        self.torch, self.device = torch_on(device, dtype)
        self.dtype = dtype
        self.cfg_scale = float(cfg_scale)
        self.image_settings = {"text_guidance_scale": float(text_guidance_scale), "vae_scale_factor": 16,
                               "cfg_range": (0.0, 1.0), "num_inference_steps": int(num_inference_steps),
                               "height": int(height), "width": int(width)}  # fmt: skip
        model_module, utils = import_from_checkout(self.repo, "mammothmoda2.model", "mammothmoda2.utils")
        folder = str(self.checkpoint)
        self.model = model_module.Mammothmoda2Model.from_pretrained(
            folder, attn_implementation=attn_implementation, torch_dtype=dtype, t2i_generate=True
        ).to(self.device)
        self.processor = model_module.Mammothmoda2Processor.from_pretrained(folder)
        self.t2i_processor = model_module.Mammothmoda2Processor.from_pretrained(
            folder, t2i_generate=True, ar_height=32, ar_width=32
        )
        self.negative_prompt = model_module.DEFAULT_NEGATIVE_PROMPT
        self.decode_diffusion_image = utils.decode_diffusion_image
        self._fingerprint = model_fingerprint(self.checkpoint)

    def _autocast(self) -> Any:
        """bfloat16 autocast on CUDA, as the README runs both examples; nothing elsewhere."""
        if str(self.device).startswith("cuda"):
            return self.torch.autocast(device_type="cuda", dtype=self.torch.bfloat16)
        return contextlib.nullcontext()

    def chat(self, conversations: Sequence[Conversation], gen: GenParams) -> list[Completion]:
        with self.torch.inference_mode(), self._autocast():
            return [
                qwen_vl_answer(self.processor, self.model.generate, conversation, gen, self.device,
                               padding_side="left", return_token_type_ids=False)
                for conversation in conversations
            ]

    def generate(self, requests: Sequence[ImageRequest], gen: GenParams) -> list[GeneratedImage]:
        results = []
        for request in requests:
            start = time.perf_counter()
            prompt, _ = request_context(request)
            self.torch.manual_seed(request_seed(request, gen))  # the DiT's noise comes from torch's generator
            try:
                image = self._draw(prompt)
            except (RuntimeError, ValueError) as error:
                results.append(GeneratedImage(error=f"{type(error).__name__}: {error}", latency_s=time.perf_counter() - start))
                continue
            results.append(returned_image(image, "MammothModa2", start))
        return results

    def _draw(self, prompt: str) -> Any:
        processor = self.t2i_processor
        messages = [{"role": "user", "content": [{"type": "text", "text": prompt}]}]
        text = processor.apply_chat_template(messages, tokenize=False, add_generation_prompt=True)
        inputs = processor(
            text=[text], images=None, videos=None, num_images_per_prompt=1, cfg_scale=self.cfg_scale,
            negative_prompt=self.negative_prompt, padding=True, padding_side="left", return_tensors="pt",
            return_token_type_ids=False,
        ).to(self.device)  # fmt: skip
        with self.torch.inference_mode(), self._autocast(), tempfile.TemporaryDirectory(prefix="vgau-mammoth-") as out:
            generated_ids, attention_mask = self.model.generate(**inputs)
            made = self.decode_diffusion_image(
                input_ids=inputs["input_ids"], generated_ids=generated_ids, attention_mask=attention_mask,
                negative_ids=inputs.get("negative_ids"), negative_mask=inputs.get("negative_mask"), model=self.model,
                tokenizer=processor.tokenizer, output_dir=out, num_images_per_prompt=1, **self.image_settings,
            )  # fmt: skip
            image = made[0]["decoded_img"] if made else None
            return image.copy() if image is not None else None

    def fingerprint(self) -> str:
        return self._fingerprint

    def describe(self) -> dict[str, Any]:
        return describe_checkout(self, dtype=self.dtype, device=self.device,
                                 image_settings={"cfg_scale": self.cfg_scale, **self.image_settings})  # fmt: skip
