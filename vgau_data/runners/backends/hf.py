"""transformers backend: ``AutoModelForImageTextToText`` + processor from a local folder.

Covers every model ``AutoModelForImageTextToText`` maps (Qwen2-VL, Qwen2.5-VL, Qwen3-VL,
Qwen3.5, ...). A batch is one left-padded ``generate`` call, greedy by default, with
the model's own chat template (its sha256 goes into the record header).

The torchvision catch: the stock Qwen processors build a video processor, which needs
torchvision; without it ``AutoProcessor`` raises ImportError. ``load_processor`` then
assembles ``AutoTokenizer`` + ``AutoImageProcessor`` into the model's processor class
with no video processor, which is all image chats need.

This is the only module of ``vgau_data.runners`` that imports torch and transformers.
"""

from __future__ import annotations

import hashlib
import importlib.util
import inspect
import logging
import time
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from vgau_data.runners.backends.base import BackendError, Completion, GenParams, require
from vgau_data.runners.backends.local_model import model_fingerprint, read_chat_template, require_model_folder
from vgau_data.runners.messages import to_hf

if TYPE_CHECKING:
    from vgau_data.runners.messages import Conversation

logger = logging.getLogger(__name__)

DTYPES = ("auto", "float32", "bfloat16", "float16")


class HFBackend:
    """A local transformers vision-language model.

    Args:
        model: path to a folder with ``config.json``, weights, tokenizer and image
            processor files (download once with ``huggingface-cli download REPO --local-dir DIR``).
        dtype: ``auto`` (the checkpoint's), ``float32``, ``bfloat16`` or ``float16``.
        device: ``auto`` (cuda if available, else cpu), ``cpu``, ``cuda``, ``cuda:1`` ...
            Ignored when ``device_map`` is given.
        device_map: passed to ``from_pretrained`` (``"auto"`` spreads a big model over GPUs).
        attn_implementation: ``sdpa``, ``flash_attention_2``, ``eager`` or None (default).
    """

    name = "hf"
    default_batch_size = 16

    def __init__(
        self,
        model: str,
        *,
        dtype: str = "auto",
        device: str = "auto",
        device_map: str | None = None,
        attn_implementation: str | None = None,
    ) -> None:
        path = require_model_folder(model, "hf")
        if dtype not in DTYPES:
            raise BackendError(f"--dtype must be one of {DTYPES}, got {dtype!r}")
        self.torch = require("torch", "hf")
        self.transformers = require("transformers", "hf")
        self.path = path
        self.dtype = dtype
        self.attn_implementation = attn_implementation
        load_kwargs: dict[str, Any] = {"dtype": "auto" if dtype == "auto" else getattr(self.torch, dtype)}
        if attn_implementation:
            load_kwargs["attn_implementation"] = attn_implementation
        if device == "auto":
            device = "cuda" if self.torch.cuda.is_available() else "cpu"
        if device_map:
            load_kwargs["device_map"] = device_map
        elif importlib.util.find_spec("accelerate") is not None:
            load_kwargs["device_map"] = device  # straight onto the device, not through CPU memory first
        self.model = self.transformers.AutoModelForImageTextToText.from_pretrained(str(path), **load_kwargs).eval()
        if "device_map" not in load_kwargs:
            self.model.to(device)
        self.device = str(self.model.device)
        self.processor, self.processor_kind = load_processor(path)
        self.tokenizer = self.processor.tokenizer
        self.tokenizer.padding_side = "left"
        if self.tokenizer.pad_token_id is None:
            self.tokenizer.pad_token = self.tokenizer.eos_token
        self._takes_processor_kwargs = (
            "processor_kwargs" in inspect.signature(self.processor.apply_chat_template).parameters
        )
        self._fingerprint = model_fingerprint(path)

    # -- the interface --------------------------------------------------------------

    def chat(self, conversations: Sequence[Conversation], gen: GenParams) -> list[Completion]:
        if not conversations:
            return []
        torch = self.torch
        start = time.perf_counter()
        inputs = self.encode(conversations).to(self.model.device)
        prompt_tokens = inputs["attention_mask"].sum(dim=1).tolist()
        generate_kwargs = self._generate_kwargs(gen)
        if not gen.greedy and gen.seed is not None:
            torch.manual_seed(gen.seed)
        with torch.inference_mode():
            output = self.model.generate(**inputs, **generate_kwargs)
        new_tokens = output[:, inputs["input_ids"].shape[1] :].tolist()
        latency = time.perf_counter() - start
        completions = []
        for row, n_prompt in zip(new_tokens, prompt_tokens):
            ids, finished = self._strip_after_eos(row)
            completions.append(
                Completion(
                    text=self.tokenizer.decode(ids, skip_special_tokens=True),
                    prompt_tokens=int(n_prompt),
                    completion_tokens=len(ids) + int(finished),
                    latency_s=latency,
                    finish_reason="stop" if finished else "length",
                )
            )
        return completions

    def fingerprint(self) -> str:
        return self._fingerprint

    def describe(self) -> dict[str, Any]:
        config = self.model.config
        info: dict[str, Any] = {
            "backend": self.name,
            "model": str(self.path),
            "model_type": getattr(config, "model_type", None),
            "architectures": getattr(config, "architectures", None),
            "dtype": str(self.model.dtype),
            "device": self.device,
            "attn_implementation": getattr(config, "_attn_implementation", self.attn_implementation),
            "processor": self.processor_kind,
            "chat_template_sha256": hashlib.sha256(str(self.processor.chat_template or "").encode()).hexdigest(),
            "torch": self.torch.__version__,
            "transformers": self.transformers.__version__,
        }
        if self.device.startswith("cuda"):
            info["gpu"] = self.torch.cuda.get_device_name(self.model.device)
        return info

    # -- pieces ---------------------------------------------------------------------

    def encode(self, conversations: Sequence[Conversation]) -> Any:
        """Left-padded model inputs for a batch (chat template applied, images processed)."""
        batch = [to_hf(conversation.messages) for conversation in conversations]
        options: dict[str, Any] = {"padding": True, "return_tensors": "pt"}
        if self._takes_processor_kwargs:
            return self.processor.apply_chat_template(
                batch, add_generation_prompt=True, tokenize=True, return_dict=True, processor_kwargs=options
            )
        return self.processor.apply_chat_template(
            batch, add_generation_prompt=True, tokenize=True, return_dict=True, **options
        )

    def _generate_kwargs(self, gen: GenParams) -> dict[str, Any]:
        kwargs: dict[str, Any] = {"max_new_tokens": gen.max_new_tokens, "pad_token_id": self.tokenizer.pad_token_id}
        if gen.greedy:
            # Override sampling defaults a checkpoint's generation_config may carry.
            kwargs.update(do_sample=False, temperature=None, top_p=None, top_k=None)
        else:
            kwargs.update(do_sample=True, temperature=gen.temperature, top_p=gen.top_p)
        return kwargs

    def _stop_ids(self) -> set[int]:
        stop = self.model.generation_config.eos_token_id
        ids = set(stop) if isinstance(stop, (list, tuple)) else ({stop} if stop is not None else set())
        if self.tokenizer.eos_token_id is not None:
            ids.add(self.tokenizer.eos_token_id)
        return ids

    def _strip_after_eos(self, row: list[int]) -> tuple[list[int], bool]:
        """Tokens before the first stop token, and whether one was found."""
        stop = self._stop_ids()
        for index, token in enumerate(row):
            if token in stop:
                return row[:index], True
        return row, False


