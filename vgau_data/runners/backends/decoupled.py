"""A decoupled pair as one model: any image generator draws, any chat backend answers.

The paper's Table 3 pairs Qwen-Image-Edit (generator) with Qwen3.5 (answerer); here
either side is any registered backend, e.g. ``diffusers`` + ``hf`` or ``openai-image`` +
``openai``. The pair's fingerprint covers both models, so records of two pairings never
mix.

Example:
    >>> from vgau_data.runners.backends.scripted import ScriptedBackend
    >>> from vgau_data.runners.backends.scripted_images import ScriptedImageGenerator
    >>> pair = DecoupledPair(generator=ScriptedImageGenerator("oracle"), answerer=ScriptedBackend(lambda c: "up"))
    >>> sorted(pair.capabilities)
    ['chat', 'image_edit']
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from vgau_data.runners.backends.base import (
    IMAGE_CAPABILITIES,
    BackendError,
    ChatBackend,
    Completion,
    GeneratedImage,
    GenParams,
    ImageGenerator,
    ImageRequest,
    capabilities_of,
)

if TYPE_CHECKING:
    from vgau_data.runners.messages import Conversation


class DecoupledPair:
    """``chat`` goes to the answerer, ``generate`` to the generator.

    Args:
        model: the answerer's model when ``answerer`` is a backend name (the CLI's ``--model``).
        generator: an image generator, or the name of one in the backend table.
        answerer: a chat backend, or the name of one.
        generator_model: the generator's model when ``generator`` is a name.
        generator_options / answerer_options: further keyword options for each side.
    """

    name = "pair"

    def __init__(
        self,
        model: str | None = None,
        *,
        generator: str | ImageGenerator,
        answerer: str | ChatBackend = "hf",
        generator_model: str | None = None,
        generator_options: Mapping[str, Any] | None = None,
        answerer_options: Mapping[str, Any] | None = None,
    ) -> None:
        from vgau_data.runners.backends import load_backend

        if isinstance(generator, str):
            generator = load_backend(generator, **_with_model(generator_model, generator_options))
        if isinstance(answerer, str):
            answerer = load_backend(answerer, **_with_model(model, answerer_options))
        if not capabilities_of(generator) & IMAGE_CAPABILITIES:
            raise BackendError(f"the pair's generator {generator.name!r} makes no images")
        if "chat" not in capabilities_of(answerer):
            raise BackendError(f"the pair's answerer {answerer.name!r} cannot chat")
        self.generator: ImageGenerator = generator  # type: ignore[assignment]
        self.answerer: ChatBackend = answerer  # type: ignore[assignment]
        self.capabilities = frozenset({"chat"}) | (capabilities_of(generator) & IMAGE_CAPABILITIES)

    def chat(self, conversations: Sequence[Conversation], gen: GenParams) -> list[Completion]:
        return self.answerer.chat(conversations, gen)

    def generate(self, requests: Sequence[ImageRequest], gen: GenParams) -> list[GeneratedImage]:
        return self.generator.generate(requests, gen)

    def fingerprint(self) -> str:
        both = f"pair:{self.generator.fingerprint()}:{self.answerer.fingerprint()}"
        return hashlib.sha256(both.encode()).hexdigest()

    def describe(self) -> dict[str, Any]:
        return {
            "backend": self.name,
            "capabilities": sorted(self.capabilities),
            "generator": self.generator.describe(),
            "answerer": self.answerer.describe(),
        }


def _with_model(model: str | None, options: Mapping[str, Any] | None) -> dict[str, Any]:
    """A side's keyword options, with its ``model`` when one was given."""
    merged = dict(options or {})
    if model is not None:
        merged["model"] = model
    return merged
