"""The table of backends, each named by a lazy ``"module:Class"`` string.

Importing this package imports no model library; ``load_backend`` imports the module of
the one backend asked for (so torch/transformers load only for ``hf``, vllm only for
``vllm``). Chat backends answer; image generators (``capabilities`` with ``image_edit``
or ``text_to_image``) draw; unified models and ``pair`` do both. A backend class carries
its own defaults: ``default_batch_size`` (episodes advanced per call when ``--batch-size``
is not given) and its keyword arguments, which ``vgau-data run --backend-arg KEY=VALUE``
sets. Adding a backend is one line in ``BACKENDS``; the CLI reads everything else from
the class.

Example:
    >>> sorted(BACKENDS)[:6]
    ['bagel', 'diffusers', 'hf', 'janus', 'llada2-uni', 'longcat-next']
    >>> parse_backend_arg("gpu-memory-utilization=0.8")
    ('gpu_memory_utilization', 0.8)
"""

from __future__ import annotations

import importlib
import inspect
import json
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
        "showo2": "vgau_data.runners.backends.showo2:Showo2Backend",
        "llada2-uni": "vgau_data.runners.backends.llada2_uni:LLaDA2UniBackend",
        "longcat-next": "vgau_data.runners.backends.longcat_next:LongcatNextBackend",
        "mammothmoda2": "vgau_data.runners.backends.mammothmoda2:Mammothmoda2Backend",
        "star": "vgau_data.runners.backends.star:StarBackend",
    }
)

DEFAULT_BATCH_SIZE = 16
"""Episodes per call for a backend class that declares no ``default_batch_size``."""

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
    "backend_options",
    "capabilities_of",
    "default_batch_size",
    "load_backend",
    "parse_backend_arg",
]


def backend_class(name: str) -> type:
    """The class registered as ``name`` (imports its module now)."""
    try:
        target = BACKENDS[name]
    except KeyError:
        raise BackendError(f"unknown backend {name!r}; choose from {', '.join(BACKENDS)}") from None
    module_name, _, class_name = target.partition(":")
    return getattr(importlib.import_module(module_name), class_name)


def backend_options(cls: type) -> dict[str, inspect.Parameter] | None:
    """The keyword arguments ``cls`` takes, by name, following ``**options`` into base classes.

    None when the last constructor still takes any keyword (nothing to check against).
    """
    accepted: dict[str, inspect.Parameter] = {}
    for klass in cls.__mro__:
        if "__init__" not in vars(klass):
            continue
        parameters = list(inspect.signature(klass.__init__).parameters.values())[1:]  # without self
        accepted.update(
            (p.name, p) for p in parameters if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY) and p.name not in accepted
        )
        if not any(p.kind == p.VAR_KEYWORD for p in parameters):
            return accepted
    return None


def default_batch_size(cls: type) -> int:
    return int(getattr(cls, "default_batch_size", DEFAULT_BATCH_SIZE))


def load_backend(name: str, **options: Any) -> ChatBackend:
    """Build backend ``name`` with its keyword ``options`` (see each class for them).

    Raises:
        BackendError: an option the backend does not take (the message lists those it does).
    """
    cls = backend_class(name)
    accepted = backend_options(cls)
    unknown = [] if accepted is None else sorted(set(options) - set(accepted))
    if unknown:
        raise BackendError(
            f"the {name} backend does not take {', '.join(unknown)}; it takes {', '.join(sorted(accepted))}"
        )
    return cls(**options)


_LITERALS: Mapping[str, Any] = {"true": True, "false": False, "none": None, "null": None}


def parse_backend_arg(text: str, flag: str = "--backend-arg") -> tuple[str, Any]:
    """``KEY=VALUE`` -> ``(key, value)``; dashes in the key become underscores.

    The value is read without ``eval``: ``true``/``false``/``none`` (any case), an integer,
    a float, a JSON list or object (``[...]``, ``{...}``), else the string itself.

    Example:
        >>> parse_backend_arg("engine_options={\\"seed\\": 1}"), parse_backend_arg("dtype=bfloat16")
        (('engine_options', {'seed': 1}), ('dtype', 'bfloat16'))
    """
    key, separator, raw = text.partition("=")
    key = key.strip().replace("-", "_")
    if not separator or not key.isidentifier():
        raise BackendError(f"{flag} takes KEY=VALUE with KEY a name, got {text!r:.80}")
    raw = raw.strip()
    if raw.lower() in _LITERALS:
        return key, _LITERALS[raw.lower()]
    for number in (int, float):
        try:
            return key, number(raw)
        except ValueError:
            pass
    if raw.startswith(("[", "{")):
        try:
            return key, json.loads(raw)
        except ValueError as error:
            raise BackendError(f"{flag} {key}: the value is not valid JSON ({error})") from None
    return key, raw
