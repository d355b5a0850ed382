"""OpenAI-compatible image endpoints: ``/images/edits``, ``/images/generations``, or chat
completions that return images (hosted unified models such as Nano Banana behind an
OpenAI-compatible gateway, or a local server).

``endpoint`` picks the route:

- ``edits`` (``image_edit``): multipart ``POST {base_url}/images/edits`` with the board as
  ``image`` and the instruction as ``prompt``;
- ``generations`` (``text_to_image``): JSON ``POST {base_url}/images/generations``;
- ``chat`` (``chat`` and ``image_edit``): ``POST {base_url}/chat/completions`` with the
  request's conversation (or its instruction and images) and ``modalities: ["image",
  "text"]``; the image is read from ``message.images`` or from ``image_url`` content
  parts, as base64 data URLs. The same backend answers chat turns (it is the ``openai``
  backend), so a hosted unified model is one object.

Images must come back inline (``b64_json`` or a ``data:`` URL); a reply that only links to
an image elsewhere is recorded as an error rather than fetched from another host.
Every request goes through ``openai_compat.post`` (no redirects, a whole-request deadline, a
reply cap), keys are scrubbed from every error, retries follow the ``openai`` backend's
rules, and the image passes ``vgau_data.image_gate`` (PNG, WebP or JPEG by signature,
at most ``MAX_PIXELS``, checked before it is decoded) or the reply is refused.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
import logging
import time
import uuid
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING, Any, Final, Literal

from vgau_data import image_gate
from vgau_data.runners.backends.base import BackendError, GeneratedImage, GenParams, ImageRequest
from vgau_data.runners.backends.credentials import redact
from vgau_data.runners.backends.openai_compat import MalformedReply, OpenAIBackend
from vgau_data.runners.messages import Conversation, image_bytes, to_openai, user

if TYPE_CHECKING:
    from PIL import Image

logger = logging.getLogger(__name__)

Endpoint = Literal["edits", "generations", "chat"]
ENDPOINTS: Final = ("edits", "generations", "chat")
MAX_PIXELS: Final = image_gate.MAX_PIXELS
"""Largest decoded image accepted (width x height): a 4K drawing; a bomb of a few hundred
kilobytes under Pillow's own limit would cost gigabytes across concurrent episodes."""


class BadImageReply(MalformedReply):
    """A 2xx reply that holds no usable image."""

    label = "no image in the reply"


class OpenAIImageGenerator(OpenAIBackend):
    """Images from an OpenAI-compatible server (see the module docstring for the routes).

    Args:
        model: the served model name.
        endpoint: ``edits``, ``generations`` or ``chat``.
        size: the ``size`` field for the images routes (e.g. ``1024x1024``); omitted when None.
        **options: the ``openai`` backend's (``base_url``, ``api_key_env``, ``concurrency``,
            ``max_retries``, ``backoff_s``, ``timeout_s``, ``max_reply_mb``, ...).
    """

    name = "openai-image"
    body_fields = OpenAIBackend.body_fields | {"modalities", "prompt", "size", "response_format"}

    def __init__(self, model: str, *, endpoint: Endpoint = "edits", size: str | None = None, **options: Any) -> None:
        options.setdefault("max_reply_mb", 64)  # base64 images are big
        super().__init__(model, **options)
        if endpoint not in ENDPOINTS:
            raise BackendError(f"endpoint must be one of {', '.join(ENDPOINTS)}, got {endpoint!r}")
        if self.extra_body and endpoint == "edits":
            raise BackendError("extra_body goes into JSON bodies: endpoint=chat or generations (edits is a multipart form)")
        self.endpoint = endpoint
        self.size = size
        self.capabilities = {
            "edits": frozenset({"image_edit"}),
            "generations": frozenset({"text_to_image"}),
            "chat": frozenset({"chat", "image_edit"}),
        }[endpoint]

    def generate(self, requests: Sequence[ImageRequest], gen: GenParams) -> list[GeneratedImage]:
        if not requests:
            return []
        workers = min(self.concurrency, len(requests))
        with ThreadPoolExecutor(max_workers=workers, thread_name_prefix="vgau-openai-image") as pool:
            return list(pool.map(lambda request: self._generate_one(request, gen), requests))

    def fingerprint(self) -> str:
        identity = f"openai-image:{self.endpoint}:{self.base_url}:{self.model}{self._extra_identity()}"
        return hashlib.sha256(identity.encode()).hexdigest()

    def describe(self) -> dict[str, Any]:
        return super().describe() | {"backend": self.name, "endpoint": self.endpoint, "capabilities": sorted(self.capabilities)}

    # -- one request ----------------------------------------------------------------

    def image_request(self, request: ImageRequest, gen: GenParams) -> tuple[str, bytes, dict[str, str]]:
        """``(url, body, content type)`` for one request (public so tests can pin it)."""
        if self.endpoint == "chat":
            conversation = request.conversation or Conversation((user(*request.images, request.instruction),))
            if request.conversation is not None:
                conversation = Conversation((*conversation.messages, user(request.instruction)), conversation.session_id)
            body: dict[str, Any] = {
                "model": self.model,
                "messages": to_openai(conversation.messages),
                "modalities": ["image", "text"],
            }
            if gen.seed is not None:
                body["seed"] = gen.seed
            body |= self.extra_body
            return self._url("/chat/completions"), json.dumps(body).encode("utf-8"), {"Content-Type": "application/json"}
        fields = {"model": self.model, "prompt": request.instruction, "n": "1", "response_format": "b64_json"}
        if self.size:
            fields["size"] = self.size
        if self.endpoint == "generations":
            body = dict(fields, n=1) | self.extra_body
            return self._url("/images/generations"), json.dumps(body).encode("utf-8"), {"Content-Type": "application/json"}
        if not request.images:
            raise BadImageReply("the edits endpoint needs the board as input image")
        data, content_type = multipart(fields, {"image": ("board.png", image_bytes(request.images[0]), "image/png")})
        return self._url("/images/edits"), data, {"Content-Type": content_type}

    def _generate_one(self, request: ImageRequest, gen: GenParams) -> GeneratedImage:
        start = time.perf_counter()
        try:
            url, data, content_type = self.image_request(request, gen)
        except BadImageReply as error:
            return GeneratedImage(error=str(error))
        headers = self._headers(Conversation((), request.session_id)) | content_type
        secrets = self._secrets()

        def read(body: bytes) -> GeneratedImage:
            image, text = read_image_reply(body, chat=self.endpoint == "chat")
            return GeneratedImage(image=image, text=redact(text, secrets), latency_s=time.perf_counter() - start,
                                  meta={"endpoint": self.endpoint, "size": list(image.size)})  # fmt: skip

        generated, error = self.post_with_retries(url, data, headers, read, request.session_id)
        return generated if generated is not None else GeneratedImage(error=error, latency_s=time.perf_counter() - start)


