"""Bands of optimal lengths: parsing, the lengths a generator builds, how candidates spread over them."""

from __future__ import annotations

import itertools
from collections import Counter

import pytest

from vgau_data.errors import VgauError
from vgau_data.registry import FAMILIES
from vgau_data.training.bands import Band, band_lengths, candidate_slot, parse_band


def test_a_band_is_lo_hi_or_one_length() -> None:
    assert parse_band(" 7-17 ") == Band(7, 17)
    assert parse_band("5") == Band(5, 5)
    for bad in ("", "7-", "a-b", "9-3", "0-4", "-3"):
        with pytest.raises(VgauError):
            parse_band(bad)


def test_a_band_holds_the_lengths_some_bucket_generates() -> None:
    sokoban = FAMILIES["sokoban"]  # buckets 1-8, 10-16, 20-39
    assert band_lengths(sokoban, Band(7, 11)) == (7, 8, 10, 11)
    with pytest.raises(VgauError, match="generates no optimal length in 17-19"):
        band_lengths(sokoban, Band(17, 19))


def test_candidates_cycle_through_the_band_lengths_and_spread_their_quantiles() -> None:
    maze = FAMILIES["maze"]
    band = Band(5, 8)
    slots = [candidate_slot(maze, band, i) for i in range(400)]
    assert [slot.length for _, slot in slots[:4]] == [5, 6, 7, 8]
    assert Counter(slot.length for _, slot in slots) == {5: 100, 6: 100, 7: 100, 8: 100}
    assert {bucket for bucket, slot in slots if slot.length <= 6} == {"easy"}
    for length in (5, 8):  # every length's quantiles cover [0, 1) evenly
        quantiles = sorted(slot.quantile for _, slot in slots if slot.length == length)
        assert max(b - a for a, b in itertools.pairwise(quantiles)) < 0.05
