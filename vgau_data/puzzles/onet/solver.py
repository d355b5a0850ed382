"""The greedy solver (exact for onet), the pairs removable now, and the random baseline."""

from __future__ import annotations

import numpy as np

from vgau_data.errors import StateError
from vgau_data.puzzles.base import Solution
from vgau_data.puzzles.onet.rules import _BITS, _connectable, _flatten
from vgau_data.puzzles.onet.state import SIZE, OnetState, Step


def _pairs(flat: list[str | None]) -> list[tuple[int, int]]:
    """The two flat indices of each fruit, ordered by their first cell."""
    where: dict[str, list[int]] = {}
    for index, cell in enumerate(flat):
        if cell is not None:
            where.setdefault(cell, []).append(index)
    pairs = []
    for fruit, cells in where.items():
        if len(cells) != 2:
            raise StateError(f"onet: {fruit} appears {len(cells)} times; every fruit must appear exactly twice")
        pairs.append((cells[0], cells[1]))
    return sorted(pairs)


def removable_pairs(state: OnetState) -> list[Step]:
    """The pairs that could be removed first, ordered by their first cell.

    Example:
        >>> from vgau_data.puzzles.onet.state import from_ascii
        >>> removable_pairs(from_ascii(["AB.A..", "B.....", *["......"] * 4]))
        [((0, 1), (1, 0))]
    """
    flat, occupied = _flatten(state)
    return [(divmod(i, SIZE), divmod(j, SIZE)) for i, j in _pairs(flat) if _connectable(occupied, i, j)]


def solve(state: OnetState) -> Solution | None:
    """Clear the board greedily; None when it cannot be cleared.

    Greedy is exact here: removing tiles only frees cells, so a removable pair stays
    removable. If greedy stalls on a non-empty set ``S`` while some full answer exists,
    the first pair of that answer lying in ``S`` was removable on a superset of ``S``'s
    tiles, hence is removable on ``S``: a contradiction. Every full answer has one step
    per pair, so the greedy answer is optimal.

    Example:
        >>> from vgau_data.puzzles.onet.state import from_ascii
        >>> solve(from_ascii(["ACDDCA", "B.....", "B.....", *["......"] * 3])).answer
        (((0, 1), (0, 4)), ((0, 2), (0, 3)), ((1, 0), (2, 0)), ((0, 0), (0, 5)))
        >>> solve(from_ascii(["AB....", "BA....", *["......"] * 4])) is None
        True
    """
    flat, occupied = _flatten(state)
    remaining = _pairs(flat)
    answer: list[Step] = []
    while remaining:
        stuck = []
        for i, j in remaining:
            if _connectable(occupied, i, j):
                occupied &= ~(_BITS[i] | _BITS[j])
                answer.append((divmod(i, SIZE), divmod(j, SIZE)))
            else:
                stuck.append((i, j))
        if len(stuck) == len(remaining):
            return None
        remaining = stuck
    return Solution(answer=tuple(answer), optimal_length=len(answer))


def random_answer(state: OnetState, rng: np.random.Generator) -> tuple[Step, ...]:
    """The occupied cells paired at random: a player who sees where fruit lies, not which.

    Pairing identical fruits instead would read the board perfectly: with the fruits
    known, a random removal order clears about half the medium boards, which is no
    baseline. That measures ordering alone and is left to diagnostics.
    """
    flat, _ = _flatten(state)
    occupied = [index for index, fruit in enumerate(flat) if fruit is not None]
    order = [occupied[k] for k in rng.permutation(len(occupied)).tolist()]
    return tuple((divmod(i, SIZE), divmod(j, SIZE)) for i, j in zip(order[::2], order[1::2]))
