"""Unified models that live in their own repositories: import them from the user's checkout.

BAGEL, OmniGen2 and Show-o2 ship no package; their inference code is a git checkout the user
clones, next to a checkpoint folder they download. The adapters import that code from
the checkout (``repo=...``) only when they are built, never download anything, and say
which file is missing when a path is wrong.
"""

from __future__ import annotations

import importlib
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any

from vgau_data.runners.backends.base import BackendError, GeneratedImage
from vgau_data.runners.messages import ImagePart, Message, TextPart

if TYPE_CHECKING:
    from PIL import Image


def require_paths(base: str | Path, names: Sequence[str], what: str, hint: str) -> Path:
    """``base`` as a folder holding every one of ``names``, or an error naming the missing ones."""
    folder = Path(base).expanduser()
    missing = [name for name in names if not (folder / name).exists()]
    if missing:
        raise BackendError(f"{folder} is not {what}: missing {', '.join(missing)} ({hint})")
    return folder


def import_from_checkout(repo: Path, *modules: str) -> list[ModuleType]:
    """Import ``modules`` with ``repo`` first on ``sys.path`` (it stays there: their modules import each other).

    Their names are generic (``models``, ``utils``, ``data``): one already imported from
    elsewhere would be used silently, so a module that is not the checkout's is an error.
    """
    root = str(repo)
    if root not in sys.path:
        sys.path.insert(0, root)
    try:
        imported = [importlib.import_module(name) for name in modules]
    except ImportError as error:
        raise BackendError(f"importing {error.name or error} from the checkout {repo} failed: {error}; "
                           "install that project's requirements in this environment") from error
    for module in imported:
        file = getattr(module, "__file__", None)
        origins = [Path(file)] if file else [Path(path) for path in getattr(module, "__path__", [])]  # a namespace
        if not any(origin.resolve().is_relative_to(repo.resolve()) for origin in origins):
            raise BackendError(
                f"the module {module.__name__!r} is already imported from {file or origins}, not from the checkout "
                f"{repo}; run in a process that has not imported another {module.__name__!r}"
            )
    return imported


def interleaved(messages: Sequence[Message]) -> list[str | Image.Image]:
    """A conversation as one interleaved list of texts and images, in order (roles dropped)."""
    items: list[str | Image.Image] = []
    for message in messages:
        for part in message.parts:
            if isinstance(part, TextPart) and part.text:
                items.append(part.text)
            elif isinstance(part, ImagePart):
                items.append(part.image)
    return items


def returned_image(image: object, model: str, start: float, text: str = "") -> GeneratedImage:
    """What a checkout model's generation call gave back, as a ``GeneratedImage`` (an error when no image)."""
    from PIL import Image

    latency = time.perf_counter() - start
    if not isinstance(image, Image.Image):
        return GeneratedImage(error=f"{model} returned no image", text=text, latency_s=latency)
    return GeneratedImage(image=image.convert("RGB"), text=text, latency_s=latency)


def describe_checkout(backend: Any, **settings: Any) -> dict[str, Any]:
    """A checkout adapter's ``describe()``: what it is, where its code and weights are, ``settings``, torch."""
    return {
        "backend": backend.name,
        "model": str(backend.checkpoint),
        "repo": str(backend.repo),
        "capabilities": sorted(backend.capabilities),
        **settings,
        "torch": backend.torch.__version__,
    }
