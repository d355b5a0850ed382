"""Render styles: the benchmark's look, seeded variety for training rows, and a held-out look.

A ``RenderStyle`` is three knobs every family honours: a palette variant (each colour of
the board moved in saturation, lightness or a few degrees of hue, never out of the colour
word its prompts use: the blue agent stays blue), a line scale (the widths of outlines,
strokes and braces) and a cell scale (the cell side, margins, insets, letters and sprites
drawn natively at that size, not resampled). ``BENCHMARK_STYLE``, the default, is today's
rendering exactly: every knob at its identity gives the same numbers, so the same bytes.

``sample_style(seed)`` draws a training style from ``TRAINING_PALETTES``, ``TRAINING_LINE_SCALES``
and ``TRAINING_CELL_SCALES``; it never returns ``BENCHMARK_STYLE`` unless asked
(``include_benchmark=True``), and never a value of ``OOD_STYLE``, whose palette, line scale
and cell scale are each outside those sets: validation in it measures what a model learnt
about the puzzle, not about one look.

``FamilySpec.styled(style)`` is the family as drawn in a style (its ``geometry``,
``render``, ``aid`` and letters replaced, from the family's ``styles`` capability), so every
consumer that talks to a family through its spec (oracle aids, solution drawings, the cell,
route and glyph readers) works on any style unchanged.
"""

from __future__ import annotations

import colorsys
import dataclasses
import functools
import hashlib
import json
from dataclasses import dataclass
from typing import TYPE_CHECKING, Final

from vgau_data.errors import VgauError

if TYPE_CHECKING:
    from vgau_data.rendering import RGB, BoardGeometry


@dataclass(frozen=True, slots=True)
class PaletteShift:
    """A palette variant: each colour's hue turned by ``hue_deg``, saturation scaled by
    ``saturation`` (capped at 1) and lightness moved ``lightness`` of the way to white
    (positive) or to black (negative), in HLS."""

    hue_deg: float = 0.0
    saturation: float = 1.0
    lightness: float = 0.0

    def apply(self, rgb: RGB) -> RGB:
        h, light, s = colorsys.rgb_to_hls(*(v / 255 for v in rgb))
        h = (h + self.hue_deg / 360) % 1.0
        s = min(1.0, s * self.saturation)
        light = light + self.lightness * (1 - light) if self.lightness >= 0 else light * (1 + self.lightness)
        r, g, b = colorsys.hls_to_rgb(h, light, s)
        return (round(r * 255), round(g * 255), round(b * 255))


BENCHMARK_PALETTE: Final = "benchmark"
PALETTES: Final[dict[str, PaletteShift]] = {
    BENCHMARK_PALETTE: PaletteShift(),
    "soft": PaletteShift(saturation=0.8, lightness=0.08),
    "light": PaletteShift(saturation=0.85, lightness=0.1),
    "muted": PaletteShift(saturation=0.75),
    "warm": PaletteShift(hue_deg=6.0),
    "dim": PaletteShift(hue_deg=4.0, lightness=-0.08),
    "faded": PaletteShift(saturation=0.62, lightness=0.1),
}
"""Every palette variant by name. The shifts stay small enough that each colour keeps the
name its family's prompts give it (checked for the colours the prompts name in the tests)."""

TRAINING_PALETTES: Final = ("benchmark", "soft", "light", "muted", "warm", "dim")
TRAINING_LINE_SCALES: Final = (0.75, 1.0, 1.5)
TRAINING_CELL_SCALES: Final = (0.75, 0.875, 1.0, 1.125, 1.25)


