"""Unified models that live in their own repositories: import them from the user's checkout.

BAGEL, OmniGen2, Show-o2, LLaDA2.0-Uni, LongCat-Next, MammothModa2 and STAR ship no package; their inference code is a git checkout the user
clones, next to a checkpoint folder they download. The adapters import that code from
the checkout (``repo=...``) only when they are built, never download anything, and say
which file is missing when a path is wrong.
"""

from __future__ import annotations

import hashlib
import importlib
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any

from vgau_data.runners.backends.base import BackendError, Completion, GeneratedImage, GenParams, ImageRequest, require
from vgau_data.runners.backends.local_model import hash_samples
from vgau_data.runners.messages import ImagePart, Message, TextPart, to_hf

if TYPE_CHECKING:
    from PIL import Image

    from vgau_data.runners.messages import Conversation


DTYPES = ("bfloat16", "float16", "float32")
"""The weight types a checkout adapter takes."""


def torch_on(device: str, dtype: str) -> tuple[Any, str]:
    """torch and the device to use (``auto``: cuda when there is one), after checking ``dtype``."""
    if dtype not in DTYPES:
        raise BackendError(f"dtype must be one of {DTYPES}, got {dtype!r}")
    torch = require("torch", "hf")
    return torch, (("cuda" if torch.cuda.is_available() else "cpu") if device == "auto" else device)


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


def flatten(messages: Sequence[Message]) -> tuple[str, list[Image.Image]]:
    """A conversation's texts joined by blank lines, and its images in order."""
    from PIL import Image

    items = interleaved(messages)
    text = "\n\n".join(item for item in items if isinstance(item, str))
    return text, [item for item in items if isinstance(item, Image.Image)]


def request_context(request: ImageRequest) -> tuple[str, list[Image.Image]]:
    """What a drawing request says and shows: the conversation's texts then the instruction, and its images.

    Without a conversation, the instruction and the request's own images (the board first).
    """
    if request.conversation is None:
        return request.instruction, list(request.images)
    history, images = flatten(request.conversation.messages)
    return (f"{history}\n\n{request.instruction}" if history else request.instruction), images


def request_seed(request: ImageRequest, gen: GenParams) -> int:
    """The seed one drawing uses: the run's (or the request's) plus its round, so each step draws anew."""
    return (request.seed if gen.seed is None else gen.seed) + request.step


def qwen_vl_answer(processor: Any, generate: Any, conversation: Conversation, gen: GenParams, device: Any,
                   **processor_options: Any) -> Completion:  # fmt: skip
    """Answer with a Qwen2.5-VL processor and a ``generate`` (STAR's and MammothModa2's understanding halves).

    The conversation goes through the processor's chat template with all its images, as
    those models' understanding scripts do for one; greedy unless ``gen`` samples.
    """
    start = time.perf_counter()
    messages = to_hf(conversation.messages)
    text = processor.apply_chat_template(messages, tokenize=False, add_generation_prompt=True)
    images = conversation.images
    inputs = processor(text=[text], images=images or None, padding=True, return_tensors="pt", **processor_options)
    inputs = inputs.to(device)
    options: dict[str, Any] = {"max_new_tokens": gen.max_new_tokens, "do_sample": not gen.greedy}
    if not gen.greedy:
        options.update(temperature=gen.temperature, top_p=gen.top_p)
    output = generate(**inputs, **options)
    new = [row[len(prompt) :] for prompt, row in zip(inputs["input_ids"], output)]
    answer = processor.batch_decode(new, skip_special_tokens=True, clean_up_tokenization_spaces=False)[0]
    return Completion(text=answer, prompt_tokens=len(inputs["input_ids"][0]), completion_tokens=len(new[0]),
                      latency_s=time.perf_counter() - start)  # fmt: skip


def save_png(image: Image.Image, folder: Path, name: str) -> Path:
    """``image`` as ``folder/name.png`` (for checkout code that reads images from paths)."""
    path = folder / f"{name}.png"
    image.convert("RGB").save(path, format="PNG")
    return path


def files_fingerprint(tag: str, files: Sequence[Path]) -> str:
    """sha256 over ``files`` (names, sizes, first and last MiB), salted by the backend's ``tag``."""
    digest = hashlib.sha256(tag.encode())
    hash_samples(digest, sorted(files))
    return digest.hexdigest()


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
