"""vLLM offline backend: ``LLM.chat`` over a batch, images passed in memory.

Thin on purpose: the request building (``to_vllm_messages``, ``sampling_kwargs``) is pure
and unit-tested; the engine itself runs only on a GPU machine. vllm is imported when
the backend is built, never by ``import vgau_data.runners``.

Multi-turn episodes carry one image per turn (up to ~84 under the fixed budget's cap);
``limit_images_per_prompt`` raises vLLM's per-prompt image cap (older versions default to 1).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from vgau_data.runners.backends.base import Completion, GenParams, require
from vgau_data.runners.backends.local_model import model_fingerprint, require_model_folder
from vgau_data.runners.messages import ImagePart, TextPart

if TYPE_CHECKING:
    from vgau_data.runners.messages import Conversation, Message

logger = logging.getLogger(__name__)


def to_vllm_messages(messages: Sequence[Message]) -> list[dict[str, Any]]:
    """OpenAI-format messages with ``image_pil`` parts (vLLM's in-memory image part).

    Example:
        >>> from PIL import Image
        >>> from vgau_data.runners.messages import user
        >>> to_vllm_messages([user(Image.new("RGB", (1, 1)), "go")])[0]["content"][0]["type"]
        'image_pil'
    """
    converted = []
    for message in messages:
        if message.role == "assistant":
            converted.append({"role": "assistant", "content": message.text})
            continue
        content: list[dict[str, Any]] = []
        for part in message.parts:
            if isinstance(part, TextPart):
                content.append({"type": "text", "text": part.text})
            elif isinstance(part, ImagePart):
                image = part.image if part.image.mode == "RGB" else part.image.convert("RGB")
                content.append({"type": "image_pil", "image_pil": image})
        converted.append({"role": message.role, "content": content})
    return converted


def sampling_kwargs(gen: GenParams) -> dict[str, Any]:
    """Keyword arguments of ``vllm.SamplingParams`` for ``gen`` (temperature 0 when greedy).

    Example:
        >>> sampling_kwargs(GenParams(max_new_tokens=16))
        {'max_tokens': 16, 'temperature': 0.0, 'top_p': 1.0, 'seed': None}
    """
    return {
        "max_tokens": gen.max_new_tokens,
        "temperature": 0.0 if gen.greedy else gen.temperature,
        "top_p": 1.0 if gen.greedy else gen.top_p,
        "seed": gen.seed,
    }


class VLLMBackend:
    """An in-process vLLM engine for a local model folder.

    Args:
        model: local model folder.
        tensor_parallel_size: GPUs one model is split over.
        dtype: ``auto``, ``bfloat16``, ``float16`` or ``float32``.
        max_model_len: context cap (None: the model's).
        gpu_memory_utilization: fraction of GPU memory vLLM may take.
        limit_images_per_prompt: most images one conversation may carry.
        engine_options: any other ``vllm.LLM`` keyword arguments.
    """

    name = "vllm"
    default_batch_size = 256

    def __init__(
        self,
        model: str,
        *,
        tensor_parallel_size: int = 1,
        dtype: str = "auto",
        max_model_len: int | None = None,
        gpu_memory_utilization: float = 0.9,
        limit_images_per_prompt: int = 100,
        engine_options: dict[str, Any] | None = None,
    ) -> None:
        path = require_model_folder(model, "vllm")
        self.vllm = require("vllm", "vllm")
        self.path = path
        self.engine_kwargs: dict[str, Any] = {
            "model": str(path),
            "tensor_parallel_size": tensor_parallel_size,
            "dtype": dtype,
            "gpu_memory_utilization": gpu_memory_utilization,
            "limit_mm_per_prompt": {"image": limit_images_per_prompt},
            **(engine_options or {}),
        }
        if max_model_len is not None:
            self.engine_kwargs["max_model_len"] = max_model_len
        self.llm = self.vllm.LLM(**self.engine_kwargs)
        self._fingerprint = model_fingerprint(path)

    def chat(self, conversations: Sequence[Conversation], gen: GenParams) -> list[Completion]:
        if not conversations:
            return []
        start = time.perf_counter()
        params = self.vllm.SamplingParams(**sampling_kwargs(gen))
        batch = [to_vllm_messages(conversation.messages) for conversation in conversations]
        outputs = self.llm.chat(batch, params, use_tqdm=False)
        latency = time.perf_counter() - start
        completions = []
        for output in outputs:
            first = output.outputs[0]
            completions.append(
                Completion(
                    text=first.text,
                    prompt_tokens=len(output.prompt_token_ids or []),
                    completion_tokens=len(first.token_ids or []),
                    latency_s=latency,
                    finish_reason=first.finish_reason,
                )
            )
        return completions

    def fingerprint(self) -> str:
        return self._fingerprint

    def describe(self) -> dict[str, Any]:
        settings = {key: value for key, value in self.engine_kwargs.items() if key != "model"}
        return {"backend": self.name, "model": str(self.path), "vllm": self.vllm.__version__, **settings}
