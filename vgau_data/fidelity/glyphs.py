"""Reading a board's letters back: path's A-E, parking's vehicle ids, klotski's T.

A letter (a ``TextMark`` of the family's ``fidelity.text_marks``) is read where its
renderer draws it: the pixels nearer its ink colour than half-way to the colour beneath
it form a mask, which is compared with every capital letter drawn the same way (same
font, size and stroke, centred on the same point) by intersection over union. The letter
read is the best match; it is legible when that is the drawn letter, matching at least
``MIN_IOU`` and beating every other letter by ``MIN_MARGIN``. Whatever is drawn over a
letter (a label's black text, a white halo, a red line) adds or removes ink, so a covered
letter stops reading as itself: the oracle aids are checked with this (their labels and
lines must leave every letter legible).
"""

from __future__ import annotations

import string
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Final

import numpy as np
from PIL import Image

from vgau_data.puzzles.base import FamilySpec
from vgau_data.rendering import Box, TextMark, glyph_mask, image_cache

ALPHABET: Final = string.ascii_uppercase
"""The letters a mark is told apart from."""
MIN_IOU: Final = 0.9
"""Smallest intersection over union at which the best-matching letter is legible. Our boards'
letters match at 0.94 or more (path's on the orange marker lowest); a centred label over one
leaves at most 0.64, a red line across one at most 0.88."""
MIN_MARGIN: Final = 0.05
"""How much better the drawn letter must match than any other (close pairs, O and Q, differ by 0.08)."""


@dataclass(frozen=True, slots=True)
class GlyphReading:
    """What was read at a mark: the best-matching letter, its match and the best other letter's."""

    mark: TextMark
    read: str
    match: float
    runner_up: float

    @property
    def legible(self) -> bool:
        """The mark reads as its own letter, clearly."""
        return self.read == self.mark.text and self.match >= MIN_IOU and self.match - self.runner_up >= MIN_MARGIN


@image_cache(maxsize=64)
def _templates(size: int, stroke: int, alphabet: str) -> tuple[Box, np.ndarray]:
    """The window every letter of ``alphabet`` fits in (relative to the centre point) and their masks in it."""
    masks = [glyph_mask(letter, size, stroke) for letter in alphabet]
    _, (cx, cy) = masks[0]
    boxes = [mask.getbbox() or (cx, cy, cx + 1, cy + 1) for mask, _ in masks]
    x0, y0 = min(b[0] for b in boxes), min(b[1] for b in boxes)
    x1, y1 = max(b[2] for b in boxes), max(b[3] for b in boxes)
    stack = np.stack([np.asarray(mask.crop((x0, y0, x1, y1))) > 127 for mask, _ in masks])
    return (x0 - cx, y0 - cy, x1 - cx, y1 - cy), stack


def read_glyph(image: Image.Image, mark: TextMark, alphabet: str = ALPHABET) -> GlyphReading:
    """Read the letter drawn at ``mark``'s place in ``image`` (a board at its own size).

    Example:
        >>> from vgau_data.registry import get_family
        >>> path = get_family("path")
        >>> state = path.fidelity.palette_states()[0]
        >>> mark = path.fidelity.text_marks(state)[0]
        >>> reading = read_glyph(path.render(state), mark)
        >>> reading.read == mark.text, reading.legible
        (True, True)
    """
    (dx0, dy0, dx1, dy1), templates = _templates(mark.size, mark.stroke, alphabet)
    x, y = mark.xy
    window = np.zeros((dy1 - dy0, dx1 - dx0, 3), dtype=np.int16)
    crop = np.asarray(image.convert("RGB").crop((x + dx0, y + dy0, x + dx1, y + dy1)), dtype=np.int16)
    window[: crop.shape[0], : crop.shape[1]] = crop  # Pillow pads a crop past the edge with black
    ink = np.asarray(mark.ink, dtype=np.int16)
    reach = np.abs(np.asarray(mark.ground, dtype=np.int16) - ink).max() / 2
    inked = np.abs(window - ink).max(axis=2) < reach
    overlap = (templates & inked).sum(axis=(1, 2))
    union = (templates | inked).sum(axis=(1, 2))
    scores = overlap / np.maximum(union, 1)
    order = np.argsort(-scores, kind="stable")
    best = int(order[0])
    others = [float(scores[i]) for i in order if alphabet[i] != alphabet[best]]
    return GlyphReading(mark, alphabet[best], float(scores[best]), others[0] if others else 0.0)


def read_glyphs(family: FamilySpec, image: Image.Image, state: Any) -> tuple[GlyphReading, ...]:
    """Every letter ``state``'s board shows, read from ``image`` (scaled to the board's size first).

    Raises:
        ValueError: the family declares no letters (``fidelity.text_marks`` is None).
    """
    if family.fidelity is None or family.fidelity.text_marks is None:
        raise ValueError(f"family {family.name!r} declares no letters (FamilySpec.fidelity.text_marks)")
    if image.size != family.geometry.size:
        image = image.resize(family.geometry.size, Image.Resampling.BILINEAR)
    marks: Sequence[TextMark] = family.fidelity.text_marks(state)
    return tuple(read_glyph(image, mark) for mark in marks)
