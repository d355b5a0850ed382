"""OmniGen2 (VectorSpaceLab/OmniGen2) from the user's checkout and checkpoint folder.

Read from the repository at commit 0f72fa9: ``OmniGen2ChatPipeline`` (a diffusers-style
pipeline in ``omnigen2.pipelines.omnigen2.pipeline_omnigen2_chat``) holds the Qwen2.5-VL
understanding model (``mllm`` and ``processor``) and the diffusion transformer, which is
loaded from the checkpoint's ``transformer`` subfolder with
``OmniGen2Transformer2DModel``. The pipeline's own ``__call__`` answers in text and draws
only when the model opens with ``<|img|>``, with at most 256 new tokens; this backend
calls its parts instead, so that ``chat`` always answers (with the run's token budget)
and ``generate`` always draws:

- chat: ``_apply_chat_template(text, images)`` then ``mllm.generate`` on
  ``prepare_inputs_for_text_generation``;
- generate: ``generate_image(prompt=..., input_images=[board], ...)`` with the settings of
  OmniGen2's own inference script by default (50 steps, text guidance 5, image guidance 2).

The chat template takes one user turn, so a conversation is flattened into it: its texts
joined, its images in order.

Example::

    git clone https://github.com/VectorSpaceLab/OmniGen2 ~/src/OmniGen2   # and its requirements
    huggingface-cli download OmniGen2/OmniGen2 --local-dir ~/models/OmniGen2
    load_backend("omnigen2", model="~/models/OmniGen2", repo="~/src/OmniGen2")
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

from vgau_data.runners.backends.base import Completion, GeneratedImage, GenParams, ImageRequest
from vgau_data.runners.backends.checkouts import (
    describe_checkout,
    flatten,
    import_from_checkout,
    require_paths,
    returned_image,
    torch_on,
)
from vgau_data.runners.backends.diffusers_edit import pipeline_fingerprint

CHECKPOINT_FILES = ("model_index.json", "transformer")
REPO_FILES = ("omnigen2/pipelines/omnigen2/pipeline_omnigen2_chat.py", "omnigen2/models/transformers/transformer_omnigen2.py")
STOP_STRINGS = ("<|im_end|>", "<|img|>", "<|endoftext|>")


class OmniGen2Backend:
    """OmniGen2 as one unified model.

    Args:
        model: the checkpoint folder (``model_index.json``, ``transformer/``, ``mllm/`` ...).
        repo: the user's clone of VectorSpaceLab/OmniGen2 (its requirements installed).
        dtype: ``bfloat16`` (default), ``float16`` or ``float32``.
        device: ``auto`` (cuda if available), ``cpu``, ``cuda:1`` ...
        num_inference_steps, text_guidance_scale, image_guidance_scale, width, height,
        negative_prompt: image settings (defaults: OmniGen2's inference script, no negative prompt).
    """

    name = "omnigen2"
    capabilities = frozenset({"chat", "image_edit"})

    def __init__(
        self,
        model: str,
        *,
        repo: str,
        dtype: str = "bfloat16",
        device: str = "auto",
        num_inference_steps: int = 50,
        text_guidance_scale: float = 5.0,
        image_guidance_scale: float = 2.0,
        width: int = 1024,
        height: int = 1024,
        negative_prompt: str | None = None,
    ) -> None:
        self.checkpoint = require_paths(model, CHECKPOINT_FILES, "an OmniGen2 checkpoint folder",
                                        "huggingface-cli download OmniGen2/OmniGen2 --local-dir DIR")  # fmt: skip
        self.repo = require_paths(repo, REPO_FILES, "a checkout of VectorSpaceLab/OmniGen2",
                                  "git clone https://github.com/VectorSpaceLab/OmniGen2")  # fmt: skip
        self.torch, self.device = torch_on(device, dtype)
        self.dtype = dtype
        chat_module, transformer_module = import_from_checkout(
            self.repo,
            "omnigen2.pipelines.omnigen2.pipeline_omnigen2_chat",
            "omnigen2.models.transformers.transformer_omnigen2",
        )
        torch_dtype = getattr(self.torch, dtype)
        pipeline = chat_module.OmniGen2ChatPipeline.from_pretrained(
            str(self.checkpoint), torch_dtype=torch_dtype, trust_remote_code=True
        )
        pipeline.transformer = transformer_module.OmniGen2Transformer2DModel.from_pretrained(
            str(self.checkpoint), subfolder="transformer", torch_dtype=torch_dtype
        )
        self.pipeline = pipeline.to(self.device)
        self.image_settings: dict[str, Any] = {
            "num_inference_steps": num_inference_steps,
            "text_guidance_scale": text_guidance_scale,
            "image_guidance_scale": image_guidance_scale,
            "width": width,
            "height": height,
            "negative_prompt": negative_prompt,
        }
        self._fingerprint = pipeline_fingerprint(self.checkpoint)

    def chat(self, conversations: Sequence[Any], gen: GenParams) -> list[Completion]:
        completions = []
        pipeline = self.pipeline
        for conversation in conversations:
            start = time.perf_counter()
            text, images = flatten(conversation.messages)
            prompt = pipeline._apply_chat_template(text, images or None)
            inputs = pipeline.prepare_inputs_for_text_generation(prompt, images or None, pipeline.mllm.device)
            options: dict[str, Any] = {"max_new_tokens": gen.max_new_tokens, "do_sample": not gen.greedy}
            if not gen.greedy:
                options.update(temperature=gen.temperature, top_p=gen.top_p)
            with self.torch.inference_mode():
                output = pipeline.mllm.generate(
                    **inputs, tokenizer=pipeline.processor.tokenizer, stop_strings=list(STOP_STRINGS), **options
                )
            new = [row[len(prompt_ids) :] for prompt_ids, row in zip(inputs.input_ids, output)]
            answer = pipeline.processor.batch_decode(new, skip_special_tokens=True)[0]
            completions.append(
                Completion(text=answer, completion_tokens=len(new[0]), latency_s=time.perf_counter() - start)
            )
        return completions

    def generate(self, requests: Sequence[ImageRequest], gen: GenParams) -> list[GeneratedImage]:
        results = []
        for request in requests:
            start = time.perf_counter()
            history, images = flatten(request.conversation.messages) if request.conversation else ("", list(request.images))
            instruction = f"{history}\n\n{request.instruction}" if history else request.instruction
            seed = (request.seed if gen.seed is None else gen.seed) + request.step
            try:
                made = self.pipeline.generate_image(
                    prompt=self.pipeline._apply_chat_template(instruction, images or None),
                    input_images=images or None,
                    generator=self.torch.Generator(device=self.device).manual_seed(seed),
                    **self.image_settings,
                )
            except (RuntimeError, ValueError) as error:
                results.append(GeneratedImage(error=f"{type(error).__name__}: {error}", latency_s=time.perf_counter() - start))
                continue
            results.append(returned_image(made[0] if isinstance(made, list) and made else None, "OmniGen2", start))
        return results

    def fingerprint(self) -> str:
        return self._fingerprint

    def describe(self) -> dict[str, Any]:
        return describe_checkout(self, dtype=self.dtype, device=self.device, image_settings=self.image_settings)
