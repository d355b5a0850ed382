"""What a chat backend is: one batched call, ``chat(conversations, gen) -> completions``.

Backends are stateless with respect to episodes: the driver re-sends each whole
conversation every turn, so a backend can be swapped without touching protocol logic.
A request that finally fails is returned as a ``Completion`` with ``error`` set (it is
recorded and retried on the next run, never scored as a wrong answer); programmer and
setup errors raise ``BackendError``.
"""

from __future__ import annotations

import importlib
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from vgau_data.errors import MissingDependencyError, VgauError

if TYPE_CHECKING:
    from vgau_data.runners.messages import Conversation

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
        if self.temperature < 0:
            raise ValueError(f"temperature must be >= 0, got {self.temperature}")
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

    ``name`` is the table key (``hf``, ``vllm``, ``openai``, ``scripted``).
    ``fingerprint()`` identifies the model (weights/config, served name and URL, or the
    scripted policy) so records of different models never mix. ``describe()`` returns
    the JSON-able settings and library versions written into record headers.
    """

    name: str

    def chat(self, conversations: Sequence[Conversation], gen: GenParams) -> list[Completion]: ...

    def fingerprint(self) -> str: ...

    def describe(self) -> dict[str, Any]: ...


def require(module: str, extra: str) -> Any:
    """Import an optional dependency or raise an error that says how to install it."""
    try:
        return importlib.import_module(module)
    except ImportError as error:
        raise MissingDependencyError(
            f"{module} is missing ({error}); install it with: pip install 'vgau-data[{extra}]'"
        ) from error
