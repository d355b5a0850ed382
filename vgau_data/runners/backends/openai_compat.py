"""OpenAI-compatible chat completions over HTTP: ``vllm serve``, SGLang, hosted APIs.

HTTP through ``httpx`` (``post``), not the ``openai`` SDK: the SDK follows no bound on a
reply's size and keeps its own retry rules; the wire format is what every compatible server speaks. Each conversation is one ``POST {base_url}/chat/completions``
with its images as PNG data URLs; a batch runs ``concurrency`` requests at a time.

Failures:
    - connection errors, timeouts, HTTP 408/409/429 and 5xx, and replies of an
      unexpected shape are retried with exponential backoff (``Retry-After`` is
      honoured); after ``max_retries`` the completion comes back with ``error`` set, so
      the run records it and a rerun retries it;
    - other HTTP 4xx (a prompt the server rejects) and redirects are not retried and are
      recorded;
    - 401/403 (bad key) and 404 (wrong URL or model) raise ``BackendError`` at once:
      every request would fail the same way.

Bounds (``post``): redirects are never followed (the key is never sent
elsewhere), each request has a whole-request deadline of ``timeout_s`` and a reply
cap of ``max_reply_mb``. The key, a ``user:password@`` in ``base_url`` and anything
that looks like a credential are scrubbed from every error and output the backend
returns, and ``base_url`` is kept without its credentials, query string and fragment
(records, submissions and results only ever see that form; the query still goes onto
the wire, and its values are scrubbed like the key: ``urls``).
"""

from __future__ import annotations

import asyncio
import dataclasses
import hashlib
import json
import logging
import math
import os
import time
import urllib.parse
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING, Any, TypeVar

import httpx

from vgau_data.runners.backends.base import BackendError, Completion, GenParams
from vgau_data.runners.backends.credentials import basic_authorization, redact, scrub_secrets, split_credentials
from vgau_data.runners.backends.urls import query_secrets, split_query
from vgau_data.runners.messages import to_openai

if TYPE_CHECKING:
    from vgau_data.runners.messages import Conversation

logger = logging.getLogger(__name__)

RETRYABLE_STATUS: frozenset[int] = frozenset({408, 409, 429, 500, 502, 503, 504})
FATAL_STATUS: frozenset[int] = frozenset({401, 403, 404})
MAX_BACKOFF_S = 60.0
DETAIL_CHARS = 300
"""Most of a server's error message kept in a record (a scrubbed prefix: the key and its
encodings are removed first, ``credentials.scrub_secrets``)."""
T = TypeVar("T")


class RequestFailed(Exception):
    """A request that brought back no usable reply.

    ``status`` is the HTTP status when the server answered (None for network failures
    and deadlines), ``retry_after`` the seconds it asked to wait, ``detail`` what it said.
    """

    def __init__(self, message: str, *, status: int | None = None, retry_after: float | None = None,
                 detail: str = "") -> None:
        super().__init__(message)
        self.status = status
        self.retry_after = retry_after
        self.detail = detail



ERROR_BODY_BYTES = 64 * 1024
"""Most of an error reply read (for its message)."""


def post(url: str, data: bytes, headers: dict[str, str], *, deadline_s: float, max_bytes: int) -> bytes:
    """The body of a 2xx reply to ``POST url``, within ``deadline_s`` and ``max_bytes``.

    httpx's timeouts bound each socket operation (a server trickling a byte a second never
    trips them), so the whole request, connection to last byte, runs under
    ``asyncio.wait_for``; redirects are not followed (a 3xx is a failure: ``Authorization``
    is never re-sent elsewhere); the body is read raw (``Accept-Encoding: identity``, no
    decompression) in chunks and refused past ``max_bytes``.

    Raises:
        RequestFailed: an HTTP error status (3xx included), a network failure, the
            deadline, or a reply over ``max_bytes``; its message holds no request header.
    """
    try:
        return asyncio.run(asyncio.wait_for(_post(url, data, headers, deadline_s, max_bytes), deadline_s))
    except asyncio.TimeoutError:
        raise RequestFailed(f"no complete reply within {deadline_s:g} s (the request deadline)") from None


