"""The package's shared vocabulary: cells, difficulties, directions, row ids and the answer error.

A leaf module (it imports nothing from ``vgau_data``), so that ``rendering``, ``answers``
and the family modules can share these names without importing each other.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Literal

Cell = tuple[int, int]
"""(r, c), 0-based; (0, 0) is the top-left cell, r grows downward."""

Difficulty = Literal["easy", "medium", "hard"]
DIFFICULTIES: tuple[Difficulty, ...] = ("easy", "medium", "hard")
BUCKET_SIZES: Mapping[str, int] = {"easy": 20, "medium": 30, "hard": 50}
"""Rows per difficulty in the published dataset (the paper's 20 / 30 / 50)."""

Direction = Literal["up", "down", "left", "right"]
DIRECTIONS: tuple[Direction, ...] = ("up", "down", "left", "right")
DELTAS: Mapping[str, Cell] = {"up": (-1, 0), "down": (1, 0), "left": (0, -1), "right": (0, 1)}

ROW_ID_PATTERN = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,99}")
"""What a row id may be: ours (``maze-hard-0042``) or the authors' (``sokoban_000``)."""


ANSWER_CODES: frozenset[str] = frozenset({"no_answer", "bad_format", "unknown_action"})
"""The codes an ``AnswerError`` carries."""


class AnswerError(Exception):
    """An answer text that yields no steps; ``code`` is ``no_answer``, ``bad_format`` or ``unknown_action``.

    Raised by ``parse_answer`` and caught by scoring: it never escapes the scorer.
    """

    def __init__(self, code: str, detail: str = "") -> None:
        super().__init__(f"{code}: {detail}" if detail else code)
        self.code = code
        self.detail = detail
