"""The authors' board images, loaded within bounds (a family that reads its walls from them: ``path.paper``).

Every file goes through ``safe_io`` (a regular file inside the data folder) and
``image_gate`` (PNG, WebP or JPEG by signature, its size checked before decoding).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Final

from vgau_data import image_gate, safe_io
from vgau_data.errors import InputFileError, PaperDataError

if TYPE_CHECKING:
    from PIL import Image

MAX_IMAGE_BYTES: Final = 16 * 1024 * 1024
MAX_IMAGE_SIDE: Final = 4096


def load_board_image(path: Path, at: str, *, inside: Path | None = None) -> bytes | None:
    """The bytes of a board image, checked to be a PNG, WebP or JPEG that decodes within
    bounds (``image_gate``); None if nothing is at ``path``.

    Raises:
        PaperDataError: the file is not a regular file inside ``inside`` (a link out of
            the data folder, a FIFO), too large, not an accepted image, or too many pixels.
    """
    if not path.exists() and not path.is_symlink():
        return None
    try:
        data = safe_io.read_bytes(path, limit=MAX_IMAGE_BYTES, inside=inside, what="board image")
        image_gate.check(data, at=f"image {path}", max_pixels=MAX_IMAGE_SIDE**2, max_side=MAX_IMAGE_SIDE)
    except (InputFileError, image_gate.ImageRejected) as error:
        raise PaperDataError(f"{at}: {error}") from None
    return data


def open_board_image(data: bytes, at: str) -> Image.Image:
    """Decode image bytes into RGB through ``image_gate`` (PNG, WebP or JPEG, at most
    ``MAX_IMAGE_SIDE`` a side)."""
    try:
        return image_gate.decode(data, at=at, max_pixels=MAX_IMAGE_SIDE**2, max_side=MAX_IMAGE_SIDE)
    except image_gate.ImageRejected as error:
        raise PaperDataError(str(error)) from None