async def _post(url: str, data: bytes, headers: dict[str, str], deadline_s: float, max_bytes: int) -> bytes:
    sent = {"Accept-Encoding": "identity", **headers}
    try:
        async with (
            httpx.AsyncClient(follow_redirects=False, timeout=deadline_s) as client,
            client.stream("POST", url, content=data, headers=sent) as response,
        ):
            if response.is_success:
                return await _read_capped(response, max_bytes)
            detail = (await _read_capped(response, ERROR_BODY_BYTES, cut=True)).decode("utf-8", "replace")
            raise _status_failure(response, detail or response.reason_phrase)
    except (httpx.HTTPError, httpx.InvalidURL, OSError, ValueError) as error:
        raise RequestFailed(f"{type(error).__name__}: {error}") from None


async def _read_capped(response: httpx.Response, max_bytes: int, *, cut: bool = False) -> bytes:
    """The raw body, at most ``max_bytes`` (past it: refused, or cut when ``cut``)."""
    declared = response.headers.get("Content-Length", "").strip()
    if not cut and declared.isdigit() and int(declared) > max_bytes:
        raise RequestFailed(f"reply of {int(declared)} bytes, over the {max_bytes}-byte cap")
    body = bytearray()
    async for chunk in response.aiter_raw():
        body += chunk
        if len(body) > max_bytes:
            if cut:
                return bytes(body[:max_bytes])
            raise RequestFailed(f"reply over the {max_bytes}-byte cap")
    return bytes(body)


def _status_failure(response: httpx.Response, detail: str) -> RequestFailed:
    message = f"HTTP {response.status_code}"
    if response.is_redirect or 300 <= response.status_code < 400:
        location, _ = split_credentials(response.headers.get("Location", ""))
        message += f" redirect to {location[:200]!r} not followed (point --base-url at the final address)"
    return RequestFailed(message, status=response.status_code, retry_after=_retry_after(response), detail=detail)


def _retry_after(response: httpx.Response) -> float | None:
    try:
        seconds = float(response.headers.get("Retry-After", ""))
    except ValueError:
        return None
    return None if math.isnan(seconds) else max(0.0, seconds)


