"""The one conversation schema every backend consumes, and pure converters at its edges.

A conversation is a sequence of ``Message(role, parts)``; a part is ``TextPart(text)`` or
``ImagePart(image)`` holding an in-memory PIL image. Backends convert at their edge:
``to_hf`` for transformers chat templates (PIL items), ``to_openai`` for HTTP APIs (PNG
data URLs). The converters never mutate their input.

Example:
    >>> from PIL import Image
    >>> conv = Conversation((Message("user", (ImagePart(Image.new("RGB", (2, 2))), TextPart("hi"))),))
    >>> to_hf(conv.messages)[0]["content"][1]
    {'type': 'text', 'text': 'hi'}
    >>> to_openai(conv.messages)[0]["content"][0]["image_url"]["url"][:22]
    'data:image/png;base64,'
"""

from __future__ import annotations

import base64
import hashlib
import io
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

if TYPE_CHECKING:
    from PIL import Image

Role = Literal["system", "user", "assistant"]
ROLES: tuple[str, ...] = ("system", "user", "assistant")

Asks = Literal["answer", "step", "remaining", "refine"]
"""What a request wants back: a final answer, one interactive step, a count of steps left, or an
edit instruction rewritten for an image editor (de-contextualized generation)."""

OMITTED_IMAGE_TEXT = "[earlier image omitted]"
"""What ``keep_last_images`` puts where it drops an image, so turns keep their shape."""


@dataclass(frozen=True, slots=True)
class TextPart:
    text: str


@dataclass(frozen=True, slots=True)
class ImagePart:
    """An in-memory image; ``label`` is a short note for records (never sent to a model).

    Encoded forms are cached on the part: an interactive episode re-sends the same parts
    every turn, so each board is PNG-encoded once, not once per turn.
    """

    image: Image.Image
    label: str = ""
    _encoded: dict[str, str] = field(default_factory=dict, compare=False, repr=False)

    def data_url(self, image_format: Literal["PNG", "JPEG"] = "PNG") -> str:
        """The image as a base64 data URL (cached)."""
        if image_format not in self._encoded:
            self._encoded[image_format] = image_data_url(self.image, image_format)
        return self._encoded[image_format]

    def digest(self) -> str:
        """``image_digest`` of the image (cached, like the encodings)."""
        if "digest" not in self._encoded:
            self._encoded["digest"] = image_digest(self.image)
        return self._encoded["digest"]


Part = TextPart | ImagePart


@dataclass(frozen=True, slots=True)
class Message:
    role: Role
    parts: tuple[Part, ...]

    def __post_init__(self) -> None:
        if self.role not in ROLES:
            raise ValueError(f"message role must be one of {ROLES}, got {self.role!r}")
        for part in self.parts:
            if not isinstance(part, (TextPart, ImagePart)):
                raise TypeError(f"message parts must be TextPart or ImagePart, got {type(part).__name__}")

    @property
    def text(self) -> str:
        """All text parts joined by newlines (images left out)."""
        return "\n".join(part.text for part in self.parts if isinstance(part, TextPart))


@dataclass(frozen=True, slots=True)
class Conversation:
    """The messages sent in one request, an opaque ``session_id`` and what the request ``asks``.

    ``session_id`` names the episode (instance id, protocol variant and run). Model
    backends ignore it except as an HTTP ``X-Session-ID`` header (sticky routing behind
    vllm-router); scripted policies use it, and ``asks``, to know what they answer.
    """

    messages: tuple[Message, ...]
    session_id: str = ""
    asks: Asks = "answer"

    @property
    def images(self) -> list[Image.Image]:
        return [part.image for message in self.messages for part in message.parts if isinstance(part, ImagePart)]

    @property
    def n_assistant_turns(self) -> int:
        return sum(message.role == "assistant" for message in self.messages)


def user(*parts: Part | str | Image.Image) -> Message:
    """A user message from text, images and parts, in order.

    Example:
        >>> user("a", "b").parts
        (TextPart(text='a'), TextPart(text='b'))
    """
    return Message("user", tuple(_as_part(part) for part in parts))


def assistant(text: str) -> Message:
    return Message("assistant", (TextPart(text),))


