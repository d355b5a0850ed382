"""Text bound for a terminal: whatever came from a file, a server or a model is escaped first.

A model name, a protocol, a dataset source or a server's error message may hold escape
sequences that recolour, move the cursor, retitle or rewrite the terminal, bidi controls
that reorder what is shown, or lone surrogates that cannot be printed at all.
"""

from __future__ import annotations

import re

_UNSAFE = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\ud800-\udfff]")
"""Control characters (tab and newline excepted), bidi controls and lone surrogates."""


def terminal_safe(text: str) -> str:
    r"""``text`` with control characters, bidi controls and lone surrogates shown as escapes.

    Example:
        >>> terminal_safe("model\x1b[2J\u202e\tok\n")
        'model\\x1b[2J\\u202e\tok\n'
    """
    return _UNSAFE.sub(_escape, text)


def _escape(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"