class MalformedReply(ValueError):
    """A 2xx reply that is not of the expected shape; ``label`` starts its recorded error."""

    label = "malformed reply"


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
        timeout_s: whole-request deadline, connection to last byte of the reply.
        max_reply_mb: largest reply read, MiB (a chat completion is a few kB).
        max_tokens_field: ``max_tokens`` (vLLM, SGLang, most APIs) or
            ``max_completion_tokens`` (newer OpenAI models).
        extra_body: vendor fields added to every request body, such as a reasoning
            switch (``{"enable_thinking": true}``, ``{"reasoning_effort": "high"}``); they
            change what the model does, so they are part of its fingerprint and its record
            header, and may not override the fields this backend sets.
        sleep: injectable for tests.
    """

    name = "openai"
    default_batch_size = 64
    body_fields: frozenset[str] = frozenset({"model", "messages", "temperature", "top_p", "seed", "stream", "n",
                                             "max_tokens", "max_completion_tokens"})  # fmt: skip
    """The request fields this backend sets, which ``extra_body`` may not override."""

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
        max_reply_mb: int = 4,
        max_tokens_field: str = "max_tokens",
        extra_body: Mapping[str, Any] | None = None,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        if not model:
            raise BackendError("the openai backend needs --model: the name the server serves the model under")
        public_url, self._credentials = split_credentials(base_url)
        public_url, self._query = split_query(public_url)
        if not public_url.startswith(("http://", "https://")) or not urllib.parse.urlsplit(public_url).hostname:
            raise BackendError(f"--base-url must be http(s)://host[:port]/..., got {public_url!r}")
        if concurrency < 1 or max_retries < 0:
            raise BackendError(f"need concurrency >= 1 and max_retries >= 0, got {concurrency} and {max_retries}")
        if not (timeout_s > 0 and max_reply_mb >= 1):
            raise BackendError(f"need timeout_s > 0 and max_reply_mb >= 1, got {timeout_s} and {max_reply_mb}")
        self.model = model
        self.base_url = public_url.rstrip("/")
        self.api_key_env = api_key_env
        self.concurrency = concurrency
        self.max_retries = max_retries
        self.backoff_s = backoff_s
        self.timeout_s = timeout_s
        self.max_reply_bytes = max_reply_mb * 1024 * 1024
        self.max_tokens_field = max_tokens_field
        self.extra_body = _checked_extra_body(extra_body, self.body_fields)
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
        return hashlib.sha256(f"openai:{self.base_url}:{self.model}{self._extra_identity()}".encode()).hexdigest()

    def _extra_identity(self) -> str:
        """``extra_body`` as canonical JSON, appended to the fingerprint's text (nothing when unset: old runs keep theirs)."""
        return f":{json.dumps(self.extra_body, sort_keys=True)}" if self.extra_body else ""

    def describe(self) -> dict[str, Any]:
        return {
            "backend": self.name,
            "model": self.model,
            "base_url": self.base_url,
            "concurrency": self.concurrency,
            "max_retries": self.max_retries,
            **({"extra_body": self.extra_body} if self.extra_body else {}),
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
        return body | self.extra_body

    def _headers(self, conversation: Conversation) -> dict[str, str]:
        headers = {"Content-Type": "application/json", "Accept": "application/json"}
        key = os.environ.get(self.api_key_env, "")
        if key:
            headers["Authorization"] = f"Bearer {key}"
        elif self._credentials is not None:
            headers["Authorization"] = basic_authorization(self._credentials)
        if conversation.session_id:
            headers["X-Session-ID"] = conversation.session_id
        return headers

    def _url(self, endpoint: str) -> str:
        """The request URL of ``endpoint``: the public base URL, then the query the user gave (a gateway's key)."""
        return f"{self.base_url}{endpoint}" + (f"?{self._query}" if self._query else "")

    def _secrets(self) -> list[str]:
        """Everything that must never reach a record: the key, URL credentials, their encodings."""
        secrets = [os.environ.get(self.api_key_env, "")]
        if self._credentials is not None:
            secrets += [self._credentials[1], basic_authorization(self._credentials).split(" ", 1)[1]]
        secrets += query_secrets(self._query)
        return [secret for secret in secrets if secret]

    def _complete(self, conversation: Conversation, gen: GenParams) -> Completion:
        data = json.dumps(self.request_body(conversation, gen)).encode("utf-8")
        start = time.perf_counter()
        secrets = self._secrets()

        def read(body: bytes) -> Completion:
            return _redacted(_completion_from(_json_object(body), time.perf_counter() - start), secrets)

        completion, error = self.post_with_retries(
            self._url("/chat/completions"), data, self._headers(conversation), read, conversation.session_id
        )
        return completion if completion is not None else Completion(error=error, latency_s=time.perf_counter() - start)

    def post_with_retries(
        self, url: str, data: bytes, headers: dict[str, str], read: Callable[[bytes], T], session_id: str
    ) -> tuple[T | None, str]:
        """POST ``data`` and ``read`` the reply, retrying by this backend's rules.

        Returns ``(result, "")``, or ``(None, last error)`` once retries are spent or the
        status is not retryable. ``read`` raises ``MalformedReply`` (or a subclass) for a
        2xx reply it cannot use; that attempt is retried. Every error text is scrubbed of
        the key and credentials.

        Raises:
            BackendError: a status that no retry can fix (``FATAL_STATUS``: bad key, URL or model).
        """
        secrets = self._secrets()
        last_error = "no attempt made"
        retry_after: float | None = None
        for attempt in range(self.max_retries + 1):
            if attempt:
                self.sleep(self._delay(attempt, retry_after))
            retry_after = None
            try:
                body = post(url, data, headers, deadline_s=self.timeout_s, max_bytes=self.max_reply_bytes)
                return read(body), ""
            except RequestFailed as failure:
                detail = redact(failure.detail, secrets)[:DETAIL_CHARS]
                if failure.status in FATAL_STATUS:
                    hint = f"is ${self.api_key_env} set?" if failure.status in (401, 403) else "check --base-url and --model"
                    raise BackendError(
                        f"{url} answered HTTP {failure.status} for model {self.model!r} ({detail}); {hint}"
                    ) from None
                last_error = redact(f"{failure}: {detail}" if detail else str(failure), secrets)[: 2 * DETAIL_CHARS]
                if failure.status is not None and failure.status not in RETRYABLE_STATUS:
                    break
                retry_after = failure.retry_after
            except MalformedReply as error:
                last_error = redact(f"{error.label}: {error}", secrets)[: 2 * DETAIL_CHARS]
            logger.info("request for %s failed (attempt %d): %s", session_id, attempt + 1, last_error)
        return None, last_error

    def _delay(self, attempt: int, retry_after: float | None) -> float:
        if retry_after is not None:
            return min(retry_after, MAX_BACKOFF_S)
        return min(self.backoff_s * 2 ** (attempt - 1), MAX_BACKOFF_S)


def _json_object(body: bytes) -> dict[str, Any]:
    try:
        payload = json.loads(body)
    except (ValueError, RecursionError) as error:  # JSONDecodeError, bad UTF-8, huge integers, deep nesting
        raise MalformedReply(f"not JSON ({str(error)[:120]})") from None
    if not isinstance(payload, dict):
        raise MalformedReply(f"a JSON {type(payload).__name__}, not an object")
    return payload


def _field(container: dict[str, Any], key: str, kinds: tuple[type, ...], where: str) -> Any:
    value = container.get(key)
    if not isinstance(value, kinds) or isinstance(value, bool) and bool not in kinds:
        raise MalformedReply(f"{where}{key} is {type(value).__name__}, expected {' or '.join(k.__name__ for k in kinds)}")
    return value


def _completion_from(payload: dict[str, Any], latency_s: float) -> Completion:
    """The completion in ``choices[0]``; any other shape is ``MalformedReply``."""
    if "choices" not in payload and "error" in payload:  # some servers answer 200 with an error object
        raise MalformedReply(f"the server reported an error: {str(payload['error'])[:DETAIL_CHARS]}")
    choices = _field(payload, "choices", (list,), "")
    if not choices:
        raise MalformedReply("choices is empty")
    choice = choices[0]
    if not isinstance(choice, dict):
        raise MalformedReply(f"choices[0] is {type(choice).__name__}, expected dict")
    message = _field(choice, "message", (dict,), "choices[0].")
    content = _field(message, "content", (str, list, type(None)), "choices[0].message.")
    if isinstance(content, list):  # content parts: keep the text ones
        texts = []
        for part in content:
            if not isinstance(part, dict) or not isinstance(part.get("text", ""), str):
                raise MalformedReply(f"a content part is {str(part)[:60]!r}, expected {{'type': 'text', 'text': str}}")
            texts.append(part.get("text", ""))
        content = "".join(texts)
    usage = _field(payload, "usage", (dict, type(None)), "") or {}
    tokens = [_field(usage, key, (int, type(None)), "usage.") for key in ("prompt_tokens", "completion_tokens")]
    return Completion(
        text=content or "",
        prompt_tokens=tokens[0],
        completion_tokens=tokens[1],
        latency_s=latency_s,
        finish_reason=_field(choice, "finish_reason", (str, type(None)), "choices[0]."),
    )


def _redacted(completion: Completion, secrets: Sequence[str]) -> Completion:
    """A reply that echoes the key must not carry it into records."""
    text = scrub_secrets(completion.text, secrets)
    return completion if text == completion.text else dataclasses.replace(completion, text=text)


MAX_EXTRA_BODY_BYTES = 16 * 1024
"""Largest ``extra_body`` sent (a vendor switch is a few bytes; this is no place for a prompt)."""


def _checked_extra_body(extra: Any, reserved: frozenset[str]) -> dict[str, Any]:
    """``extra`` as a plain JSON object, or BackendError saying what is wrong with it."""
    if extra is None:
        return {}
    if not isinstance(extra, Mapping) or not all(isinstance(key, str) for key in extra):
        raise BackendError(f'extra_body must be a JSON object, e.g. --backend-arg \'extra_body={{"enable_thinking": true}}\', got {extra!r:.80}')
    clash = sorted(set(extra) & reserved)
    if clash:
        raise BackendError(f"extra_body may not set {', '.join(clash)}: the backend sets it (use the run's own options)")
    try:
        text = json.dumps(dict(extra), allow_nan=False)
    except (TypeError, ValueError) as error:
        raise BackendError(f"extra_body must hold JSON values only ({error})") from None
    if len(text) > MAX_EXTRA_BODY_BYTES:
        raise BackendError(f"extra_body is {len(text):,} bytes of JSON; at most {MAX_EXTRA_BODY_BYTES:,}")
    return json.loads(text)

