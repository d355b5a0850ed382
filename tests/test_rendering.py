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


def test_image_cache__a_caller_drawing_on_what_it_got_changes_no_later_call() -> None:
    from PIL import ImageDraw

    from vgau_data.rendering import image_cache

    @image_cache(maxsize=4)
    def pieces(side: int) -> tuple[Image.Image, np.ndarray, int]:
        return Image.new("RGB", (side, side), (10, 20, 30)), np.zeros((side, side), dtype=bool), side

    image, array, side = pieces(8)
    ImageDraw.Draw(image).rectangle((0, 0, 7, 7), fill=(255, 0, 0))  # as assemble_row annotates a board in place
    image.paste((0, 255, 0), (0, 0, 4, 4))
    with pytest.raises(ValueError, match="read-only"):
        array[0, 0] = True
    again, _, _ = pieces(8)
    assert again.getcolors() == [(64, (10, 20, 30))] and again is not image
    assert pieces.cache_info().hits == 1 and side == 8


def test_image_cache__every_package_cache_that_keeps_images_or_arrays_is_one() -> None:
    """By construction: no functools cache of the package hands out a cached image or array itself."""
    import functools
    import importlib
    import pkgutil
    import sys

    import vgau_data

    skipped = ("__main__", ".integrations.", ".rewards.", ".runners.", ".cli.")  # draw nothing; optional imports
    for module in pkgutil.walk_packages(vgau_data.__path__, "vgau_data."):
        if not any(part in module.name for part in skipped):
            importlib.import_module(module.name)
    lru = type(functools.lru_cache(maxsize=1)(lambda: None))
    offenders = []
    for name, module in list(sys.modules.items()):
        if not name.startswith("vgau_data.") or module is None:
            continue
        for attr, value in vars(module).items():
            if isinstance(value, lru) and getattr(value, "__module__", None) == name:
                returns = str(value.__wrapped__.__annotations__.get("return", ""))  # a string: postponed annotations
                if "Image.Image" in returns or "ndarray" in returns:
                    offenders.append(f"{name}.{attr}")
    assert offenders == []
