"""Canonical keys: one 64-bit number per puzzle, equal for every task-preserving copy of it.

``canonical_key(family, state)`` hashes the least of the family's forms over its
transformations (its ``symmetry`` capability): a maze and its seven rotations and
reflections, an onet board and every renaming of its fruits, get one key. ``exact_key``
hashes the state JSON as it is (two boards are an exact copy only when it is equal).
``trajectory_keys`` keys every state an answer passes through before the goal, which is
what decontamination compares with the test instances' trajectories.

Keys are blake2b digests (8 bytes) of the form, so they are stable across processes,
machines and Python versions (``hash()`` is salted per process).
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from typing import Any

from vgau_data.puzzles.capabilities import Symmetry
from vgau_data.puzzles.symmetry import identity
from vgau_data.registry import FAMILIES, get_family

KEY_HEX_DIGITS = 16


def symmetry_of(family: str) -> Symmetry:
    """The family's ``symmetry`` capability (``puzzles/<family>/symmetry.py``), or the identity."""
    spec = get_family(family)
    return spec.symmetry if spec.symmetry is not None else identity(spec.to_json)


def hash_form(form: str) -> int:
    """The 64-bit key of one form string.

    Example:
        >>> hash_form("abc") == hash_form("abc") != hash_form("abd")
        True
    """
    return int.from_bytes(hashlib.blake2b(form.encode("utf-8"), digest_size=8).digest(), "big")


def key_hex(key: int) -> str:
    """A key as the 16 lower-case hex digits files store.

    Example:
        >>> key_hex(255)
        '00000000000000ff'
    """
    return f"{key:0{KEY_HEX_DIGITS}x}"


def canonical_key(family: str, state: Any) -> int:
    """The key of ``state`` up to its family's task-preserving transformations."""
    return hash_form(min(symmetry_of(family).forms(state)))


def exact_key(family: str, state: Any) -> int:
    """The key of ``state`` exactly as it is (its canonical JSON)."""
    return hash_form(f"{family}|{FAMILIES[family].to_json(state)}")


def trajectory(family: str, state: Any, answer: Sequence[Any]) -> list[Any]:
    """``state`` and every state after a step of ``answer`` except the last (the solved board)."""
    return [state, *FAMILIES[family].trajectory(state, tuple(answer))[:-1]]


def trajectory_keys(family: str, state: Any, answer: Sequence[Any]) -> list[int]:
    """Canonical keys of ``state`` and of each state ``answer`` passes through before the goal.

    On an optimal answer the i-th key's board is ``len(keys) - i`` steps from solved.
    """
    return [canonical_key(family, s) for s in trajectory(family, state, answer)]
