"""OpenAI-compatible chat completions over HTTP: ``vllm serve``, SGLang, hosted APIs.

Standard library only (``urllib``): no SDK to install, and the wire format is what every
compatible server speaks. Each conversation is one ``POST {base_url}/chat/completions``
with its images as PNG data URLs; a batch runs ``concurrency`` requests at a time.

Failures:
    - connection errors, timeouts, HTTP 408/409/429 and 5xx are retried with exponential
      backoff (``Retry-After`` is honoured); after ``max_retries`` the completion comes
      back with ``error`` set, so the run records it and a rerun retries it;
    - other HTTP 4xx (a prompt the server rejects) are not retried and are recorded;
    - 401/403 (bad key) and 404 (wrong URL or model) raise ``BackendError`` at once:
      every request would fail the same way.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING, Any

from vgau_data.runners.backends.base import BackendError, Completion, GenParams
from vgau_data.runners.messages import to_openai

if TYPE_CHECKING:
    from vgau_data.runners.messages import Conversation

logger = logging.getLogger(__name__)

RETRYABLE_STATUS: frozenset[int] = frozenset({408, 409, 429, 500, 502, 503, 504})
FATAL_STATUS: frozenset[int] = frozenset({401, 403, 404})
MAX_BACKOFF_S = 60.0


class OpenAIBackend:
    """Chat completions at ``base_url`` (e.g. ``http://127.0.0.1:8000/v1``) for ``model``.

    Args:
        model: the served model name (``vllm serve PATH --served-model-name NAME``).
        base_url: the API root, up to and including ``/v1``.
        api_key_env: environment variable holding the key; unset means no key is sent
            (local servers need none).
        concurrency: requests in flight at once.
        max_retries: retries after the first attempt for retryable failures.
        backoff_s: first retry delay; it doubles each retry (capped at 60 s).
        timeout_s: per-request socket timeout.
        max_tokens_field: ``max_tokens`` (vLLM, SGLang, most APIs) or
            ``max_completion_tokens`` (newer OpenAI models).
        sleep: injectable for tests.
    """

    name = "openai"

    def __init__(
        self,
        model: str,
        *,
        base_url: str = "http://127.0.0.1:8000/v1",
        api_key_env: str = "OPENAI_API_KEY",
        concurrency: int = 16,
        max_retries: int = 5,
        backoff_s: float = 1.0,
        timeout_s: float = 600.0,
        max_tokens_field: str = "max_tokens",
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        if not model:
            raise BackendError("the openai backend needs --model: the name the server serves the model under")
        if not base_url.startswith(("http://", "https://")):
            raise BackendError(f"--base-url must start with http:// or https://, got {base_url!r}")
        if concurrency < 1 or max_retries < 0:
            raise BackendError(f"need concurrency >= 1 and max_retries >= 0, got {concurrency} and {max_retries}")
        self.model = model
        self.base_url = base_url.rstrip("/")
        self.api_key_env = api_key_env
        self.concurrency = concurrency
        self.max_retries = max_retries
        self.backoff_s = backoff_s
        self.timeout_s = timeout_s
        self.max_tokens_field = max_tokens_field
        self.sleep = sleep

    # -- the interface --------------------------------------------------------------

    def chat(self, conversations: Sequence[Conversation], gen: GenParams) -> list[Completion]:
        if not conversations:
            return []
        workers = min(self.concurrency, len(conversations))
        with ThreadPoolExecutor(max_workers=workers, thread_name_prefix="vgau-openai") as pool:
            completions = list(pool.map(lambda conv: self._complete(conv, gen), conversations))
        return completions

    def fingerprint(self) -> str:
        return hashlib.sha256(f"openai:{self.base_url}:{self.model}".encode()).hexdigest()

    def describe(self) -> dict[str, Any]:
        return {
            "backend": self.name,
            "model": self.model,
            "base_url": self.base_url,
            "concurrency": self.concurrency,
            "max_retries": self.max_retries,
        }

    # -- one request ----------------------------------------------------------------

    def request_body(self, conversation: Conversation, gen: GenParams) -> dict[str, Any]:
        """The JSON body for one conversation (public so tests can pin it)."""
        body: dict[str, Any] = {
            "model": self.model,
            "messages": to_openai(conversation.messages),
            self.max_tokens_field: gen.max_new_tokens,
            "temperature": 0.0 if gen.greedy else gen.temperature,
            "top_p": 1.0 if gen.greedy else gen.top_p,
        }
        if gen.seed is not None:
            body["seed"] = gen.seed
        return body

    def _headers(self, conversation: Conversation) -> dict[str, str]:
        headers = {"Content-Type": "application/json", "Accept": "application/json"}
        key = os.environ.get(self.api_key_env, "")
        if key:
            headers["Authorization"] = f"Bearer {key}"
        if conversation.session_id:
            headers["X-Session-ID"] = conversation.session_id
        return headers

    def _complete(self, conversation: Conversation, gen: GenParams) -> Completion:
        data = json.dumps(self.request_body(conversation, gen)).encode("utf-8")
        url = f"{self.base_url}/chat/completions"
        start = time.perf_counter()
        last_error = "no attempt made"
        retry_after: float | None = None
        for attempt in range(self.max_retries + 1):
            if attempt:
                self.sleep(self._delay(attempt, retry_after))
            retry_after = None
            request = urllib.request.Request(url, data=data, headers=self._headers(conversation), method="POST")
            try:
                with urllib.request.urlopen(request, timeout=self.timeout_s) as response:
                    payload = json.loads(response.read().decode("utf-8"))
                return _completion_from(payload, time.perf_counter() - start)
            except urllib.error.HTTPError as error:
                detail = _error_detail(error)
                if error.code in FATAL_STATUS:
                    hint = (
                        f"is ${self.api_key_env} set?" if error.code in (401, 403) else "check --base-url and --model"
                    )
                    raise BackendError(
                        f"{url} answered HTTP {error.code} for model {self.model!r} ({detail}); {hint}"
                    ) from None
                last_error = f"HTTP {error.code}: {detail}"
                if error.code not in RETRYABLE_STATUS:
                    break
                retry_after = _retry_after(error)
            except (urllib.error.URLError, TimeoutError, ConnectionError, OSError) as error:
                last_error = f"{type(error).__name__}: {getattr(error, 'reason', error)}"
            except (json.JSONDecodeError, UnicodeDecodeError, KeyError, IndexError, TypeError) as error:
                last_error = f"malformed response: {error!r}"
            logger.info("request for %s failed (attempt %d): %s", conversation.session_id, attempt + 1, last_error)
        return Completion(error=last_error, latency_s=time.perf_counter() - start)

    def _delay(self, attempt: int, retry_after: float | None) -> float:
        if retry_after is not None:
            return min(retry_after, MAX_BACKOFF_S)
        return min(self.backoff_s * 2 ** (attempt - 1), MAX_BACKOFF_S)


def _completion_from(payload: dict[str, Any], latency_s: float) -> Completion:
    """Read ``choices[0].message.content`` and usage; a missing choice is malformed."""
    choice = payload["choices"][0]
    content = choice["message"].get("content")
    if isinstance(content, list):  # some servers return content parts
        content = "".join(part.get("text", "") for part in content if isinstance(part, dict))
    usage = payload.get("usage") or {}
    return Completion(
        text=content or "",
        prompt_tokens=usage.get("prompt_tokens"),
        completion_tokens=usage.get("completion_tokens"),
        latency_s=latency_s,
        finish_reason=choice.get("finish_reason"),
    )


def _error_detail(error: urllib.error.HTTPError) -> str:
    try:
        body = error.read().decode("utf-8", "replace")
    except OSError:
        return str(error.reason)
    return body[:300] or str(error.reason)


def _retry_after(error: urllib.error.HTTPError) -> float | None:
    value = error.headers.get("Retry-After") if error.headers else None
    try:
        return max(0.0, float(value)) if value is not None else None
    except ValueError:
        return None
