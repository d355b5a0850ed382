"""Boards tell states apart.

A model reads a puzzle from its image alone, so two different states must draw different
boards: a renderer that drops the tile numbers of an 8-puzzle, a vehicle's id or which lamp
of a row is lit draws two puzzles alike, and the question (or the cell decoder) relies on
what it dropped. Checked on the family's own states: generated, along their solutions, and
the palette. (That the oracle aid leaves the pieces readable is checked through the
family's decoders, ``capability_checks``: cells and letters read back from every aid.)
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from typing import Any

from vgau_data.puzzles.base import FamilySpec


def check_boards(spec: FamilySpec, states: Sequence[Any], expect: Callable[[object, str], None]) -> None:
    """Different states of ``states`` (by canonical JSON) draw different boards."""
    boards: dict[bytes, str] = {}
    for state in states:
        text = spec.to_json(state)
        board = spec.render(state).convert("RGB").tobytes()
        same = boards.setdefault(hashlib.sha256(board).digest(), text)
        expect(same == text, f"{spec.name}: two different states draw the same board ({same:.100} and {text:.100}): "
               "the renderer drops something that tells them apart (a number, letter or piece the question or the "
               "cell decoder relies on)")  # fmt: skip
