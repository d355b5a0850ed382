"""The one gate every image we did not draw passes before it is decoded.

Pillow opens any format it has a plugin for: TIFF, PostScript (rendered by Ghostscript
when it is installed), ICNS, PSD and dozens more. An image from a model, a server, a run
folder, a dataset or the authors' data is therefore checked here first:

1. its bytes must start with the signature of PNG, WebP or JPEG (``ACCEPTED_FORMATS``),
   and Pillow is asked to open it with that one plugin only;
2. its size, read from the header, must be at most ``MAX_SIDE`` a side and
   ``max_pixels`` in all, before a pixel is decoded: a bomb of a few hundred kilobytes
   that stays under Pillow's own limit (89 M pixels) would still cost gigabytes;
3. it must decode whole (a truncated file is refused, not padded).

Every refusal is an ``ImageRejected`` naming the image and what was wrong.
"""

from __future__ import annotations

import io
import os
import warnings
from typing import TYPE_CHECKING, Final

from vgau_data import safe_io
from vgau_data.errors import VgauError

if TYPE_CHECKING:
    from PIL import Image

ACCEPTED_FORMATS: Final = ("PNG", "WEBP", "JPEG")
MAX_PIXELS: Final = 4096 * 4096
"""Largest decoded image accepted by default (a 4K drawing); boards are 552 x 552."""
MAX_SIDE: Final = 8192
MAX_IMAGE_BYTES: Final = 64 * 1024 * 1024
"""Largest image file read from disk."""


class ImageRejected(VgauError, ValueError):
    """Bytes that are not a PNG, WebP or JPEG image within the size limits (the message says why)."""


def image_format(data: bytes) -> str | None:
    """The accepted format ``data`` starts with (``PNG``, ``WEBP``, ``JPEG``), else None.

    Example:
        >>> image_format(b"\\x89PNG\\r\\n\\x1a\\n..."), image_format(b"%!PS-Adobe-3.0"), image_format(b"II*\\x00")
        ('PNG', None, None)
    """
    if data.startswith(b"\x89PNG\r\n\x1a\n"):
        return "PNG"
    if data.startswith(b"\xff\xd8\xff"):
        return "JPEG"
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "WEBP"
    return None


def _describe(data: bytes) -> str:
    head = data[:12]
    for prefix, name in ((b"%!PS", "PostScript"), (b"II*\x00", "TIFF"), (b"MM\x00*", "TIFF"), (b"GIF8", "GIF"),
                         (b"BM", "BMP"), (b"<", "text or SVG"), (b"%PDF", "PDF")):  # fmt: skip
        if head.startswith(prefix):
            return name
    return f"bytes {head[:8]!r}"


def open_checked(data: bytes, *, at: str, max_pixels: int = MAX_PIXELS, max_side: int = MAX_SIDE) -> Image.Image:
    """The image's header opened with its own plugin only, its size checked; no pixel is decoded yet.

    Raises:
        ImageRejected: not PNG, WebP or JPEG by signature, or wider, taller or larger than the limits.
    """
    from PIL import Image, UnidentifiedImageError

    kind = image_format(data)
    if kind is None:
        raise ImageRejected(f"{at} is not a PNG, WebP or JPEG image ({_describe(data)}); only those are read")
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", Image.DecompressionBombWarning)
            image = Image.open(io.BytesIO(data), formats=[kind])
    except (UnidentifiedImageError, OSError, ValueError, SyntaxError, Image.DecompressionBombError) as error:
        raise ImageRejected(f"{at} is not a readable {kind} image ({str(error)[:120]})") from None
    width, height = image.size
    if max(width, height) > max_side or width * height > max_pixels:
        raise ImageRejected(
            f"{at} is {width}x{height} pixels; at most {max_side} a side and {max_pixels:,} pixels are decoded"
        )
    if width < 1 or height < 1:
        raise ImageRejected(f"{at} is {width}x{height} pixels: empty")
    return image


def decode(data: bytes, *, at: str, max_pixels: int = MAX_PIXELS, max_side: int = MAX_SIDE) -> Image.Image:
    """The image decoded whole, as RGB, after ``open_checked``.

    Raises:
        ImageRejected: see ``open_checked``; or the data is truncated or corrupt.
    """
    from PIL import Image

    image = open_checked(data, at=at, max_pixels=max_pixels, max_side=max_side)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", Image.DecompressionBombWarning)
            image.load()
            return image if image.mode == "RGB" else image.convert("RGB")
    except (OSError, ValueError, SyntaxError, EOFError, Image.DecompressionBombError) as error:
        raise ImageRejected(f"{at} cannot be decoded ({str(error)[:120]})") from None


def check(data: bytes, *, at: str, max_pixels: int = MAX_PIXELS, max_side: int = MAX_SIDE) -> str:
    """The format of image bytes we are about to store as they are, once they decode whole."""
    image = decode(data, at=at, max_pixels=max_pixels, max_side=max_side)
    image.close()
    return image_format(data) or ""


def read_file(
    path: str | os.PathLike[str],
    *,
    inside: str | os.PathLike[str] | None = None,
    at: str | None = None,
    max_bytes: int = MAX_IMAGE_BYTES,
    max_pixels: int = MAX_PIXELS,
) -> tuple[bytes, Image.Image]:
    """An image file's bytes and its decoded RGB image, read by ``safe_io`` (a regular file,
    inside ``inside``, at most ``max_bytes``) and passed through ``decode``.

    Raises:
        InputFileError: see ``safe_io.read_bytes``.
        ImageRejected: see ``decode``.
    """
    data = safe_io.read_bytes(path, limit=max_bytes, inside=inside, what="image")
    return data, decode(data, at=at or f"image {path}", max_pixels=max_pixels)
