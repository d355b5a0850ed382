"""Drawing pieces every family shares: board geometry, fonts, centred text, PNG bytes.

Rendering is pure: a function of the state alone, with Pillow's bundled font, so the
same state gives the same pixels on any machine with the same Pillow.

Two descriptions every family gives of its drawings live here too: ``AidStyle``, how its
oracle aid looks (``vgau_data.oracle_aids`` draws it), and ``TextMark``, a letter its board
shows (``vgau_data.fidelity.glyphs`` reads it back).
"""

from __future__ import annotations

import functools
import io
import struct
import zlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, Literal, ParamSpec, TypeVar

import numpy as np

from vgau_data.types import Cell

if TYPE_CHECKING:
    from PIL import Image, ImageDraw, ImageFont

PNG_COMPRESS_LEVEL = 1
"""zlib level for every PNG we write. Our Up-filtered boards are mostly zero rows, so level 1 is
within 1% of higher levels' bytes. zlib, not a faster deflate such as ISA-L: ISA-L level 1 once
gave two different (valid) streams for the same pixels in two builds, and zlib's output is a
function of its input by construction (it zeroes what its match search may read)."""
WEBP_METHOD = 0
WEBP_EFFORT = 90
"""Lossless WebP settings (libwebp ``method`` and, for lossless, ``quality`` = effort).

Measured on grid-annotated boards (``benchmarks/encoding.py``): method 0 at effort 90 is
45% of our PNG's bytes for ~2 ms more per image; effort 100 saves another 1.5% at twice
that extra time, and higher methods cost 2-100x more."""
ImageCodec = Literal["png", "webp"]
RGB = tuple[int, int, int]
Box = tuple[int, int, int, int]
"""(x0, y0, x1, y1) pixels, inclusive."""
BOARD_CACHE_SIZE = 8
"""How many whole-board images (a row's background, a style's empty lot) a renderer's cache keeps.

A background keyed by its grid is reused only by the steps of its own row, which are drawn one
after another; redrawing one takes ~0.2 ms and keeping one ~1.2 MB (RGB is 4 bytes a pixel in
Pillow). Measured with ``benchmarks/render_cache.py``: 8 loses no hit of the build's rows, where
256 kept ~120 MB a family after 100 rows and ~310 MB after 256."""
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
_FILTER_UP = 2


@dataclass(frozen=True, slots=True)
class BoardGeometry:
    """Where the cells of a board lie in its image.

    Cells are ``cell_px`` squares starting at ``(margin_left, margin_top)``; the image
    adds ``margin_right``/``margin_bottom`` (parking draws its exit there).
    """

    rows: int
    cols: int
    cell_px: int
    margin_left: int = 16
    margin_top: int = 16
    margin_right: int = 16
    margin_bottom: int = 16

    @property
    def size(self) -> tuple[int, int]:
        """(width, height) of the whole image."""
        return (
            self.margin_left + self.cols * self.cell_px + self.margin_right,
            self.margin_top + self.rows * self.cell_px + self.margin_bottom,
        )

    def cell_box(self, cell: Cell, inset: int = 0) -> tuple[int, int, int, int]:
        """(x0, y0, x1, y1) of a cell, shrunk by ``inset`` pixels on each side (inclusive)."""
        r, c = cell
        x0 = self.margin_left + c * self.cell_px + inset
        y0 = self.margin_top + r * self.cell_px + inset
        return (x0, y0, x0 + self.cell_px - 1 - 2 * inset, y0 + self.cell_px - 1 - 2 * inset)

    def block_box(self, cell: Cell, height: int, width: int, inset: int = 0) -> tuple[int, int, int, int]:
        """(x0, y0, x1, y1) of a ``height`` x ``width`` block whose top-left cell is ``cell``."""
        r, c = cell
        x0 = self.margin_left + c * self.cell_px + inset
        y0 = self.margin_top + r * self.cell_px + inset
        return (x0, y0, x0 + width * self.cell_px - 1 - 2 * inset, y0 + height * self.cell_px - 1 - 2 * inset)

    def center(self, cell: Cell) -> tuple[int, int]:
        """(x, y) pixel at the centre of a cell."""
        r, c = cell
        return (
            self.margin_left + c * self.cell_px + self.cell_px // 2,
            self.margin_top + r * self.cell_px + self.cell_px // 2,
        )


LabelAnchor = Literal["centre", "top_left"]
LABEL_OFFSET: tuple[int, int] = (4, 1)
"""Where a ``top_left`` label is drawn from, right of and below its cell's corner: the authors' (4, 2),
a pixel higher, so that path's labels clear the tips of its triangles."""


