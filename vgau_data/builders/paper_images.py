"""The authors' board images: loaded within bounds, and path walls read back from them.

Their path boards are drawn edge to edge as ``size`` x ``size`` equal cells (their own
reader takes ``cell = width / size``): walls black, roads light gray, an orange start
triangle, a blue destination triangle and black letters on labelled cells. Their records
hold no walls, so ``read_road_grid`` samples a lattice of points around each cell's
centre: a cell is a wall when nearly all of them are dark, a road when nearly all are
light, and anything in between is an error naming the record and the cell. Cells under
a marker or a letter are roads by definition and are not sampled.
"""

from __future__ import annotations

import io
from collections.abc import Collection
from pathlib import Path
from typing import Final

import numpy as np
from PIL import Image, UnidentifiedImageError

from vgau_data.errors import PaperDataError
from vgau_data.puzzles.base import Cell

MAX_IMAGE_BYTES: Final = 16 * 1024 * 1024
MAX_IMAGE_SIDE: Final = 8192
MIN_CELL_PX: Final = 4
SAMPLE_OFFSETS: Final = (0.3, 0.4, 0.5, 0.6, 0.7)
"""Where, as fractions of a cell's side, the lattice samples each cell (5 x 5 points)."""
DARK_BELOW: Final = 60
"""Luminance under which a sample is wall-dark (their own reader's threshold)."""
LIGHT_ABOVE: Final = 140
"""Luminance over which a sample is road-light (their roads are light gray)."""
AGREEMENT: Final = 0.9
"""Fraction of a cell's samples that must agree for the cell to be read."""


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


def read_road_grid(image: Image.Image, size: int, *, known_open: Collection[Cell], at: str) -> tuple[str, ...]:
    """The ``#``/``.`` rows of a path board drawn in the authors' style.

    Raises:
        PaperDataError: the image is too small for ``size`` cells, or a cell is neither
            clearly dark nor clearly light (named with its samples' verdict).
    """
    width, height = image.size
    if min(width, height) < size * MIN_CELL_PX:
        raise PaperDataError(f"{at}: its image is {width}x{height} px, too small for {size}x{size} cells")
    luminance = np.asarray(image.convert("L"), dtype=np.uint8)
    fractions = np.array(SAMPLE_OFFSETS)
    rows = []
    for r in range(size):
        ys = ((r + fractions) * height / size).astype(int)
        row = []
        for c in range(size):
            if (r, c) in known_open:
                row.append(".")
                continue
            xs = ((c + fractions) * width / size).astype(int)
            samples = luminance[np.ix_(ys, xs)]
            dark = float(np.mean(samples < DARK_BELOW))
            light = float(np.mean(samples > LIGHT_ABOVE))
            if dark >= AGREEMENT:
                row.append("#")
            elif light >= AGREEMENT:
                row.append(".")
            else:
                raise PaperDataError(
                    f"{at}: cell [{r}, {c}] of its image is neither a wall nor a road "
                    f"({dark:.0%} of the samples dark, {light:.0%} light); is the image in the authors' style?"
                )
        rows.append("".join(row))
    return tuple(rows)
