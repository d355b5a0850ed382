"""Bands of optimal lengths, and which length each candidate of a band is built to.

A band ``LO-HI`` is any range of optimal lengths (a curriculum is a list of them). Its
lengths are those inside it that the family's generator builds exactly: the generators
take a bucket and an exact optimum inside that bucket's range (``FamilySpec.generate``),
so lengths between two buckets (sokoban's 9, maze's none) are not generated, and a
band holding none of them is refused.

Candidate ``i`` of a band is built to length ``lengths[i % len(lengths)]``: every run of
``len(lengths)`` candidates holds each length once, so any prefix of a band spreads
evenly over its lengths; its slot's quantile is ``i`` times the golden ratio modulo 1,
as the benchmark's rows have, which is evenly spread within each length too.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from vgau_data.errors import VgauError
from vgau_data.puzzles.base import FamilySpec, Slot

_BAND = re.compile(r"(\d{1,4})(?:-(\d{1,4}))?")
_GOLDEN = (5**0.5 - 1) / 2


@dataclass(frozen=True, order=True, slots=True)
class Band:
    """Optimal lengths ``low``..``high``, inclusive."""

    low: int
    high: int

    @property
    def name(self) -> str:
        """``"7-17"``: how ids, seeds, files and the manifest name the band."""
        return f"{self.low}-{self.high}"


def parse_band(text: str) -> Band:
    """``"7-17"`` (or ``"5"``, one length) as a ``Band``.

    Example:
        >>> parse_band("7-17"), parse_band("5").name
        (Band(low=7, high=17), '5-5')
    """
    found = _BAND.fullmatch(text.strip())
    if not found:
        raise VgauError(f"a band of optimal lengths is LO-HI (e.g. 7-17) or one length, got {text!r:.40}")
    low, high = int(found.group(1)), int(found.group(2) or found.group(1))
    if not 1 <= low <= high:
        raise VgauError(f"band {text!r:.40} must have 1 <= LO <= HI")
    return Band(low, high)


def band_lengths(spec: FamilySpec, band: Band) -> tuple[int, ...]:
    """The lengths of ``band`` that ``spec``'s generator builds exactly, ascending.

    Raises:
        VgauError: the band holds none (it names the ranges the generator covers).
    """
    lengths = tuple(n for n in range(band.low, band.high + 1) if spec.bucket_of(n) is not None)
    if not lengths:
        ranges = ", ".join(f"{low}-{high}" for low, high in spec.buckets.values())
        raise VgauError(f"{spec.name} generates no optimal length in {band.name}: its generator builds {ranges}")
    return lengths


def candidate_slot(spec: FamilySpec, band: Band, index: int) -> tuple[str, Slot]:
    """``(bucket, slot)`` that candidate ``index`` of ``band`` is generated with.

    Example:
        >>> from vgau_data.registry import get_family
        >>> candidate_slot(get_family("maze"), Band(5, 8), 2)[0], candidate_slot(get_family("maze"), Band(5, 8), 2)[1].length
        ('medium', 7)
    """
    lengths = band_lengths(spec, band)
    length = lengths[index % len(lengths)]
    bucket = spec.bucket_of(length)
    assert bucket is not None  # band_lengths keeps only lengths inside a bucket
    return bucket, Slot(length, (index * _GOLDEN) % 1.0)
