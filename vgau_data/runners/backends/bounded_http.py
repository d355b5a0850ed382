"""One HTTP POST with hard bounds, for clients of servers we do not control.

- **No redirects.** urllib follows 301/302/303 to any host and re-sends every header,
  ``Authorization`` included; here a 3xx is a failed request.
- **A whole-request deadline.** urllib's timeout bounds each socket operation, so a server
  trickling one byte a second never trips it. A watchdog shuts the request's socket
  down when ``deadline_s`` has passed, wherever the request is (TLS handshake, headers,
  body).
- **A reply-size cap.** The body is read in chunks and refused past ``max_bytes``.

Everything that goes wrong is a ``RequestFailed`` whose message holds no request
header; callers redact what the server sent back (``redact``).
"""

from __future__ import annotations

import base64
import contextlib
import functools
import http.client
import re
import socket
import threading
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Iterable, Iterator, Mapping
from functools import partial
from typing import Any

ERROR_BODY_BYTES = 64 * 1024
"""Most of an error reply read (for its message)."""
REDACTED = "[redacted]"
MIN_SECRET_CHARS = 8
"""Shorter "keys" (``EMPTY``, ``none``) are placeholders, not secrets; replacing them would garble text."""

_CREDENTIAL = re.compile(
    r"""(?i)\b(?:(authorization|api[-_]?key|x-api-key)(["']?\s*[:=]\s*["']?)|(bearer|basic)(\s+))"""
    r"""(?:(?:bearer|basic)\s+)?[^\s"',;}]+"""
)
"""A credential's name and separator (kept), then its value (replaced)."""


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


# ---------------------------------------------------------------- URLs and secrets


def split_credentials(url: str) -> tuple[str, tuple[str, str] | None]:
    """``url`` without its ``user:password@`` part, and that part (None when absent).

    Example:
        >>> split_credentials("https://me:s3cret@api.example.org:8443/v1")
        ('https://api.example.org:8443/v1', ('me', 's3cret'))
    """
    parts = urllib.parse.urlsplit(url)
    if parts.username is None and parts.password is None:
        return url, None
    host = parts.hostname or ""
    if ":" in host:
        host = f"[{host}]"
    netloc = host if parts.port is None else f"{host}:{parts.port}"
    public = urllib.parse.urlunsplit((parts.scheme, netloc, parts.path, parts.query, parts.fragment))
    credentials = (urllib.parse.unquote(parts.username or ""), urllib.parse.unquote(parts.password or ""))
    return public, credentials


def basic_authorization(credentials: tuple[str, str]) -> str:
    """The ``Authorization`` value for HTTP basic auth."""
    return "Basic " + base64.b64encode(":".join(credentials).encode("utf-8")).decode("ascii")


