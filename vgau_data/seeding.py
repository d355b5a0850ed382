"""Per-instance seeds derived by hashing, never by ``seed + i``.

``instance_seed(master, family, difficulty, index, attempt)`` mixes every coordinate
through ``numpy.random.SeedSequence``, so neighbouring master seeds share no instances
and a row's ``seed`` column, with the slot of its index (``FamilySpec.slot``), regenerates
that row alone. ``training_seed`` does the same for generated training rows, with the
length band and the split among the coordinates, so train and validation share no seed.
"""

from __future__ import annotations

import zlib

import numpy as np


def _word(text: str) -> int:
    """A stable 32-bit number for a name (``hash()`` is salted per process)."""
    return zlib.crc32(text.encode("utf-8"))


def _mixed(entropy: list[int]) -> int:
    """63 bits of ``SeedSequence(entropy)``."""
    state = np.random.SeedSequence(entropy).generate_state(2, dtype=np.uint32)
    return int((int(state[0]) << 31) ^ int(state[1])) & ((1 << 63) - 1)


def instance_seed(master_seed: int, family: str, difficulty: str, index: int, attempt: int = 0) -> int:
    """The 63-bit seed of one instance.

    Example:
        >>> instance_seed(0, "maze", "hard", 3) == instance_seed(0, "maze", "hard", 3)
        True
        >>> instance_seed(0, "maze", "hard", 3) != instance_seed(1, "maze", "hard", 2)
        True
    """
    if master_seed < 0:
        raise ValueError(f"master seed must be >= 0, got {master_seed}")
    return _mixed([master_seed, _word(family), _word(difficulty), index, attempt])


def training_seed(master_seed: int, family: str, band: str, split: str, index: int) -> int:
    """The 63-bit seed of candidate ``index`` of a training band (``vgau-data generate``).

    Example:
        >>> training_seed(0, "maze", "1-6", "train", 5) != training_seed(0, "maze", "1-6", "validation", 5)
        True
    """
    if master_seed < 0:
        raise ValueError(f"master seed must be >= 0, got {master_seed}")
    return _mixed([master_seed, _word("training"), _word(family), _word(band), _word(split), index])


def rng_for(seed: int) -> np.random.Generator:
    """The generator a family's ``generate`` receives for a row's ``seed``."""
    return np.random.default_rng(np.random.SeedSequence(seed))
