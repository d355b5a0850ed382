"""Janus-Pro through transformers' native Janus classes: it answers and it draws.

Chat is the ``hf`` backend's path (``AutoModelForImageTextToText`` loads
``JanusForConditionalGeneration``). Drawing is Janus's image mode: the prompt is the
chat-templated conversation, text only, with the request's instruction as the last user
turn, then the begin-of-image token; ``generate(generation_mode="image")`` samples the
image tokens with classifier-free guidance and the VQ decoder turns them into pixels.

Janus's image mode builds its input from token ids alone, so the board image cannot
condition it: Janus draws from the text of the conversation (``text_to_image``), it
cannot edit the board. That is the model's design, and the paper's Janus-Pro numbers
come from it.

Example (with a local checkpoint folder)::

    vgau-data run --backend janus --model ~/models/Janus-Pro-7B --protocol self_gta ...
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

import numpy as np
from PIL import Image

from vgau_data.runners.backends.base import BackendError, GeneratedImage, GenParams, ImageRequest
from vgau_data.runners.backends.hf import HFBackend
from vgau_data.runners.messages import Message, TextPart, to_hf, user


def text_only(messages: Sequence[Message]) -> list[Message]:
    """The messages with their images dropped (turns without text are dropped too)."""
    kept = []
    for message in messages:
        parts = tuple(part for part in message.parts if isinstance(part, TextPart))
        if parts:
            kept.append(Message(message.role, parts))
    return kept


def image_prompt_messages(request: ImageRequest) -> list[Message]:
    """The conversation (if any, text only) and the instruction as the last user turn."""
    history = text_only(request.conversation.messages) if request.conversation is not None else []
    return [*history, user(request.instruction)]


class JanusBackend(HFBackend):
    """A local Janus / Janus-Pro checkpoint folder.

    Args:
        model: the folder (config.json, weights, tokenizer, processor files).
        guidance_scale: classifier-free guidance for image tokens (Janus-Pro uses 5).
        image_temperature: sampling temperature for image tokens (1.0 as in Janus-Pro).
        **options: the ``hf`` backend's (``dtype``, ``device``, ``device_map``, ``attn_implementation``).
    """

    name = "janus"
    capabilities = frozenset({"chat", "text_to_image"})

    def __init__(self, model: str, *, guidance_scale: float = 5.0, image_temperature: float = 1.0, **options: Any) -> None:
        super().__init__(model, **options)
        if getattr(self.model.config, "model_type", None) != "janus":
            raise BackendError(f"{model} is a {self.model.config.model_type!r} model, not Janus; use --backend hf")
        if not (getattr(self.model.generation_config, "generation_kwargs", None) or {}).get("boi_token_id"):
            boi = getattr(self.tokenizer, "boi_token", None)
            if boi is None:
                raise BackendError(f"{model}: the tokenizer names no begin-of-image token (boi_token)")
            self.model.generation_config.generation_kwargs = {"boi_token_id": self.tokenizer.convert_tokens_to_ids(boi)}
        self.guidance_scale = guidance_scale
        self.image_temperature = image_temperature

    def generate(self, requests: Sequence[ImageRequest], gen: GenParams) -> list[GeneratedImage]:
        """Draw one image per request (one batch); a failure comes back as ``error`` on each image."""
        if not requests:
            return []
        torch = self.torch
        start = time.perf_counter()
        try:
            prompts = [
                self.processor.apply_chat_template(to_hf(image_prompt_messages(r)), add_generation_prompt=True, tokenize=False)
                for r in requests
            ]
            inputs = self.processor(text=prompts, generation_mode="image", return_tensors="pt", padding=True)
            inputs = inputs.to(self.model.device)
            torch.manual_seed(requests[0].seed if gen.seed is None else gen.seed)
            with torch.inference_mode():
                tokens = self.model.generate(
                    **inputs,
                    generation_mode="image",
                    do_sample=True,
                    temperature=self.image_temperature,
                    guidance_scale=self.guidance_scale,
                )
                pixels = self.model.decode_image_tokens(tokens)  # (batch, height, width, 3) in [-1, 1]
            rgb = ((pixels.float().clamp(-1, 1) + 1) * 127.5).round().to(torch.uint8).cpu().numpy()
        except (RuntimeError, ValueError, TypeError) as error:  # torch raises RuntimeError for OOM and shape errors
            failed = f"{type(error).__name__}: {error}"
            return [GeneratedImage(error=failed, latency_s=time.perf_counter() - start) for _ in requests]
        latency = time.perf_counter() - start
        meta = {"image_tokens": int(tokens.shape[1])}
        return [GeneratedImage(image=Image.fromarray(np.ascontiguousarray(row), "RGB"), latency_s=latency, meta=meta) for row in rgb]

    def describe(self) -> dict[str, Any]:
        return super().describe() | {
            "capabilities": sorted(self.capabilities),
            "guidance_scale": self.guidance_scale,
            "image_temperature": self.image_temperature,
        }