def _as_part(part: Part | str | Image.Image) -> Part:
    if isinstance(part, (TextPart, ImagePart)):
        return part
    if isinstance(part, str):
        return TextPart(part)
    if hasattr(part, "mode") and hasattr(part, "size"):
        return ImagePart(part)
    raise TypeError(f"expected text, a PIL image or a part, got {type(part).__name__}")


def keep_last_images(messages: Sequence[Message], k: int | None) -> tuple[Message, ...]:
    """Drop all but the last ``k`` images (``None`` keeps all); text is kept.

    Each dropped image becomes the text ``OMITTED_IMAGE_TEXT``.

    Example:
        >>> from PIL import Image
        >>> im = Image.new("RGB", (1, 1))
        >>> kept = keep_last_images([user(im, "a"), user(im, "b")], 1)
        >>> [p.text if isinstance(p, TextPart) else "IMG" for m in kept for p in m.parts]
        ['[earlier image omitted]', 'a', 'IMG', 'b']
    """
    if k is None:
        return tuple(messages)
    if k < 0:
        raise ValueError(f"k must be >= 0 or None, got {k}")
    total = sum(isinstance(part, ImagePart) for message in messages for part in message.parts)
    to_drop = max(0, total - k)
    kept: list[Message] = []
    for message in messages:
        parts: list[Part] = []
        for part in message.parts:
            if isinstance(part, ImagePart) and to_drop > 0:
                to_drop -= 1
                parts.append(TextPart(OMITTED_IMAGE_TEXT))
            else:
                parts.append(part)
        kept.append(Message(message.role, tuple(parts)))
    return tuple(kept)


def to_hf(messages: Sequence[Message]) -> list[dict[str, Any]]:
    """transformers chat format: ``[{"role", "content": [{"type": "image", "image": PIL}, ...]}]``."""
    converted = []
    for message in messages:
        content: list[dict[str, Any]] = []
        for part in message.parts:
            if isinstance(part, TextPart):
                content.append({"type": "text", "text": part.text})
            else:
                content.append({"type": "image", "image": _rgb(part.image)})
        converted.append({"role": message.role, "content": content})
    return converted


def to_openai(messages: Sequence[Message], image_format: Literal["PNG", "JPEG"] = "PNG") -> list[dict[str, Any]]:
    """OpenAI chat format, images as base64 data URLs (PNG by default: lossless boards)."""
    converted = []
    for message in messages:
        if message.role == "assistant":
            # Assistant turns are text only; plain strings are accepted by every server.
            converted.append({"role": "assistant", "content": message.text})
            continue
        content: list[dict[str, Any]] = []
        for part in message.parts:
            if isinstance(part, TextPart):
                content.append({"type": "text", "text": part.text})
            else:
                content.append({"type": "image_url", "image_url": {"url": part.data_url(image_format)}})
        converted.append({"role": message.role, "content": content})
    return converted


def image_bytes(image: Image.Image, image_format: Literal["PNG", "JPEG"] = "PNG") -> bytes:
    buffer = io.BytesIO()
    if image_format == "PNG":
        _rgb(image).save(buffer, format="PNG", compress_level=1)
    elif image_format == "JPEG":
        _rgb(image).save(buffer, format="JPEG", quality=95)
    else:
        raise ValueError(f"image_format must be 'PNG' or 'JPEG', got {image_format!r}")
    return buffer.getvalue()


def image_data_url(image: Image.Image, image_format: Literal["PNG", "JPEG"] = "PNG") -> str:
    encoded = base64.b64encode(image_bytes(image, image_format)).decode("ascii")
    return f"data:image/{image_format.lower()};base64,{encoded}"


def image_digest(image: Image.Image) -> str:
    """Short sha256 of the raw RGB pixels and size (for records; independent of PNG settings)."""
    rgb = _rgb(image)
    digest = hashlib.sha256(f"{rgb.size}".encode())
    digest.update(rgb.tobytes())
    return digest.hexdigest()[:16]


def _rgb(image: Image.Image) -> Image.Image:
    return image if image.mode == "RGB" else image.convert("RGB")
