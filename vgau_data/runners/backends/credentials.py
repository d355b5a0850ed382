"""Credentials out of what a backend returns: ``user:password@`` split off URLs, and a key
(with the encodings a server may echo it in) or anything that looks like a credential
replaced by ``[redacted]`` in error messages and outputs.
"""

from __future__ import annotations

import base64
import functools
import re
import urllib.parse
from collections.abc import Iterable, Iterator

REDACTED = "[redacted]"
MIN_SECRET_CHARS = 8
"""Shorter "keys" (``EMPTY``, ``none``) are placeholders, not secrets; replacing them would garble text."""

_CREDENTIAL = re.compile(
    r"""(?i)\b(?:(authorization|api[-_]?key|x-api-key)(["']?\s*[:=]\s*["']?)|(bearer|basic)(\s+))"""
    r"""(?:(?:bearer|basic)\s+)?[^\s"',;}]+"""
)
"""A credential's name and separator (kept), then its value (replaced)."""


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
