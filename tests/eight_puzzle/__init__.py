"""The 8-puzzle (3x3 sliding tiles), a seventh family written from docs/adding-a-family.md alone.

It ships with the tests only and is registered on request: ``VGAU_TEST_EXTRA_FAMILY=tests.eight_puzzle``
makes ``tests/conftest.py`` register it for the whole run, as its registry line would
(docs/adding-a-family.md, "Checking a new family against the whole suite"). It declares every
optional capability, so each registry-wide test meets a family that is not one of the six.

Board: eight tiles lettered A-H and one blank on a 3x3 tray. Step: a direction, the way the
tile next to the blank slides into it (``up``: the tile below the blank moves up); a direction
with no tile on that side of the blank is ``out_of_bounds``. Goal: ``ABC/DEF/GH.``, the blank
bottom right. Letters, not numbers: the glyph reader that checks the drawn marks reads capitals.
"""

from __future__ import annotations

from vgau_data.puzzles.base import FamilySpec

SPEC = FamilySpec.from_package(__name__)
