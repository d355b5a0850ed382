"""The canonical trace record: build one, check one read from a file, and the kind that makes it.

A record is a conversation of ``user`` and ``assistant`` messages whose content is a list
of text parts and image parts; an image part holds an ``index`` into the row's list of
PNG bytes (``trace_<kind>_images``), so a board shown twice is stored once and the JSON
stays small. Records read back from a file are checked by ``parse_record`` before an
exporter touches them: a malformed one is a one-line ``TraceError``.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from vgau_data.errors import VgauError
from vgau_data.rendering import png_bytes

if TYPE_CHECKING:
    import numpy as np
    from PIL import Image

    from vgau_data.puzzles.base import FamilySpec

ROLES: tuple[str, ...] = ("user", "assistant")
MAX_RECORD_CHARS = 50_000_000
"""Largest record JSON read back (a 10k-step trace is ~2 MB): anything bigger is not ours."""


class TraceError(VgauError, ValueError):
    """A trace record that does not follow the canonical schema (the message says where)."""


class Record:
    """A record being built: messages in order, each image PNG-encoded once and referenced by index.

    Example:
        >>> from PIL import Image
        >>> record = Record()
        >>> record.add("user", Image.new("RGB", (2, 2)), "What is shown?")
        >>> record.add("assistant", "A board.")
        >>> record.to_json()
        '{"messages":[{"role":"user","content":[{"type":"image","index":0},{"type":"text","text":"What is shown?"}]},{"role":"assistant","content":[{"type":"text","text":"A board."}]}]}'
    """

    def __init__(self) -> None:
        self.messages: list[dict[str, Any]] = []
        self.images: list[bytes] = []

    def add(self, role: str, *parts: str | Image.Image) -> None:
        """Append a message of text and images (encoded with ``png_bytes``: the same pixels, the same bytes)."""
        if role not in ROLES:
            raise ValueError(f"record roles are {ROLES}, got {role!r}")
        content: list[dict[str, Any]] = []
        for part in parts:
            if isinstance(part, str):
                content.append({"type": "text", "text": part})
            else:
                content.append({"type": "image", "index": len(self.images)})
                self.images.append(png_bytes(part))
        self.messages.append({"role": role, "content": content})

    def to_json(self) -> str:
        """The record as compact JSON (keys in schema order; non-ASCII text kept as is)."""
        return json.dumps({"messages": self.messages}, ensure_ascii=False, separators=(",", ":"))

    def columns(self, kind: str) -> dict[str, Any]:
        """The two row columns of ``kind``: the record JSON and its images."""
        return {f"trace_{kind}": self.to_json(), f"trace_{kind}_images": list(self.images)}


def trace_features(kind: str) -> dict[str, Any]:
    """The ``datasets`` features of a kind's two columns: a JSON string and a list of images."""
    from datasets import Image, List, Value

    return {f"trace_{kind}": Value("string"), f"trace_{kind}_images": List(Image())}


@dataclass(frozen=True, slots=True)
class TraceKind:
    """A registered way to write a row's trace: ``build`` makes the record of one row.

    ``build(spec, state, answer, rng) -> Record``; ``columns`` and ``features`` are the
    registry's contract (see ``vgau_data.training.traces``). ``drawn_question(spec,
    state)``, when set, is the question as the protocol in which the model draws each
    board itself asks it (Self-VCoT's first message): formats that train a model to draw
    the boards use it instead of the record's own question.
    """

    name: str
    summary: str
    build: Callable[[FamilySpec, Any, tuple[Any, ...], np.random.Generator], Record]
    drawn_question: Callable[[FamilySpec, Any], str] | None = None

    def columns(self, spec: FamilySpec, state: Any, answer: Sequence[Any], rng: np.random.Generator) -> dict[str, Any]:
        return self.build(spec, state, tuple(answer), rng).columns(self.name)

    def features(self) -> dict[str, Any]:
        return trace_features(self.name)


def parse_record(text: object, n_images: int) -> list[dict[str, Any]]:
    """The messages of a record read from a file, checked against the schema and its ``n_images`` images.

    Every image index must lie in ``range(n_images)``; images need not all be used.

    Raises:
        TraceError: not JSON, not the schema, or an image index out of range (the message says where).

    Example:
        >>> parse_record('{"messages":[{"role":"user","content":[{"type":"image","index":0}]}]}', 1)[0]["role"]
        'user'
        >>> parse_record('{"messages":[{"role":"user","content":[{"type":"image","index":3}]}]}', 1)
        Traceback (most recent call last):
        ...
        vgau_data.training.traces.record.TraceError: message 0 part 0: image index 3 is not one of the row's 1 images
    """
    if not isinstance(text, str) or len(text) > MAX_RECORD_CHARS:
        raise TraceError(f"a trace record is a JSON string of at most {MAX_RECORD_CHARS} characters")
    try:
        obj = json.loads(text)
    except (ValueError, RecursionError) as error:
        raise TraceError(f"a trace record is not JSON ({str(error)[:80]})") from None
    messages = obj.get("messages") if isinstance(obj, dict) else None
    if not isinstance(messages, list) or not messages:
        raise TraceError('a trace record is {"messages": [...]} with at least one message')
    for m, message in enumerate(messages):
        if (
            not isinstance(message, dict)
            or message.get("role") not in ROLES
            or not isinstance(message.get("content"), list)
        ):
            raise TraceError(f"message {m}: needs a role in {ROLES} and a content list")
        for p, part in enumerate(message["content"]):
            _check_part(part, n_images, f"message {m} part {p}")
    return messages


def _check_part(part: object, n_images: int, where: str) -> None:
    kind = part.get("type") if isinstance(part, dict) else None
    if kind == "text" and isinstance(part.get("text"), str):  # type: ignore[union-attr]
        return
    if kind == "image":
        index = part.get("index")  # type: ignore[union-attr]
        if isinstance(index, int) and not isinstance(index, bool) and 0 <= index < n_images:
            return
        raise TraceError(f"{where}: image index {index!r:.20} is not one of the row's {n_images} images")
    raise TraceError(f'{where}: a part is {{"type": "text", "text": ...}} or {{"type": "image", "index": ...}}')