def multipart(fields: dict[str, str], files: dict[str, tuple[str, bytes, str]]) -> tuple[bytes, str]:
    """A ``multipart/form-data`` body and its content type."""
    boundary = f"vgau-{uuid.uuid4().hex}"
    parts = []
    for name, value in fields.items():
        parts.append(f'--{boundary}\r\nContent-Disposition: form-data; name="{name}"\r\n\r\n{value}\r\n'.encode())
    for name, (filename, content, mime) in files.items():
        head = f'--{boundary}\r\nContent-Disposition: form-data; name="{name}"; filename="{filename}"\r\n'
        parts.append(f"{head}Content-Type: {mime}\r\n\r\n".encode() + content + b"\r\n")
    return b"".join(parts) + f"--{boundary}--\r\n".encode(), f"multipart/form-data; boundary={boundary}"


def read_image_reply(body: bytes, *, chat: bool) -> tuple[Image.Image, str]:
    """The first inline image of a reply, and its text (chat replies).

    Raises:
        BadImageReply: not JSON, no inline image, bad base64, not an image, or too large.
    """
    try:
        payload = json.loads(body)
    except (ValueError, RecursionError) as error:
        raise BadImageReply(f"not JSON ({str(error)[:120]})") from None
    if not isinstance(payload, dict):
        raise BadImageReply(f"a JSON {type(payload).__name__}, not an object")
    encoded, text = (_from_chat(payload) if chat else (_from_images(payload), ""))
    return _decode(encoded), text


def _from_images(payload: dict[str, Any]) -> str:
    data = payload.get("data")
    if not isinstance(data, list) or not data or not isinstance(data[0], dict):
        raise BadImageReply("no data[0] in the reply")
    encoded = data[0].get("b64_json")
    if not isinstance(encoded, str):
        raise BadImageReply("data[0] has no b64_json (links to images elsewhere are not followed)")
    return encoded


def _from_chat(payload: dict[str, Any]) -> tuple[str, str]:
    choices = payload.get("choices")
    message = choices[0].get("message") if isinstance(choices, list) and choices and isinstance(choices[0], dict) else None
    if not isinstance(message, dict):
        raise BadImageReply("no choices[0].message in the reply")
    content = message.get("content")
    parts = content if isinstance(content, list) else []
    text = content if isinstance(content, str) else "".join(
        part.get("text", "") for part in parts if isinstance(part, dict) and isinstance(part.get("text"), str)
    )  # fmt: skip
    images = message.get("images") if isinstance(message.get("images"), list) else []
    for part in [*images, *parts]:
        url = part.get("image_url") if isinstance(part, dict) else None
        url = url.get("url") if isinstance(url, dict) else url
        if isinstance(url, str) and url.startswith("data:image/") and ";base64," in url:
            return url.split(";base64,", 1)[1], text
    raise BadImageReply("the message holds no data-URL image (links to images elsewhere are not followed)")


def _decode(encoded: str) -> Image.Image:
    try:
        data = base64.b64decode(encoded, validate=True)
    except (binascii.Error, ValueError) as error:
        raise BadImageReply(f"bad base64 ({error})") from None
    try:
        return image_gate.decode(data, at="the image in the reply", max_pixels=MAX_PIXELS)
    except image_gate.ImageRejected as error:
        raise BadImageReply(str(error)) from None