def _base64_cores(data: bytes, alphabet: bytes | None) -> Iterator[str]:
    """The base64 characters that ``data`` alone decides, at each of the 3 byte alignments it
    may have inside a longer encoded text (the characters at its edges also hold neighbours' bits)."""
    for offset in range(3):
        encoded = base64.b64encode(b"\0" * offset + data, altchars=alphabet).decode("ascii")
        start, end = -(-8 * offset // 6), 8 * (offset + len(data)) // 6
        yield encoded[start:end]


@functools.lru_cache(maxsize=64)
def secret_forms(secret: str) -> tuple[str, ...]:
    """``secret`` and the ways a server may echo it: base64 (standard and URL-safe, at any
    alignment), URL-encoded, reversed and hex; each form at least ``MIN_SECRET_CHARS`` long.

    Example:
        >>> secret_forms("sk-0123456789")
        ('sk-0123456789', 'c2stMDEyMzQ1Njc4O', 'NrLTAxMjM0NTY3OD', 'zay0wMTIzNDU2Nzg5', '9876543210-ks', '736b2d30313233343536373839')
        >>> scrub_secrets(base64.b64encode(b"Bearer sk-0123456789").decode(), ["sk-0123456789"])
        'QmVhcmVyIH[redacted]k='
    """
    data = secret.encode("utf-8")
    forms = [secret, *_base64_cores(data, None), *_base64_cores(data, b"-_"),
             urllib.parse.quote(secret, safe=""), urllib.parse.quote_plus(secret), secret[::-1], data.hex()]  # fmt: skip
    return tuple(dict.fromkeys(form for form in forms if len(form) >= MIN_SECRET_CHARS))


def scrub_secrets(text: str, secrets: Iterable[str]) -> str:
    """``text`` with every secret (of at least ``MIN_SECRET_CHARS``) and every form of it
    (``secret_forms``; hex and URL escapes in any case) replaced by ``[redacted]``."""
    forms = {form for secret in secrets if len(secret) >= MIN_SECRET_CHARS for form in secret_forms(secret)}
    for form in sorted(forms, key=lambda f: (-len(f), f)):  # longest first: a whole encoding before a part of it
        text = re.sub(re.escape(form), REDACTED, text, flags=re.IGNORECASE) if _caseless(form) else text.replace(
            form, REDACTED)
    return text


def _caseless(form: str) -> bool:
    """Hex digits and percent escapes mean the same in either case; base64 and keys do not."""
    return re.fullmatch(r"[0-9a-fA-F]+", form) is not None or "%" in form


def redact(text: str, secrets: Iterable[str]) -> str:
    """``scrub_secrets``, and any ``Bearer``/``Basic``/``Authorization``/``api_key`` value replaced too
    (for what a server says about a failed request).

    Example:
        >>> redact('echo: {"authorization": "Bearer sk-123456789"} key sk-123456789', ["sk-123456789"])
        'echo: {"authorization": "[redacted]"} key [redacted]'
        >>> redact("Authorization: Basic dTpw, x-api-key=abc", [])
        'Authorization: [redacted], x-api-key=[redacted]'
    """
    return _CREDENTIAL.sub(_redact_match, scrub_secrets(text, secrets))


def _redact_match(match: re.Match[str]) -> str:
    name, separator = (match.group(1), match.group(2)) if match.group(1) is not None else (match.group(3), match.group(4))
    return name + separator + REDACTED


# ---------------------------------------------------------------- the watchdog


class _Watchdog:
    """Shuts down every socket it watches once ``seconds`` have passed (unless finished first)."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self.expired = False
        self._finished = False
        self._sockets: list[socket.socket] = []
        self._lock = threading.Lock()
        self._timer = threading.Timer(seconds, self._expire)
        self._timer.daemon = True

    def __enter__(self) -> _Watchdog:
        self._timer.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        with self._lock:
            self._finished = True
        self._timer.cancel()

    def watch(self, sock: socket.socket) -> None:
        with self._lock:
            self._sockets.append(sock)
            if self.expired:
                _shut(sock)

    def _expire(self) -> None:
        with self._lock:
            if self._finished:
                return
            self.expired = True
            for sock in self._sockets:
                _shut(sock)


def _shut(sock: socket.socket) -> None:
    with contextlib.suppress(OSError):  # already closed: nothing is blocked on it
        sock.shutdown(socket.SHUT_RDWR)


class _WatchedContext:
    """An ``SSLContext`` stand-in that hands the TLS socket to the watchdog before the handshake."""

    def __init__(self, context: Any, watchdog: _Watchdog) -> None:
        self._context = context
        self._watchdog = watchdog

    def wrap_socket(self, sock: socket.socket, *args: Any, **kwargs: Any) -> Any:
        tls = self._context.wrap_socket(sock, *args, **{**kwargs, "do_handshake_on_connect": False})
        self._watchdog.watch(tls)
        tls.do_handshake()
        return tls

    def __getattr__(self, name: str) -> Any:
        return getattr(self._context, name)


class _Watched:
    """Mixin for ``http.client`` connections: the connected socket goes to the watchdog."""

    def __init__(self, *args: Any, watchdog: _Watchdog, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._watchdog = watchdog
        if hasattr(self, "_context"):
            self._context = _WatchedContext(self._context, watchdog)

    def connect(self) -> None:
        super().connect()  # type: ignore[misc]
        self._watchdog.watch(self.sock)  # type: ignore[attr-defined]


class _WatchedHTTPConnection(_Watched, http.client.HTTPConnection):
    pass


class _WatchedHTTPSConnection(_Watched, http.client.HTTPSConnection):
    pass


class _WatchedHTTPHandler(urllib.request.HTTPHandler):
    def __init__(self, watchdog: _Watchdog) -> None:
        super().__init__()
        self.watchdog = watchdog

    def http_open(self, req: urllib.request.Request) -> http.client.HTTPResponse:
        return self.do_open(partial(_WatchedHTTPConnection, watchdog=self.watchdog), req)


class _WatchedHTTPSHandler(urllib.request.HTTPSHandler):
    def __init__(self, watchdog: _Watchdog) -> None:
        super().__init__()
        self.watchdog = watchdog

    def https_open(self, req: urllib.request.Request) -> http.client.HTTPResponse:
        return self.do_open(partial(_WatchedHTTPSConnection, watchdog=self.watchdog), req, context=self._context)


class _RefuseRedirects(urllib.request.HTTPRedirectHandler):
    """Turn every 3xx into an ``HTTPError`` instead of following it."""

    def redirect_request(self, *args: Any, **kwargs: Any) -> None:
        return None


# ---------------------------------------------------------------- the request


def post(url: str, data: bytes, headers: Mapping[str, str], *, deadline_s: float, max_bytes: int) -> bytes:
    """The body of a 2xx reply to ``POST url``, read within ``deadline_s`` and ``max_bytes``.

    Raises:
        RequestFailed: an HTTP error status (3xx included), a network failure, the
            deadline, or a reply over ``max_bytes``.
    """
    watchdog = _Watchdog(deadline_s)
    opener = urllib.request.build_opener(
        _RefuseRedirects(), _WatchedHTTPHandler(watchdog), _WatchedHTTPSHandler(watchdog)
    )
    request = urllib.request.Request(url, data=data, headers=dict(headers), method="POST")
    with watchdog:
        try:
            with opener.open(request, timeout=deadline_s) as response:
                body = _read_capped(response, max_bytes)
        except urllib.error.HTTPError as error:
            raise _status_failure(error, watchdog) from None
        except (urllib.error.URLError, http.client.HTTPException, OSError, ValueError) as error:
            if watchdog.expired:
                raise _deadline_failure(deadline_s) from None
            reason = getattr(error, "reason", None) or error
            raise RequestFailed(f"{type(error).__name__}: {reason}") from None
    if watchdog.expired:  # the socket was shut mid-body: what was read is cut short
        raise _deadline_failure(deadline_s)
    return body


def _read_capped(response: Any, max_bytes: int) -> bytes:
    declared = response.headers.get("Content-Length") if response.headers else None
    if declared and declared.strip().isdigit() and int(declared) > max_bytes:
        raise RequestFailed(f"reply of {int(declared)} bytes, over the {max_bytes}-byte cap")
    chunks: list[bytes] = []
    size = 0
    while chunk := response.read(min(1 << 16, max_bytes + 1 - size)):
        chunks.append(chunk)
        size += len(chunk)
        if size > max_bytes:
            raise RequestFailed(f"reply over the {max_bytes}-byte cap")
    return b"".join(chunks)


def _status_failure(error: urllib.error.HTTPError, watchdog: _Watchdog) -> RequestFailed:
    try:
        detail = error.read(ERROR_BODY_BYTES).decode("utf-8", "replace")
    except (OSError, http.client.HTTPException, ValueError):
        detail = ""
    detail = detail or str(error.reason)
    message = f"HTTP {error.code}"
    if 300 <= error.code < 400:
        location, _ = split_credentials(error.headers.get("Location", "") if error.headers else "")
        message += f" redirect to {location[:200]!r} not followed (point --base-url at the final address)"
    elif watchdog.expired:
        message += " (then the deadline passed)"
    return RequestFailed(message, status=error.code, retry_after=_retry_after(error), detail=detail)


def _deadline_failure(deadline_s: float) -> RequestFailed:
    return RequestFailed(f"no complete reply within {deadline_s:g} s (the request deadline)")


def _retry_after(error: urllib.error.HTTPError) -> float | None:
    value = error.headers.get("Retry-After") if error.headers else None
    try:
        seconds = float(value) if value is not None else None
    except ValueError:
        return None
    return max(0.0, seconds) if seconds is not None and seconds == seconds else None
