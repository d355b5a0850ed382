"""How an onet board looks: fruit tiles drawn in code on a plain board (``onet.SPEC.render``).

Kept apart from the rules because the eighteen fruit drawings are most of its lines.
Each fruit is a small vector drawing on a supersampled tile, scaled down once and cached.
The fruit names are ``state.FRUITS``; a drawing exists for each (checked by the tests).
``AID`` is the oracle aid's look (the authors' onet overlay); ``STYLES`` draws the same board
in any render style.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, Final

import numpy as np

from vgau_data.puzzles.capabilities import Styles
from vgau_data.puzzles.onet.state import SIZE, OnetState
from vgau_data.render_styles import BENCHMARK_STYLE, RenderStyle
from vgau_data.rendering import AidStyle, BoardGeometry, image_cache, new_board

if TYPE_CHECKING:
    from PIL import Image

GEOMETRY: Final = BoardGeometry(rows=SIZE, cols=SIZE, cell_px=88)
BACKGROUND: Final = (236, 232, 220)
"""Empty cells and margins: plain light sand."""
TILE_FILL: Final = (255, 253, 247)
TILE_EDGE: Final = (190, 178, 156)
TILE_INSET: Final = 4
_SUPERSAMPLE: Final = 4


# --------------------------------------------------------------------------- fruit drawings


class _Pen:
    """Draws on a supersampled tile in a 0-100 coordinate frame."""

    def __init__(self, image: Image.Image, style: RenderStyle = BENCHMARK_STYLE) -> None:
        from PIL import ImageDraw

        self.image = image
        self.draw = ImageDraw.Draw(image)
        self.k = image.size[0] / 100.0
        self.w = self.k * style.line_scale
        self.style = style

    def colour(self, fill: Any) -> Any:
        """A drawing's colour in the pen's palette (a mask's 0-255 levels as they are)."""
        return self.style.rgb(fill) if isinstance(fill, tuple) else fill

    def _xy(self, points: Sequence[tuple[float, float]]) -> list[tuple[float, float]]:
        return [(x * self.k, y * self.k) for x, y in points]

    def ellipse(self, x0: float, y0: float, x1: float, y1: float, fill: Any, outline: Any = None, width: float = 0) -> None:
        self.draw.ellipse(
            [x0 * self.k, y0 * self.k, x1 * self.k, y1 * self.k],
            fill=self.colour(fill),
            outline=self.colour(outline),
            width=round(width * self.w),
        )

    def circle(self, cx: float, cy: float, r: float, fill: Any, outline: Any = None, width: float = 0) -> None:
        self.ellipse(cx - r, cy - r, cx + r, cy + r, fill, outline, width)

    def polygon(self, points: Sequence[tuple[float, float]], fill: Any, outline: Any = None, width: float = 0) -> None:
        fill, outline = self.colour(fill), self.colour(outline)
        self.draw.polygon(self._xy(points), fill=fill, outline=outline, width=round(width * self.w))

    def line(self, points: Sequence[tuple[float, float]], fill: Any, width: float) -> None:
        self.draw.line(self._xy(points), fill=self.colour(fill), width=max(1, round(width * self.w)), joint="curve")

    def pieslice(self, box: tuple[float, float, float, float], start: float, end: float, fill: Any) -> None:
        self.draw.pieslice([v * self.k for v in box], start, end, fill=self.colour(fill))


def _arc(cx: float, cy: float, rx: float, ry: float, start: float, end: float, n: int = 24) -> list[tuple[float, float]]:
    """Points on an elliptical arc, angles in degrees (0 = right, 90 = down)."""
    return [
        (cx + rx * math.cos(math.radians(a)), cy + ry * math.sin(math.radians(a)))
        for a in np.linspace(start, end, n).tolist()
    ]


def _leaf(pen: _Pen, x: float, y: float, length: float, angle: float, fill: Any) -> None:
    """A pointed leaf from ``(x, y)`` of ``length`` towards ``angle`` degrees."""
    a = math.radians(angle)
    ux, uy = math.cos(a), math.sin(a)
    nx, ny = -uy, ux
    w = length * 0.32
    pts = [(x, y)]
    for t in np.linspace(0.1, 0.9, 7).tolist():
        bulge = w * math.sin(math.pi * t)
        pts.append((x + ux * length * t + nx * bulge, y + uy * length * t + ny * bulge))
    pts.append((x + ux * length, y + uy * length))
    for t in np.linspace(0.9, 0.1, 7).tolist():
        bulge = w * math.sin(math.pi * t)
        pts.append((x + ux * length * t - nx * bulge, y + uy * length * t - ny * bulge))
    pen.polygon(pts, fill)


_LEAF = (74, 160, 58)
_STEM = (110, 72, 36)
_SHINE = (255, 255, 255)


def _apple(p: _Pen) -> None:
    p.line([(50, 34), (53, 14)], _STEM, 4)
    _leaf(p, 54, 20, 22, -25, _LEAF)
    p.ellipse(16, 28, 56, 86, (205, 28, 38))
    p.ellipse(44, 28, 84, 86, (205, 28, 38))
    p.ellipse(22, 40, 78, 88, (205, 28, 38))
    p.ellipse(27, 38, 36, 52, (250, 150, 150))


def _avocado(p: _Pen) -> None:
    outer = (54, 96, 30)
    p.circle(50, 34, 20, outer)
    p.circle(50, 62, 30, outer)
    p.polygon([(30, 36), (70, 36), (80, 62), (20, 62)], outer)
    flesh = (214, 226, 128)
    p.circle(50, 35, 15, flesh)
    p.circle(50, 62, 25, flesh)
    p.polygon([(35, 37), (65, 37), (75, 62), (25, 62)], flesh)
    p.circle(50, 64, 13, (140, 86, 42))
    p.circle(46, 60, 4, (186, 130, 80))


def _banana(p: _Pen) -> None:
    outer = _arc(50, 8, 42, 66, 152, 28)
    inner = _arc(50, 6, 32, 46, 36, 144)
    p.polygon(outer + inner, (248, 208, 40), outline=(196, 150, 20), width=2)
    p.line([outer[0], (6, 36)], (96, 64, 24), 5)
    p.circle(outer[-1][0] - 1, outer[-1][1] - 1, 3, (96, 64, 24))


def _blueberry(p: _Pen) -> None:
    for cx, cy in ((32, 40), (68, 42), (50, 70)):
        p.circle(cx, cy, 19, (52, 74, 168))
        p.circle(cx - 7, cy - 7, 4, (130, 150, 220))
        star = [
            (cx + (6 if k % 2 == 0 else 2.5) * math.cos(math.radians(90 + 72 * k / 2)),
             cy + (6 if k % 2 == 0 else 2.5) * math.sin(math.radians(90 + 72 * k / 2)))
            for k in range(10)
        ]
        p.polygon(star, (24, 34, 80))


def _cherry(p: _Pen) -> None:
    p.line([(32, 64), (40, 38), (56, 16)], (70, 130, 40), 4)
    p.line([(68, 68), (62, 40), (56, 16)], (70, 130, 40), 4)
    _leaf(p, 57, 17, 20, -10, _LEAF)
    for cx, cy in ((30, 68), (68, 72)):
        p.circle(cx, cy, 16, (176, 12, 44))
        p.circle(cx - 6, cy - 6, 4, (240, 130, 150))


def _coconut(p: _Pen) -> None:
    p.circle(50, 52, 36, (104, 66, 36))
    for a in range(0, 360, 30):
        x0 = 50 + 30 * math.cos(math.radians(a))
        y0 = 52 + 30 * math.sin(math.radians(a))
        x1 = 50 + 35 * math.cos(math.radians(a + 8))
        y1 = 52 + 35 * math.sin(math.radians(a + 8))
        p.line([(x0, y0), (x1, y1)], (150, 108, 66), 2)
    for cx, cy in ((41, 40), (59, 40), (50, 55)):
        p.circle(cx, cy, 6, (44, 26, 14))


def _dragonfruit(p: _Pen) -> None:
    pink = (226, 48, 140)
    for cx, cy, ang in ((22, 50, 200), (78, 50, -20), (30, 76, 150), (70, 76, 30), (50, 18, -90)):
        _leaf(p, cx + (50 - cx) * 0.1, cy + (50 - cy) * 0.1, 20, ang, (96, 180, 60))
    p.ellipse(22, 22, 78, 88, pink)
    for cx, cy, ang in ((34, 46, 210), (66, 46, -30), (40, 70, 160), (60, 70, 20), (50, 32, -90)):
        _leaf(p, cx, cy, 15, ang, (140, 200, 70))


def _grape(p: _Pen) -> None:
    p.line([(50, 26), (54, 10)], _STEM, 4)
    _leaf(p, 54, 18, 22, -20, _LEAF)
    purple = (118, 52, 160)
    for cx, cy in ((30, 34), (50, 32), (70, 34), (40, 51), (60, 51), (50, 69), (30, 52), (70, 52)):
        if (cx, cy) in ((30, 52), (70, 52)):
            continue
        p.circle(cx, cy, 11, purple, outline=(80, 28, 112), width=1.5)
        p.circle(cx - 4, cy - 4, 2.5, (196, 160, 226))
    p.circle(50, 85, 9, purple, outline=(80, 28, 112), width=1.5)


def _kiwi(p: _Pen) -> None:
    p.circle(50, 50, 37, (124, 90, 50))
    p.circle(50, 50, 32, (134, 196, 58))
    p.circle(50, 50, 11, (236, 240, 196))
    for k in range(12):
        a = math.radians(k * 30 + 15)
        p.ellipse(50 + 17 * math.cos(a) - 2, 50 + 17 * math.sin(a) - 2, 50 + 17 * math.cos(a) + 2, 50 + 17 * math.sin(a) + 2, (20, 20, 16))


def _lemon(p: _Pen) -> None:
    yellow = (250, 234, 74)
    p.polygon([(8, 50), (20, 42), (20, 58)], yellow)
    p.polygon([(92, 50), (80, 42), (80, 58)], yellow)
    p.ellipse(14, 24, 86, 76, yellow, outline=(214, 186, 30), width=2)
    p.ellipse(30, 32, 48, 40, (255, 250, 196))


def _lime(p: _Pen) -> None:
    p.circle(50, 50, 37, (52, 128, 36))
    p.circle(50, 50, 32, (230, 244, 200))
    flesh = (160, 212, 84)
    for k in range(8):
        p.pieslice((21, 21, 79, 79), k * 45 + 4, k * 45 + 41, flesh)
    p.circle(50, 50, 4, (230, 244, 200))


def _orange(p: _Pen) -> None:
    p.circle(50, 54, 34, (246, 138, 20))
    _leaf(p, 52, 22, 22, -30, _LEAF)
    p.circle(50, 22, 3, (110, 72, 36))
    for cx, cy in ((38, 58), (60, 46), (58, 70), (40, 76), (70, 62)):
        p.circle(cx, cy, 1.5, (214, 106, 10))
    p.ellipse(30, 36, 40, 48, (252, 196, 130))


def _peach(p: _Pen) -> None:
    p.circle(50, 56, 32, (250, 184, 124))
    p.pieslice((18, 24, 82, 88), 280, 80, (242, 122, 96))
    p.line(_arc(64, 56, 14, 30, 200, 150, 12)[::-1], (204, 96, 74), 2.5)
    _leaf(p, 50, 26, 22, -150, _LEAF)
    p.line([(50, 28), (52, 18)], _STEM, 4)


def _pear(p: _Pen) -> None:
    green = (176, 204, 58)
    p.circle(50, 36, 15, green)
    p.circle(50, 64, 25, green)
    p.polygon([(35, 38), (65, 38), (74, 60), (26, 60)], green)
    p.line([(50, 24), (54, 8)], _STEM, 4)
    _leaf(p, 53, 14, 18, -10, _LEAF)
    p.ellipse(32, 56, 40, 70, (222, 236, 150))


def _pineapple(p: _Pen) -> None:
    from PIL import Image, ImageChops

    crown = (44, 140, 62)
    for x1 in (30, 40, 50, 60, 70):
        p.polygon([(44, 40), (56, 40), (x1, 6 + abs(x1 - 50) * 0.5)], crown)
    p.ellipse(26, 34, 74, 92, (232, 168, 36))
    hatch = Image.new("L", p.image.size, 0)
    hatch_pen = _Pen(hatch)
    for k in range(-3, 4):
        hatch_pen.line([(30 + k * 10, 38), (74 + k * 10, 90)], 255, 1.8)
        hatch_pen.line([(70 - k * 10, 38), (26 - k * 10, 90)], 255, 1.8)
    body = Image.new("L", p.image.size, 0)
    _Pen(body).ellipse(28, 36, 72, 90, 255)
    p.image.paste(p.colour((166, 104, 20)), (0, 0), ImageChops.multiply(hatch, body))


def _plum(p: _Pen) -> None:
    p.line([(50, 26), (46, 12)], _STEM, 4)
    p.ellipse(22, 22, 78, 88, (128, 26, 82))
    p.line(_arc(40, 55, 12, 30, -70, 70, 12), (96, 14, 60), 2.5)
    p.ellipse(58, 36, 66, 52, (200, 120, 170))


def _strawberry(p: _Pen) -> None:
    red = (238, 46, 66)
    body = _arc(50, 36, 34, 16, 180, 360, 16) + [(80, 44), (66, 76), (50, 90), (34, 76), (20, 44)]
    p.polygon(body, red)
    p.ellipse(16, 24, 84, 54, red)
    for cx, cy in ((34, 44), (50, 46), (66, 44), (42, 60), (58, 60), (50, 74), (30, 56), (70, 56)):
        p.ellipse(cx - 1.6, cy - 2.6, cx + 1.6, cy + 2.6, (255, 226, 90))
    for angle in (-160, -120, -90, -60, -20, 20, 60):  # sepals, two tucked over the body
        _leaf(p, 50, 26, 18, angle, (56, 150, 52))


def _watermelon(p: _Pen) -> None:
    p.pieslice((8, -4, 92, 80), 0, 180, (40, 120, 40))
    p.pieslice((13, 1, 87, 75), 0, 180, (200, 236, 160))
    p.pieslice((17, 5, 83, 71), 0, 180, (236, 56, 66))
    for cx, cy in ((34, 46), (50, 50), (66, 46), (42, 60), (58, 60)):
        p.ellipse(cx - 2, cy - 3, cx + 2, cy + 3, (30, 20, 20))


FRUIT_DRAWINGS: Final[dict[str, Callable[[_Pen], None]]] = {
    "apple": _apple,
    "avocado": _avocado,
    "banana": _banana,
    "blueberry": _blueberry,
    "cherry": _cherry,
    "coconut": _coconut,
    "dragonfruit": _dragonfruit,
    "grape": _grape,
    "kiwi": _kiwi,
    "lemon": _lemon,
    "lime": _lime,
    "orange": _orange,
    "peach": _peach,
    "pear": _pear,
    "pineapple": _pineapple,
    "plum": _plum,
    "strawberry": _strawberry,
    "watermelon": _watermelon,
}


@image_cache(maxsize=2048)
def _sprite(fruit: str, style: RenderStyle) -> Image.Image:
    """The tile of one fruit, ``cell_px - 2 * TILE_INSET`` square, drawn once."""
    from PIL import Image, ImageDraw

    side = style.px(GEOMETRY.cell_px) - 2 * style.px(TILE_INSET)
    big = side * _SUPERSAMPLE
    image = Image.new("RGB", (big, big), style.rgb(BACKGROUND))
    draw = ImageDraw.Draw(image)
    draw.rounded_rectangle(
        [0, 0, big - 1, big - 1],
        radius=style.px(10) * _SUPERSAMPLE,
        fill=style.rgb(TILE_FILL),
        outline=style.rgb(TILE_EDGE),
        width=style.line(2) * _SUPERSAMPLE,
    )
    FRUIT_DRAWINGS[fruit](_Pen(image, style))
    return image.resize((side, side), Image.Resampling.LANCZOS)


def render(state: OnetState, style: RenderStyle = BENCHMARK_STYLE) -> Image.Image:
    """The board as an RGB image of ``GEOMETRY.size``: fruit tiles on a plain background.

    Example:
        >>> from vgau_data.puzzles.onet.state import from_ascii
        >>> render(from_ascii(["AA....", *["......"] * 5])).size
        (560, 560)
    """
    geometry, inset = style.geometry(GEOMETRY), style.px(TILE_INSET)
    image = new_board(geometry, style.rgb(BACKGROUND))  # a filled canvas is as quick to make as a cached one to copy
    for r, row in enumerate(state.board):
        for c, fruit in enumerate(row):
            if fruit is not None:
                image.paste(_sprite(fruit, style), geometry.cell_box((r, c), inset=inset)[:2])
    return image


AID: Final = AidStyle(line_rgb=(255, 0, 0), line_px=2, label_fraction=0.2)
"""The authors' onet aid: solid pure-red lines 2 px wide, every cell's label at its centre at
20% of the cell side."""


STYLES: Final = Styles.drawn(GEOMETRY, render, AID)
"""The same board in any render style (docs/render-styles.md)."""
