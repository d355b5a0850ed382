"""A decoupled pair as one model: any image generator draws, any chat backend answers.

The paper's Table 3 pairs Qwen-Image-Edit (generator) with Qwen3.5 (answerer); here
either side is any registered backend, e.g. ``diffusers`` + ``hf`` or ``openai-image`` +
``openai``. The pair's fingerprint covers both models, so records of two pairings never
mix, and it is named ``<answerer>+<generator>`` in folders and submissions. Its images are
``external`` (or, with a scripted generator, that script's kind: the paper's noise and
mismatch controls are pairs with ``generator="scripted-image"``).

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
    ImageSource,
    capabilities_of,
    describe_model,
    family_needs,
    image_limit,
    image_source,
)

if TYPE_CHECKING:
    from vgau_data.runners.instances import Instance
    from vgau_data.runners.messages import Conversation


class DecoupledPair:
    """``chat`` goes to the answerer, ``generate`` to the generator.

    Args:
        model: the answerer's model when ``answerer`` is a backend name (the CLI's ``--model``).
        generator: an image generator, or the name of one in the backend table.
        answerer: a chat backend, or the name of one.
        generator_model: the generator's model when ``generator`` is a name.
        generator_options / answerer_options: further keyword options for each side.
        instances: the run's instances, passed to each side named here that takes them
            (the mismatch generator, scripted answerers).
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
        instances: Sequence[Instance] = (),
    ) -> None:
        if isinstance(generator, str):
            options = dict(generator_options or {})
            if _takes(generator, "answerer"):
                options.setdefault("answerer", None)  # a generator that could answer too only draws here
            generator = _load_side(generator, generator_model, options, instances)
        if isinstance(answerer, str):
            answerer = _load_side(answerer, model, answerer_options, instances)
        if not capabilities_of(generator) & IMAGE_CAPABILITIES:
            raise BackendError(f"the pair's generator {generator.name!r} makes no images")
        if "chat" not in capabilities_of(answerer):
            raise BackendError(f"the pair's answerer {answerer.name!r} cannot chat")
        self.generator: ImageGenerator = generator  # type: ignore[assignment]
        self.answerer: ChatBackend = answerer  # type: ignore[assignment]
        self.capabilities = frozenset({"chat"}) | (capabilities_of(generator) & IMAGE_CAPABILITIES)
        drawn_by = image_source(generator)
        self.image_source = ImageSource("external", drawn_by.generator) if drawn_by.source == "self" else drawn_by
        self.max_images = image_limit(answerer)
        names = [
            getattr(side, "display_name", None) or describe_model(side) or side.name for side in (answerer, generator)
        ]
        self.display_name = "+".join(names)
        """``<answerer>+<generator>``: the pair's name in folders and submissions."""

    def chat(self, conversations: Sequence[Conversation], gen: GenParams) -> list[Completion]:
        return self.answerer.chat(conversations, gen)

    def generate(self, requests: Sequence[ImageRequest], gen: GenParams) -> list[GeneratedImage]:
        return self.generator.generate(requests, gen)

    def family_needs(self, purpose: str) -> tuple[str, ...]:
        return family_needs(self.generator, purpose)

    def fingerprint(self) -> str:
        both = f"pair:{self.generator.fingerprint()}:{self.answerer.fingerprint()}"
        return hashlib.sha256(both.encode()).hexdigest()

    def describe(self) -> dict[str, Any]:
        return {
            "backend": self.name,
            "capabilities": sorted(self.capabilities),
            "generator": self.generator.describe(),
            "answerer": self.answerer.describe(),
            # Reports join a pair's runs with the answerer's own (its oracle rows) and tell generators apart by these.
            "generator_fingerprint": self.generator.fingerprint(),
            "answerer_fingerprint": self.answerer.fingerprint(),
        }


def _takes(name: str, option: str) -> bool:
    from vgau_data.runners.backends import backend_class, backend_options

    return option in (backend_options(backend_class(name)) or {})


def _load_side(name: str, model: str | None, options: Mapping[str, Any] | None, instances: Sequence[Instance]) -> Any:
    """Backend ``name`` with its ``model`` when one was given, its options, and the instances if it takes them."""
    from vgau_data.runners.backends import load_backend

    merged = dict(options or {})
    if model is not None:
        merged["model"] = model
    if instances and _takes(name, "instances"):
        merged["instances"] = instances
    return load_backend(name, **merged)
