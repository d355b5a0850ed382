"""The authors' board images, loaded within bounds (a family that reads its walls from them: ``path.paper``)."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Final

from PIL import Image, UnidentifiedImageError

from vgau_data.errors import PaperDataError

MAX_IMAGE_BYTES: Final = 16 * 1024 * 1024
MAX_IMAGE_SIDE: Final = 8192


def load_board_image(path: Path, at: str) -> bytes | None:
    """The bytes of a board image, checked to decode within bounds; None if the file is absent.

    Raises:
        PaperDataError: the file is too large, not an image, or too many pixels.
    """
    if not path.is_file():
        return None
    size = path.stat().st_size
    if size > MAX_IMAGE_BYTES:
        raise PaperDataError(f"{at}: image {path} is {size:,} bytes; a board image is at most {MAX_IMAGE_BYTES:,}")
    data = path.read_bytes()
    open_board_image(data, f"{at}: image {path}")
    return data


def open_board_image(data: bytes, at: str) -> Image.Image:
    """Decode image bytes into RGB, refusing anything wider or taller than ``MAX_IMAGE_SIDE``."""
    try:
        image = Image.open(io.BytesIO(data))  # reads the header only
    except (UnidentifiedImageError, OSError, Image.DecompressionBombError) as e:
        raise PaperDataError(f"{at} is not a readable image ({e})") from None
    if max(image.size) > MAX_IMAGE_SIDE:
        raise PaperDataError(f"{at} is {image.size[0]}x{image.size[1]} px; at most {MAX_IMAGE_SIDE} a side")
    try:
        return image.convert("RGB")
    except (OSError, ValueError) as e:
        raise PaperDataError(f"{at} is not a readable image ({e})") from None