def load_processor(path: Path) -> tuple[Any, str]:
    """The model's processor, and ``"auto"`` or ``"fallback"`` (tokenizer + image processor).

    The fallback is used only when ``AutoProcessor`` raises ImportError (torchvision
    missing); any other failure propagates.
    """
    transformers = require("transformers", "hf")
    try:
        return transformers.AutoProcessor.from_pretrained(str(path)), "auto"
    except ImportError as error:
        first_line = (str(error).strip().splitlines() or ["ImportError"])[0]
        logger.warning("AutoProcessor failed (%s); using tokenizer + image processor without video support", first_line)
    config = transformers.AutoConfig.from_pretrained(str(path))
    from transformers.models.auto.processing_auto import PROCESSOR_MAPPING_NAMES

    class_name = PROCESSOR_MAPPING_NAMES.get(config.model_type)
    if not class_name or not hasattr(transformers, class_name):
        raise BackendError(
            f"no processor class known for model_type {config.model_type!r}; install torchvision and retry"
        )
    processor_class = getattr(transformers, class_name)

    class ImageOnlyProcessor(processor_class):  # type: ignore[misc, valid-type]
        """The model's processor with no video processor (images-only chats)."""

        def check_argument_for_proper_class(self, argument_name: str, argument: Any) -> Any:
            if argument is None:
                return None
            return super().check_argument_for_proper_class(argument_name, argument)

    ImageOnlyProcessor.__name__ = f"ImageOnly{class_name}"
    tokenizer = transformers.AutoTokenizer.from_pretrained(str(path))
    image_processor = transformers.AutoImageProcessor.from_pretrained(str(path))
    processor = ImageOnlyProcessor(
        image_processor=image_processor,
        tokenizer=tokenizer,
        video_processor=None,
        chat_template=read_chat_template(path) or tokenizer.chat_template,
    )
    return processor, "fallback"
