"""Bytes and encode time per image for PNG and lossless WebP settings, on a built dataset's own images.

    python benchmarks/encoding.py --dataset DIR [--rows 4] [--repeat 3]

For each family, the first ``--rows`` rows' plain boards (``image``, ``oracle_states``) and
grid-annotated boards (``oracle_aid``, ``oracle_aug_states``) are decoded, then re-encoded
with each candidate; the table gives KB per image, CPU ms per image (best of ``--repeat``)
and whether every image decodes back to the same pixels.
"""

from __future__ import annotations

import argparse
import io
import time
from collections.abc import Callable

from PIL import Image

from vgau_data.builders.load import read_config_columns
from vgau_data.registry import FAMILIES
from vgau_data.rendering import png_bytes

KINDS = {"plain": ("image", "oracle_states"), "annotated": ("oracle_aid", "oracle_aug_states")}


def webp(method: int, effort: int) -> Callable[[Image.Image], bytes]:
    def encode(image: Image.Image) -> bytes:
        buffer = io.BytesIO()
        image.save(buffer, "WEBP", lossless=True, method=method, quality=effort, exact=True)
        return buffer.getvalue()

    return encode


def pillow_png(level: int) -> Callable[[Image.Image], bytes]:
    def encode(image: Image.Image) -> bytes:
        buffer = io.BytesIO()
        image.save(buffer, "PNG", compress_level=level)
        return buffer.getvalue()

    return encode


CANDIDATES: dict[str, Callable[[Image.Image], bytes]] = {
    "png (ours: Up filter, zlib 1)": png_bytes,
    "png (Pillow, level 6)": pillow_png(6),
    **{f"webp lossless m{m} q{q}": webp(m, q) for m, q in ((0, 50), (0, 75), (0, 90), (0, 100), (1, 0), (1, 100),
                                                            (4, 50))},
}


def load_images(dataset: str, rows: int) -> dict[str, list[Image.Image]]:
    images: dict[str, list[Image.Image]] = {kind: [] for kind in KINDS}
    for family in FAMILIES:
        for row in read_config_columns(dataset, family, [c for cs in KINDS.values() for c in cs])[:rows]:
            for kind, columns in KINDS.items():
                for column in columns:
                    cells = row[column] if isinstance(row[column], list) else [row[column]]
                    images[kind] += [Image.open(io.BytesIO(cell["bytes"])).convert("RGB") for cell in cells]
    return images


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--dataset", required=True, help="a folder built by `vgau-data build`")
    parser.add_argument("--rows", type=int, default=4, help="rows per family (default 4)")
    parser.add_argument("--repeat", type=int, default=3, help="timing repeats; the best is kept (default 3)")
    args = parser.parse_args()
    images = load_images(args.dataset, args.rows)
    print(f"{'kind':<10} {'codec':<31} {'KB/img':>7} {'ms/img':>7}  same pixels")
    for kind, sample in images.items():
        pixels = [image.tobytes() for image in sample]
        for name, encode in CANDIDATES.items():
            best = float("inf")
            for _ in range(args.repeat):
                start = time.process_time()
                data = [encode(image) for image in sample]
                best = min(best, time.process_time() - start)
            same = all(Image.open(io.BytesIO(d)).convert("RGB").tobytes() == p for d, p in zip(data, pixels))
            print(f"{kind:<10} {name:<31} {sum(map(len, data)) / len(data) / 1024:7.1f} "
                  f"{1000 * best / len(sample):7.2f}  {same} (n={len(sample)})")


if __name__ == "__main__":
    main()
