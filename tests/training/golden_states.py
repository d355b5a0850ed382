"""One fixed board per family, kept with the family (``tests/puzzles/<family>/golden.py``), for the golden key values."""

from __future__ import annotations

from tests.families import family_table

GOLDEN_STATES = family_table("GOLDEN_STATE")
