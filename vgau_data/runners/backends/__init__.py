"""The table of backends, each named by a lazy ``"module:Class"`` string.

Importing this package imports no model library; ``load_backend`` imports the module of
the one backend asked for (so torch/transformers load only for ``hf``, vllm only for
``vllm``). Chat backends answer; image generators (``capabilities`` with ``image_edit``
or ``text_to_image``) draw; unified models and ``pair`` do both.

Example:
    >>> sorted(BACKENDS)[:6]
    ['bagel', 'diffusers', 'hf', 'janus', 'omnigen2', 'openai']
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from types import MappingProxyType
from typing import Any

from vgau_data.runners.backends.base import (
    BackendError,
    ChatBackend,
    Completion,
    GeneratedImage,
    GenParams,
    ImageGenerator,
    ImageRequest,
    capabilities_of,
)

BACKENDS: Mapping[str, str] = MappingProxyType(
    {
        "hf": "vgau_data.runners.backends.hf:HFBackend",
        "vllm": "vgau_data.runners.backends.vllm:VLLMBackend",
        "openai": "vgau_data.runners.backends.openai_compat:OpenAIBackend",
        "scripted": "vgau_data.runners.backends.scripted:ScriptedBackend",
        "scripted-image": "vgau_data.runners.backends.scripted_images:ScriptedImageGenerator",
        "pair": "vgau_data.runners.backends.decoupled:DecoupledPair",
        "janus": "vgau_data.runners.backends.janus:JanusBackend",
        "diffusers": "vgau_data.runners.backends.diffusers_edit:DiffusersGenerator",
        "openai-image": "vgau_data.runners.backends.openai_images:OpenAIImageGenerator",
        "bagel": "vgau_data.runners.backends.bagel:BagelBackend",
        "omnigen2": "vgau_data.runners.backends.omnigen2:OmniGen2Backend",
    }
)

__all__ = [
    "BACKENDS",
    "BackendError",
    "ChatBackend",
    "Completion",
    "GenParams",
    "GeneratedImage",
    "ImageGenerator",
    "ImageRequest",
    "backend_class",
    "capabilities_of",
    "load_backend",
]


def backend_class(name: str) -> type:
    """The class registered as ``name`` (imports its module now)."""
    try:
        target = BACKENDS[name]
    except KeyError:
        raise BackendError(f"unknown backend {name!r}; choose from {', '.join(BACKENDS)}") from None
    module_name, _, class_name = target.partition(":")
    return getattr(importlib.import_module(module_name), class_name)


def load_backend(name: str, **options: Any) -> ChatBackend:
    """Build backend ``name`` with its keyword ``options`` (see each class for them)."""
    return backend_class(name)(**options)
