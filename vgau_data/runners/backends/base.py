"""What a backend is: batched calls, ``chat(conversations, gen)`` and ``generate(requests, gen)``.

A backend declares its ``capabilities``, a subset of ``CAPABILITIES``: ``chat`` (answer
a conversation in text), ``image_edit`` (return an edited input image) and
``text_to_image`` (draw from text alone). A unified model has chat and an image
capability in one object and generates inside the same conversation it answers in.

Backends are stateless with respect to episodes: the driver re-sends each whole
conversation every turn, so a backend can be swapped without touching protocol logic.
A request that finally fails is returned as a ``Completion`` (or ``GeneratedImage``)
with ``error`` set (it is recorded and retried on the next run, never scored as a wrong
answer); programmer and setup errors raise ``BackendError``.
"""

from __future__ import annotations

import importlib
import math
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any, Final, Literal, Protocol, runtime_checkable

from vgau_data.errors import MissingDependencyError, VgauError

if TYPE_CHECKING:
    from PIL import Image

    from vgau_data.oracle_aids import Purpose
    from vgau_data.runners.messages import Conversation

Capability = Literal["chat", "image_edit", "text_to_image"]
CAPABILITIES: Final[frozenset[str]] = frozenset({"chat", "image_edit", "text_to_image"})
IMAGE_CAPABILITIES: Final[frozenset[str]] = frozenset({"image_edit", "text_to_image"})

DEFAULT_MAX_NEW_TOKENS = 8192
"""The paper's generation budget."""


class BackendError(VgauError, RuntimeError):
    """A backend that cannot be built or called (bad path, missing extra, wrong arguments)."""


@dataclass(frozen=True, kw_only=True, slots=True)
class GenParams:
    """Generation settings, part of every record key.

    Greedy decoding by default (``do_sample=False`` / ``temperature=0``); ``seed`` is the
    per-run seed used when sampling and passed to servers that accept one.
    """

    max_new_tokens: int = DEFAULT_MAX_NEW_TOKENS
    greedy: bool = True
    temperature: float = 1.0
    top_p: float = 1.0
    seed: int | None = None

    def __post_init__(self) -> None:
        if self.max_new_tokens < 1:
            raise ValueError(f"max_new_tokens must be >= 1, got {self.max_new_tokens}")
        if not (math.isfinite(self.temperature) and self.temperature >= 0):  # NaN passes a plain `< 0` test
            raise ValueError(f"temperature must be a finite number >= 0, got {self.temperature}")
        if not 0 < self.top_p <= 1:
            raise ValueError(f"top_p must be in (0, 1], got {self.top_p}")

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True, kw_only=True, slots=True)
class Completion:
    """One model answer, or the error that prevented it.

    ``latency_s`` is the wall time of the call that produced it (for a batched local
    backend, the whole batch's time). Token counts are None when the backend cannot tell.
    """

    text: str = ""
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    latency_s: float = 0.0
    finish_reason: str | None = None
    error: str | None = None

    @property
    def ok(self) -> bool:
        return self.error is None

    def usage(self) -> dict[str, int | None]:
        return {"prompt_tokens": self.prompt_tokens, "completion_tokens": self.completion_tokens}


@runtime_checkable
class ChatBackend(Protocol):
    """The interface every backend implements.

    ``name`` is the table key (``hf``, ``vllm``, ``openai``, ``scripted``). A class may
    set ``default_batch_size`` (episodes per call when the user gives none); its keyword
    arguments are the options ``--backend-arg KEY=VALUE`` sets, ``model`` always among them.
    ``fingerprint()`` identifies the model (weights/config, served name and URL, or the
    scripted policy) so records of different models never mix. ``describe()`` returns
    the JSON-able settings and library versions written into record headers.
    """

    name: str

    def chat(self, conversations: Sequence[Conversation], gen: GenParams) -> list[Completion]: ...

    def fingerprint(self) -> str: ...

    def describe(self) -> dict[str, Any]: ...


@dataclass(frozen=True, kw_only=True, slots=True)
class ImageRequest:
    """One image to generate, with the context a generator may use and the truth a scripted one needs.

    Attributes:
        session_id: ``<instance id>/<variant>/run<k>``, as in the records.
        purpose: ``"aid"`` (GtA), ``"next_state"`` (VCoT) or ``"vr"`` (visual reasoning).
        instruction: the edit prompt for this image.
        images: input images, the board to edit first.
        conversation: the whole conversation so far, for unified models that generate
            inside it (None when the image stage sees only the instruction).
        family / difficulty: the instance's family and bucket.
        oracle_state: the true state the image should show: the state after the model's
            step for ``next_state``, the initial state for ``aid`` and ``vr``.
        step: the round: the number of steps taken for ``next_state`` (1 after the first
            step), 0 for ``aid`` and ``vr``.
        seed: the run's seed (the driver stamps it from the run's ``GenParams``).
    """

    session_id: str
    purpose: Purpose
    instruction: str
    images: tuple[Image.Image, ...] = ()
    conversation: Conversation | None = None
    family: str = ""
    difficulty: str = ""
    oracle_state: Any = None
    step: int = 0
    seed: int = 0

    @property
    def instance_id(self) -> str:
        """The dataset row id, the first part of ``session_id``."""
        return self.session_id.split("/", 1)[0]


