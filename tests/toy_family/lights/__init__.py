"""Lights Out on 3x3, a seventh family that ships with the tests only.

It proves that a family is its own package plus one registry line: nothing in
``vgau_data`` knows of it, and the tests register it for their own duration
(``registry._FAMILIES``). Board: nine lamps, lit or dark. Step: press a lamp, which toggles
it and its orthogonal neighbours (a cell off the board is ``out_of_bounds``). Goal: every
lamp dark. Its capabilities: cell decoding (``fidelity.py``) and structure statistics
(``structure.py``); it has no solution drawing (so no ``oracle_vr``) and no records of the
paper's authors.
"""

from __future__ import annotations

from vgau_data.puzzles.base import FamilySpec

SPEC = FamilySpec.from_package(__name__)