@dataclass(frozen=True, kw_only=True, slots=True)
class AidStyle:
    """How a family's oracle aid looks: the authors' ``_build_aux_overlay`` for it, in numbers.

    An aid is the board with grid lines on the cell boundaries and the ``(r,c)`` coordinate
    of each labelled cell, in Pillow's bundled font (the authors' use DejaVu Sans).

    Attributes:
        line_rgb: colour of the grid lines.
        line_px: their width.
        dash: ``(on, off)``: a dashed line (klotski) has a dash every ``on + off`` pixels, from
            its start to ``on`` pixels further, both ends drawn; None: solid lines.
        label_fraction: the labels' font size as a fraction of the cell side.
        label_anchor: ``"centre"`` (centred in the cell) or ``"top_left"`` (starting
            ``LABEL_OFFSET`` from the cell's top-left corner: path, clear of its letters).
        label_rgb: the labels' colour.
        label_halo: the colour of a 2 px halo around the labels; None (the authors'): plain text.
        labelled: words naming the labelled cells ("every cell"), for the prompts that show the aid.
        labelled_cells: ``state -> cells`` that carry a label; None: every cell.
        keep_clear: ``state -> boxes`` of the board's pixels the aid never draws on: the
            letters its lines would cross (parking's ids, klotski's T) or, for path, the
            walls, which the authors' lines skip; None: none.
    """

    line_rgb: RGB
    line_px: int
    dash: tuple[int, int] | None = None
    label_fraction: float
    label_anchor: LabelAnchor = "centre"
    label_rgb: RGB = (0, 0, 0)
    label_halo: RGB | None = None
    labelled: str = "every cell"
    labelled_cells: Callable[[Any], frozenset[tuple[int, int]]] | None = None
    keep_clear: Callable[[Any], Sequence[Box]] | None = None

    def label_px(self, geometry: BoardGeometry) -> int:
        """The labels' font size on a board of ``geometry``."""
        return int(geometry.cell_px * self.label_fraction)

    @property
    def drawing_key(self) -> AidStyle:
        """This style without what depends on a state (``labelled_cells``, ``keep_clear``, ``labelled``):
        all the grid layer's pixels depend on, so the aid of every render style, whose ``keep_clear``
        is bound to that style, shares one cached layer per board size."""
        return replace(self, labelled="", labelled_cells=None, keep_clear=None)


@dataclass(frozen=True, slots=True)
class TextMark:
    """A letter a board shows (a path label, a vehicle's id, klotski's T), as its renderer draws it.

    ``text`` is drawn with ``font(size)`` centred on ``xy`` (anchor ``"mm"``) in ``ink``,
    thickened by a ``stroke`` of the same colour, on ``ground`` (the colour beneath it).
    """

    text: str
    xy: tuple[int, int]
    size: int
    ink: RGB
    ground: RGB
    stroke: int = 0

    def box(self, margin: int = 0) -> Box:
        """The pixels the letter covers, grown by ``margin`` on each side (inclusive)."""
        mask, (cx, cy) = glyph_mask(self.text, self.size, self.stroke)
        x0, y0, x1, y1 = mask.getbbox() or (cx, cy, cx + 1, cy + 1)
        x, y = self.xy[0] - cx, self.xy[1] - cy
        return (x + x0 - margin, y + y0 - margin, x + x1 - 1 + margin, y + y1 - 1 + margin)


_P = ParamSpec("_P")
_T = TypeVar("_T")


def image_cache(maxsize: int) -> Callable[[Callable[_P, _T]], Callable[_P, _T]]:
    """``functools.lru_cache`` for drawings: each call returns its own copy of a cached image
    (also inside a returned tuple), and cached numpy arrays are read-only.

    Boards are drawn by pasting cached pieces, then drawn on in place (``assemble_row``
    annotates each step board). A caller that drew on a cached piece itself would change
    every later board that uses it, so a row's pixels would depend on which rows its worker
    drew before: copying at the cache boundary rules that out by construction, whatever the
    callers do. The wrapper keeps ``cache_info``/``cache_clear``; ``cached`` is the lru_cache.
    """

    def decorate(function: Callable[_P, _T]) -> Callable[_P, _T]:
        @functools.lru_cache(maxsize=maxsize)
        def cached(*args: Any, **kwargs: Any) -> Any:
            return _frozen(function(*args, **kwargs))

        @functools.wraps(function)
        def copying(*args: _P.args, **kwargs: _P.kwargs) -> _T:
            return _copied(cached(*args, **kwargs))

        copying.cached = cached  # type: ignore[attr-defined]
        copying.cache_info = cached.cache_info  # type: ignore[attr-defined]
        copying.cache_clear = cached.cache_clear  # type: ignore[attr-defined]
        return copying

    return decorate


def _frozen(value: Any) -> Any:
    """``value`` as cached: numpy arrays (also in a tuple) made read-only."""
    if isinstance(value, np.ndarray):
        value.flags.writeable = False
    elif isinstance(value, tuple):
        for item in value:
            _frozen(item)
    return value


def _copied(value: Any) -> Any:
    """``value`` with each PIL image (itself or in a tuple) replaced by a copy."""
    from PIL import Image

    if isinstance(value, Image.Image):
        return value.copy()
    if isinstance(value, tuple) and any(isinstance(item, Image.Image) for item in value):
        return tuple(item.copy() if isinstance(item, Image.Image) else item for item in value)
    return value


