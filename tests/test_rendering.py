from __future__ import annotations

import io

import numpy as np
import pytest
from PIL import Image

from vgau_data.rendering import BoardGeometry, encode_image, png_bytes


@pytest.mark.parametrize("codec", ["png", "webp"])
@pytest.mark.parametrize(("width", "height"), [(1, 1), (7, 3), (552, 552), (584, 544)])
def test_encode_image__is_lossless_on_noise_and_deterministic(codec: str, width: int, height: int) -> None:
    pixels = np.random.default_rng(width * height).integers(0, 256, (height, width, 3), dtype=np.uint8)
    image = Image.fromarray(pixels, "RGB")
    data = encode_image(image, codec)  # type: ignore[arg-type]
    decoded = Image.open(io.BytesIO(data))
    assert decoded.format == codec.upper() and decoded.size == (width, height)
    assert np.array_equal(np.asarray(decoded.convert("RGB")), pixels)
    assert encode_image(image.copy(), codec) == data  # type: ignore[arg-type]


def test_encode_image__names_the_codecs() -> None:
    with pytest.raises(ValueError, match="choose 'png' or 'webp'"):
        encode_image(Image.new("RGB", (1, 1)), "jpeg")  # type: ignore[arg-type]


def test_png_bytes__converts_other_modes_to_rgb() -> None:
    image = Image.new("RGBA", (4, 4), (1, 2, 3, 128))
    assert Image.open(io.BytesIO(png_bytes(image))).getpixel((0, 0)) == (1, 2, 3)


def test_board_geometry__cells_tile_the_board_inside_the_margins() -> None:
    geometry = BoardGeometry(rows=8, cols=8, cell_px=64, margin_right=56)
    assert geometry.size == (16 + 512 + 56, 16 + 512 + 16)
    assert geometry.cell_box((0, 0)) == (16, 16, 79, 79)
    assert geometry.cell_box((7, 7))[2:] == (16 + 512 - 1, 16 + 512 - 1)
    assert geometry.center((1, 2)) == (16 + 2 * 64 + 32, 16 + 64 + 32)
    assert geometry.block_box((4, 2), 2, 2) == (16 + 128, 16 + 256, 16 + 256 - 1, 16 + 384 - 1)
