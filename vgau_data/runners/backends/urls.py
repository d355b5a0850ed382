"""A server URL as we record it: no query string, no fragment (credentials: ``credentials.split_credentials``).

Gateways take keys in the query string (``?key=...``, ``?code=...``, a signed URL's
``sig=``), and records, submissions and results are files people publish. So the URL a
backend keeps and reports is the part before ``?``; the query goes only onto the wire,
and every value in it is scrubbed from what the backend reports, like an API key.
"""

from __future__ import annotations

import urllib.parse


def split_query(url: str) -> tuple[str, str]:
    """``url`` without its query string and fragment, and the query string ('' when absent).

    The fragment is dropped: a client never sends it.

    Example:
        >>> split_query("https://gw.example.org/v1?key=s3cret-key-value&api-version=2024#frag")
        ('https://gw.example.org/v1', 'key=s3cret-key-value&api-version=2024')
    """
    parts = urllib.parse.urlsplit(url)
    return urllib.parse.urlunsplit((parts.scheme, parts.netloc, parts.path, "", "")), parts.query


def public_url(url: str) -> str:
    """``url`` as a record may show it: no ``user:password@``, no query string, no fragment.

    Example:
        >>> public_url("https://me:pw@gw.example.org:8443/v1?key=s3cret#x")
        'https://gw.example.org:8443/v1'
    """
    parts = urllib.parse.urlsplit(url)
    netloc = parts.netloc.rpartition("@")[2]
    return urllib.parse.urlunsplit((parts.scheme, netloc, parts.path, "", ""))


def query_secrets(query: str) -> list[str]:
    """The query string and each value in it, decoded, as secrets to scrub.

    Example:
        >>> query_secrets("key=s3cret%2Bkey&v=2")
        ['key=s3cret%2Bkey&v=2', 's3cret+key', '2']
    """
    if not query:
        return []
    values = [value for _, value in urllib.parse.parse_qsl(query, keep_blank_values=False)]
    return [query, *values]