@image_cache(maxsize=256)
def glyph_mask(text: str, size: int, stroke: int = 0) -> tuple[Image.Image, tuple[int, int]]:
    """``text`` drawn as ``TextMark`` draws it, as an L coverage mask, and the point it is centred on."""
    from PIL import Image, ImageDraw

    side = 3 * size + 2 * stroke
    mask = Image.new("L", (side, side), 0)
    centre = (side // 2, side // 2)
    ImageDraw.Draw(mask).text(
        centre, text, font=font(size), fill=255, anchor="mm", stroke_width=stroke, stroke_fill=255
    )
    return mask, centre


@functools.cache
def font(size: int) -> ImageFont.FreeTypeFont:
    """Pillow's bundled scalable font at ``size`` px (no system or third-party fonts)."""
    from PIL import ImageFont

    return ImageFont.load_default(size=size)  # type: ignore[return-value]


def new_board(geometry: BoardGeometry, background: tuple[int, int, int]) -> Image.Image:
    """A blank RGB canvas of the board's size."""
    from PIL import Image

    return Image.new("RGB", geometry.size, background)


def framed_board(geometry: BoardGeometry, frame: tuple[int, int, int], inside: tuple[int, int, int]) -> Image.Image:
    """A canvas of the board's size in ``frame``, its cells' area filled with ``inside`` (a tray, a board)."""
    from PIL import ImageDraw

    image = new_board(geometry, frame)
    x0, y0, _, _ = geometry.cell_box((0, 0))
    _, _, x1, y1 = geometry.cell_box((geometry.rows - 1, geometry.cols - 1))
    ImageDraw.Draw(image).rectangle((x0, y0, x1, y1), fill=inside)
    return image


def draw_centered_text(
    draw: ImageDraw.ImageDraw,
    xy: tuple[int, int],
    text: str,
    size: int,
    fill: tuple[int, int, int],
    stroke: tuple[int, int, int] | None = None,
) -> None:
    """Draw ``text`` centred on ``xy`` (with an optional 2 px halo for legibility)."""
    draw.text(
        xy,
        text,
        font=font(size),
        fill=fill,
        anchor="mm",
        stroke_width=2 if stroke else 0,
        stroke_fill=stroke,
    )


def _png_chunk(tag: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + tag + data + struct.pack(">I", zlib.crc32(tag + data))


def png_bytes(image: Image.Image) -> bytes:
    """Encode ``image`` as an 8-bit RGB PNG: the same pixels always give the same bytes.

    Every scanline uses the PNG "Up" filter, computed in one numpy subtraction, then
    zlib at level 1. Boards are flat colour fields, so Up-filtered rows are mostly zeros;
    this is ~2.5 ms a board against ~8 ms for Pillow's adaptive filtering at level 6, and the
    build encodes ~18k images.

    Example:
        >>> import io
        >>> from PIL import Image
        >>> board = Image.new("RGB", (3, 2), (10, 200, 30))
        >>> Image.open(io.BytesIO(png_bytes(board))).convert("RGB").tobytes() == board.tobytes()
        True
    """
    pixels = np.asarray(image.convert("RGB") if image.mode != "RGB" else image, dtype=np.uint8)
    height, width, _ = pixels.shape
    rows = pixels.reshape(height, width * 3)
    filtered = np.empty((height, width * 3 + 1), dtype=np.uint8)
    filtered[:, 0] = _FILTER_UP
    filtered[0, 0] = 0  # the first row has no row above: filter "None"
    filtered[0, 1:] = rows[0]
    np.subtract(rows[1:], rows[:-1], out=filtered[1:, 1:])  # uint8 arithmetic wraps mod 256, as PNG wants
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)  # 8-bit truecolour, no interlace
    return (
        PNG_SIGNATURE
        + _png_chunk(b"IHDR", header)
        + _png_chunk(b"IDAT", zlib.compress(filtered, PNG_COMPRESS_LEVEL))  # numpy buffer, no copy
        + _png_chunk(b"IEND", b"")
    )


def webp_bytes(image: Image.Image) -> bytes:
    """Encode ``image`` as lossless RGB WebP (``WEBP_METHOD``/``WEBP_EFFORT``); decodes to the same pixels.

    Example:
        >>> from PIL import Image
        >>> board = Image.new("RGB", (3, 2), (10, 200, 30))
        >>> Image.open(io.BytesIO(webp_bytes(board))).convert("RGB").tobytes() == board.tobytes()
        True
    """
    buffer = io.BytesIO()
    rgb = image.convert("RGB") if image.mode != "RGB" else image
    rgb.save(buffer, "WEBP", lossless=True, method=WEBP_METHOD, quality=WEBP_EFFORT, exact=True)
    return buffer.getvalue()


def encode_image(image: Image.Image, codec: ImageCodec) -> bytes:
    """``png_bytes`` or ``webp_bytes``, by name."""
    if codec == "png":
        return png_bytes(image)
    if codec == "webp":
        return webp_bytes(image)
    raise ValueError(f"unknown image codec {codec!r}; choose 'png' or 'webp'")