@dataclass(frozen=True, kw_only=True, slots=True)
class GeneratedImage:
    """One generated image (RGB), or the error that prevented it.

    ``text`` is anything the generator said besides the image; ``meta`` JSON-able details
    (sizes, seeds, the substituted instance).
    """

    image: Image.Image | None = None
    error: str | None = None
    latency_s: float = 0.0
    text: str = ""
    meta: dict[str, Any] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return self.error is None and self.image is not None


@runtime_checkable
class ImageGenerator(Protocol):
    """A backend that makes images: batched like ``chat``, failures as values.

    ``capabilities`` holds ``image_edit`` and/or ``text_to_image`` (and ``chat`` for a
    unified model that also implements ``ChatBackend``).
    """

    name: str
    capabilities: frozenset[str]

    def generate(self, requests: Sequence[ImageRequest], gen: GenParams) -> list[GeneratedImage]: ...

    def fingerprint(self) -> str: ...

    def describe(self) -> dict[str, Any]: ...


ImageSourceKind = Literal["self", "external", "oracle", "noise", "mismatch", "perturbed"]


@dataclass(frozen=True, slots=True)
class ImageSource:
    """Who makes a backend's images, for records and the paper's diagnostics (Table 3).

    ``source`` is ``self`` (a unified model drawing for itself), ``external`` (a pair's
    generator drawing for another model), or a scripted generator's kind: ``oracle``,
    ``noise``, ``mismatch``, ``perturbed-K``. ``generator`` names the model that draws.
    """

    source: str
    generator: str


def image_source(backend: object) -> ImageSource:
    """The backend's declared ``image_source``, else ``self`` named after its backend and model."""
    declared = getattr(backend, "image_source", None)
    if isinstance(declared, ImageSource):
        return declared
    model = str(describe_model(backend))
    return ImageSource("self", f"{getattr(backend, 'name', type(backend).__name__)}:{model}")


def describe_model(backend: object) -> str:
    """The last path component of the model a backend describes ('' when it names none)."""
    describe = getattr(backend, "describe", None)
    model = describe().get("model") if callable(describe) else None
    return str(model).rstrip("/").rsplit("/", 1)[-1] if model else ""


def image_limit(backend: object) -> int | None:
    """How many images one request of ``backend`` may hold (``max_images``; None: no limit).

    Models that read one image only (Show-o2, LLaDA2.0-Uni in the paper's A.4) declare 1, and
    conversations sent to them keep only the last image.
    """
    limit = getattr(backend, "max_images", None)
    return int(limit) if limit is not None else None


def family_needs(backend: object, purpose: str) -> tuple[str, ...]:
    """The ``FamilySpec`` capabilities ``backend`` needs to draw for ``purpose`` (its ``family_needs``; none).

    A scripted generator that draws from the truth needs what it draws from (``vr`` for a
    solution drawing, ``fidelity.perturb`` to change cells), so ``run`` refuses a family
    without it before any call rather than failing every image.
    """
    declared = getattr(backend, "family_needs", None)
    return tuple(declared(purpose)) if callable(declared) else ()


def capabilities_of(backend: object) -> frozenset[str]:
    """What ``backend`` can do: its declared ``capabilities``, else ``chat`` for a chat backend."""
    declared = getattr(backend, "capabilities", None)
    if declared is not None:
        return frozenset(declared)
    return frozenset({"chat"}) if callable(getattr(backend, "chat", None)) else frozenset()


def check_capabilities(capabilities: frozenset[str]) -> frozenset[str]:
    """Validate a declared capability set (a typo would silently disable a protocol)."""
    unknown = set(capabilities) - CAPABILITIES
    if unknown or not capabilities:
        raise BackendError(f"capabilities must be a non-empty subset of {sorted(CAPABILITIES)}, got {sorted(capabilities)}")
    return frozenset(capabilities)


def require(module: str, extra: str) -> Any:
    """Import an optional dependency or raise an error that says how to install it."""
    try:
        return importlib.import_module(module)
    except ImportError as error:
        raise MissingDependencyError(
            f"{module} is missing ({error}); install it with: pip install 'vgau-data[{extra}]'"
        ) from error
