"""A backend whose answers come from a Python function: tests, oracle and random baselines.

``fn(conversation) -> str | Completion`` is called once per conversation, in order.
Returning a ``Completion`` lets a script simulate failures (``error=...``). From the CLI,
``--backend scripted --model oracle`` names one of the policies of ``policies.py``
instead, played over the run's instances.

Example:
    >>> from vgau_data.runners.messages import Conversation, user
    >>> backend = ScriptedBackend(lambda conv: "up", policy="always-up")
    >>> backend.chat([Conversation((user("go"),))], GenParams())[0].text
    'up'
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from vgau_data.runners.backends.base import BackendError, Completion, GenParams

if TYPE_CHECKING:
    from vgau_data.runners.instances import Instance
    from vgau_data.runners.messages import Conversation

ScriptFn = Callable[["Conversation"], "str | Completion"]


class ScriptedBackend:
    """Answers from ``fn``, or from the policy named ``model`` over ``instances``.

    ``policy`` names the script and is its model fingerprint (default: ``model``, or the
    function's name).
    """

    name = "scripted"
    default_batch_size = 64

    def __init__(
        self,
        fn: ScriptFn | None = None,
        *,
        policy: str | None = None,
        model: str | None = None,
        instances: Sequence[Instance] = (),
    ) -> None:
        if fn is None and model is not None:
            from vgau_data.runners.policies import make_policy

            try:
                fn = make_policy(model, instances)
            except ValueError as error:
                raise BackendError(str(error)) from None
            policy = policy or model
        if not callable(fn):
            raise BackendError(f"ScriptedBackend needs a callable or a policy name, got {type(fn).__name__}")
        self.fn = fn
        self.policy = policy or getattr(fn, "__qualname__", type(fn).__name__)
        self.calls = 0
        """Number of ``chat`` calls so far (tests check lock-step batching with it)."""

    def chat(self, conversations: Sequence[Conversation], gen: GenParams) -> list[Completion]:
        self.calls += 1
        completions = []
        for conversation in conversations:
            start = time.perf_counter()
            answer = self.fn(conversation)
            if isinstance(answer, Completion):
                completions.append(answer)
            elif isinstance(answer, str):
                completions.append(Completion(text=answer, latency_s=time.perf_counter() - start, finish_reason="stop"))
            else:
                raise BackendError(
                    f"script {self.policy!r} returned {type(answer).__name__}; it must return str or Completion"
                )
        return completions

    def fingerprint(self) -> str:
        return hashlib.sha256(f"scripted:{self.policy}".encode()).hexdigest()

    def describe(self) -> dict[str, Any]:
        return {"backend": self.name, "model": self.policy}
