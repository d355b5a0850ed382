"""Any diffusers image pipeline from a local folder: Qwen-Image-Edit, FLUX Kontext, InstructPix2Pix ...

``DiffusionPipeline.from_pretrained(folder)`` picks the pipeline class from the folder's
``model_index.json``. A pipeline whose call takes an ``image`` edits the board
(``image_edit``: the paper's external generator, Qwen-Image-Edit, is one); one without
draws from the instruction alone (``text_to_image``). Each request is one call with its
instruction as ``prompt``, its first input image as ``image`` and a generator seeded
from the request, so reruns give the same image on the same hardware.

Pipeline options that differ between pipelines (``num_inference_steps``,
``guidance_scale``, Qwen-Image-Edit's ``true_cfg_scale`` and ``negative_prompt``) are
passed only when set, and only to pipelines that take them.

Example (with a local checkpoint folder)::

    vgau-data run --backend pair --backend-arg generator=diffusers \\
        --backend-arg generator_model=~/models/Qwen-Image-Edit --model ~/models/Qwen3.5-9B ...
"""

from __future__ import annotations

import hashlib
import inspect
import json
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from vgau_data.runners.backends.base import BackendError, GeneratedImage, GenParams, ImageRequest, require
from vgau_data.runners.backends.local_model import model_fingerprint

DTYPES = ("auto", "float32", "bfloat16", "float16")
CALL_OPTIONS = ("num_inference_steps", "guidance_scale", "true_cfg_scale", "negative_prompt")


def pipeline_fingerprint(path: Path) -> str:
    """sha256 over ``model_index.json`` and each component folder (configs and weight samples)."""
    digest = hashlib.sha256(b"diffusers-pipeline-v1")
    digest.update((path / "model_index.json").read_bytes())
    for component in sorted(p for p in path.iterdir() if p.is_dir()):
        digest.update(component.name.encode())
        weights = [p for p in component.iterdir() if p.suffix in (".safetensors", ".bin")]
        if weights and (component / "config.json").is_file():
            digest.update(model_fingerprint(component).encode())
        else:  # tokenizers, schedulers: their small files are their identity
            for file in sorted(component.glob("*.json")) + sorted(component.glob("*.txt")):
                digest.update(file.name.encode())
                digest.update(file.read_bytes())
    return digest.hexdigest()


class DiffusersGenerator:
    """A diffusers pipeline folder as an image generator.

    Args:
        model: the pipeline folder (with ``model_index.json``).
        dtype: ``auto`` (float32 on CPU, bfloat16 on GPU), ``float32``, ``bfloat16``, ``float16``.
        device: ``auto`` (cuda if available), ``cpu``, ``cuda``, ``cuda:1`` ...
        num_inference_steps, guidance_scale, true_cfg_scale, negative_prompt: passed to the
            pipeline call when set (see the pipeline's documentation for its defaults).
    """

    name = "diffusers"

    def __init__(
        self,
        model: str,
        *,
        dtype: str = "auto",
        device: str = "auto",
        num_inference_steps: int | None = None,
        guidance_scale: float | None = None,
        true_cfg_scale: float | None = None,
        negative_prompt: str | None = None,
    ) -> None:
        path = Path(model).expanduser()
        if not (path / "model_index.json").is_file():
            raise BackendError(
                f"--model {model!r} is not a local diffusers pipeline folder with model_index.json "
                "(download once with: huggingface-cli download REPO --local-dir DIR)"
            )
        if dtype not in DTYPES:
            raise BackendError(f"dtype must be one of {DTYPES}, got {dtype!r}")
        self.torch = require("torch", "diffusers")
        self.diffusers = require("diffusers", "diffusers")
        if device == "auto":
            device = "cuda" if self.torch.cuda.is_available() else "cpu"
        if dtype == "auto":
            dtype = "float32" if device == "cpu" else "bfloat16"
        self.path, self.device, self.dtype = path, device, dtype
        self.pipeline = self.diffusers.DiffusionPipeline.from_pretrained(str(path), torch_dtype=getattr(self.torch, dtype))
        self.pipeline.to(device)
        self.pipeline.set_progress_bar_config(disable=True)
        accepted = inspect.signature(self.pipeline.__call__).parameters
        self.capabilities = frozenset({"image_edit" if "image" in accepted else "text_to_image"})
        options = {
            "num_inference_steps": num_inference_steps,
            "guidance_scale": guidance_scale,
            "true_cfg_scale": true_cfg_scale,
            "negative_prompt": negative_prompt,
        }
        ignored = sorted(key for key, value in options.items() if value is not None and key not in accepted)
        if ignored:
            raise BackendError(f"{type(self.pipeline).__name__} takes no {', '.join(ignored)}")
        self.call_options = {key: value for key, value in options.items() if value is not None}
        self._fingerprint = pipeline_fingerprint(path)

    def generate(self, requests: Sequence[ImageRequest], gen: GenParams) -> list[GeneratedImage]:
        """One pipeline call per request; a failed call is that request's ``error``."""
        results = []
        for request in requests:
            start = time.perf_counter()
            kwargs: dict[str, Any] = {"prompt": request.instruction, "output_type": "pil", **self.call_options}
            if "image_edit" in self.capabilities:
                if not request.images:
                    results.append(GeneratedImage(error="an edit pipeline needs the board as input image"))
                    continue
                kwargs["image"] = request.images[0].convert("RGB")
            kwargs["generator"] = self.torch.Generator(device=self.device).manual_seed(
                (request.seed if gen.seed is None else gen.seed) + request.step
            )
            try:
                image = self.pipeline(**kwargs).images[0]
            except (RuntimeError, ValueError, TypeError) as error:  # OOM and bad sizes are RuntimeError/ValueError
                results.append(GeneratedImage(error=f"{type(error).__name__}: {error}", latency_s=time.perf_counter() - start))
                continue
            results.append(GeneratedImage(image=image.convert("RGB"), latency_s=time.perf_counter() - start))
        return results

    def fingerprint(self) -> str:
        return self._fingerprint

    def describe(self) -> dict[str, Any]:
        index = json.loads((self.path / "model_index.json").read_text(encoding="utf-8"))
        return {
            "backend": self.name,
            "model": str(self.path),
            "pipeline": index.get("_class_name"),
            "capabilities": sorted(self.capabilities),
            "dtype": self.dtype,
            "device": self.device,
            "call_options": self.call_options,
            "torch": self.torch.__version__,
            "diffusers": self.diffusers.__version__,
        }