@dataclass(frozen=True, slots=True)
class RenderStyle:
    """How a board is drawn: a palette variant (``PALETTES``), a line scale and a cell scale.

    Scales are multiples of the family's own sizes; 1.0 and ``"benchmark"`` draw the
    benchmark's board exactly.

    Example:
        >>> RenderStyle().is_benchmark, RenderStyle("soft", 1.5, 0.75).px(52)
        (True, 39)
    """

    palette: str = BENCHMARK_PALETTE
    line_scale: float = 1.0
    cell_scale: float = 1.0

    def __post_init__(self) -> None:
        if not isinstance(self.palette, str) or self.palette not in PALETTES:
            raise VgauError(f"unknown palette {self.palette!r:.40}; choose from {', '.join(PALETTES)}")
        for name in ("line_scale", "cell_scale"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0.5 <= value <= 2.0:
                raise VgauError(f"{name} must be a number from 0.5 to 2.0, got {value!r}")
            object.__setattr__(self, name, float(value))

    @property
    def is_benchmark(self) -> bool:
        return self == BENCHMARK_STYLE

    @property
    def name(self) -> str:
        """``soft-l1.5-c0.75``: the style in a few characters (file names, tables)."""
        return f"{self.palette}-l{self.line_scale:g}-c{self.cell_scale:g}"

    def px(self, n: int) -> int:
        """A size or offset of the benchmark board (pixels) at this cell scale: never 0 unless ``n`` is, signed as ``n``."""
        if self.cell_scale == 1.0 or n == 0:
            return n
        size = max(1, round(abs(n) * self.cell_scale))
        return size if n > 0 else -size

    def line(self, n: int) -> int:
        """A line width of the benchmark board at this line and cell scale (at least 1 px)."""
        scale = self.line_scale * self.cell_scale
        return n if scale == 1.0 else max(1, round(n * scale))

    def rgb(self, colour: RGB) -> RGB:
        """A colour of the benchmark board in this palette."""
        return colour if self.palette == BENCHMARK_PALETTE else PALETTES[self.palette].apply(colour)

    def geometry(self, base: BoardGeometry) -> BoardGeometry:
        """``base`` (the benchmark geometry) with its cell side and margins at this cell scale."""
        if self.cell_scale == 1.0:
            return base
        return dataclasses.replace(
            base,
            cell_px=self.px(base.cell_px),
            margin_left=self.px(base.margin_left),
            margin_top=self.px(base.margin_top),
            margin_right=self.px(base.margin_right),
            margin_bottom=self.px(base.margin_bottom),
        )

    def to_json(self) -> str:
        """Canonical JSON, the ``render_style`` column of a generated row."""
        return json.dumps(dataclasses.asdict(self), sort_keys=True, separators=(",", ":"))

    @classmethod
    def from_json(cls, text: str) -> RenderStyle:
        """The style a row stored (``to_json``); a one-line ``VgauError`` for anything else."""
        try:
            value = json.loads(text) if len(text) <= 200 else None
        except (TypeError, ValueError):
            value = None
        if not isinstance(value, dict) or set(value) != {"palette", "line_scale", "cell_scale"}:
            raise VgauError(f"not a render style: {str(text)[:80]!r}")
        return cls(**value)


STYLE_COLUMN: Final = "render_style"
"""The column (and export metadata key) holding a row's style JSON; a benchmark row has none."""


def parse_render_style(value: object, where: str) -> RenderStyle | None:
    """The style a row's ``render_style`` cell (or metadata key) holds: None for a row drawn in the
    benchmark's look (no value), the style for its JSON (``RenderStyle.to_json``) or a ``RenderStyle``.

    Raises:
        VgauError: one line, ``"<where>: not a render style: ..."``, for anything else.

    Example:
        >>> parse_render_style('{"cell_scale":1.5,"line_scale":2.0,"palette":"faded"}', "row 7") == OOD_STYLE
        True
    """
    if value is None or isinstance(value, RenderStyle):
        return value
    if not isinstance(value, str):
        raise VgauError(f"{where}: not a render style: a {type(value).__name__}, not the style's JSON string")
    try:
        return _style_of_json(value)
    except VgauError as error:
        raise VgauError(f"{where}: {error}") from None


@functools.lru_cache(maxsize=1024)
def _style_of_json(text: str) -> RenderStyle:
    """``RenderStyle.from_json``, cached: every step and reward of a row reads the same string."""
    return RenderStyle.from_json(text)


BENCHMARK_STYLE: Final = RenderStyle()
"""The benchmark's own look: the 600 test rows are drawn in it."""
OOD_STYLE: Final = RenderStyle("faded", line_scale=2.0, cell_scale=1.5)
"""The held-out look of the out-of-distribution validation split: no training style shares
its palette, its line scale or its cell scale."""


@functools.cache
def training_styles(include_benchmark: bool = False) -> tuple[RenderStyle, ...]:
    """Every style ``sample_style`` may return, in a fixed order."""
    styles = (
        RenderStyle(palette, line, cell)
        for palette in TRAINING_PALETTES
        for line in TRAINING_LINE_SCALES
        for cell in TRAINING_CELL_SCALES
    )
    return tuple(s for s in styles if include_benchmark or not s.is_benchmark)


def sample_style(seed: int, include_benchmark: bool = False) -> RenderStyle:
    """The training style of a row seeded ``seed``: uniform over ``training_styles``.

    The draw depends on ``seed`` alone (hashed with SHA-256, so neighbouring seeds are
    unrelated, and no library's random generator can change it) and never returns the
    benchmark style unless ``include_benchmark``.

    Example:
        >>> sample_style(7) == sample_style(7), sample_style(7).is_benchmark
        (True, False)
    """
    choices = training_styles(include_benchmark)
    digest = hashlib.sha256(f"vgau-render-style/{int(seed)}".encode()).digest()
    return choices[int.from_bytes(digest[:8], "little") % len(choices)]

