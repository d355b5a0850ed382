"""Boards of random pairs as the authors' (appendix A.1.5), kept when the solver clears them."""

from __future__ import annotations

from typing import Final

import numpy as np

from vgau_data.errors import GenerationError
from vgau_data.puzzles.base import Slot, bucket_slot
from vgau_data.puzzles.onet.solver import removable_pairs, solve
from vgau_data.puzzles.onet.state import FRUITS, SIZE, OnetState

BUCKETS: Final[dict[str, tuple[int, int]]] = {"easy": (4, 6), "medium": (7, 10), "hard": (12, 16)}
LENGTH_MIX: Final[dict[str, dict[int, int]]] = {
    "easy": {4: 7, 5: 7, 6: 6},
    "medium": {7: 10, 8: 6, 9: 7, 10: 7},
    "hard": {12: 15, 13: 5, 14: 13, 15: 11, 16: 6},
}
"""Rows per pairs in the authors' 100 published instances (their ``one_solution_steps``, counted once)."""
ADJACENT_SHARE: Final[dict[str, float]] = {"easy": 0.58, "medium": 0.0, "hard": 0.055}
"""Share of a bucket's pairs placed side by side (the authors': 2.85 of 4.95, 0 of 8.37, 0.76 of 13.76)."""
REMOVABLE_SHARE: Final[dict[str, float]] = {"easy": 0.99, "medium": 0.62, "hard": 0.18}
"""Share of the pairs removable on the full board (the authors': 4.9 of 4.95, 5.17 of 8.37, 2.48 of 13.76)."""
EDGE_SHARE: Final[dict[str, float]] = {"easy": 0.5, "medium": 0.48, "hard": 0.57}
"""Share of the tiles on the board's outer ring (the authors': 5.0 of 9.9, 7.97 of 16.7, 15.56 of 27.5)."""
BOARD_CANDIDATES: Final = 8


def _neighbours(i: int) -> tuple[int, ...]:
    r, c = divmod(i, SIZE)
    near = ((r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1))
    return tuple(nr * SIZE + nc for nr, nc in near if 0 <= nr < SIZE and 0 <= nc < SIZE)


_NEIGHBOURS: Final = tuple(_neighbours(i) for i in range(SIZE * SIZE))
"""Flat indices of the cells touching each cell."""


def _random_board(n_pairs: int, n_adjacent: int, rng: np.random.Generator) -> list[str | None] | None:
    """``n_pairs`` fruits at random cells, exactly ``n_adjacent`` pairs side by side; None if it jams."""
    fruits = [FRUITS[k] for k in rng.choice(len(FRUITS), size=n_pairs, replace=False).tolist()]
    flat: list[str | None] = [None] * (SIZE * SIZE)
    for number, fruit in enumerate(fruits):
        empty = [i for i in range(SIZE * SIZE) if flat[i] is None]
        if number < n_adjacent:
            spots = [(a, b) for a in empty for b in _NEIGHBOURS[a] if a < b and flat[b] is None]
        else:
            spots = [(a, b) for a in empty for b in empty if a < b and b not in _NEIGHBOURS[a]]
        if not spots:
            return None
        a, b = spots[int(rng.integers(len(spots)))]
        flat[a] = flat[b] = fruit
    return flat


def generate(
    difficulty: str, rng: np.random.Generator, slot: Slot | None = None, *, max_attempts: int = 400
) -> OnetState:
    """A solvable board of ``slot.length`` pairs, built like the authors' (appendix A.1.5).

    Candidate boards put the pairs on random cells, a bucket-dependent share of them side
    by side (``ADJACENT_SHARE``: most easy pairs, no medium pair, few hard ones), and are
    kept only if the solver clears them. Of ``BOARD_CANDIDATES`` solvable boards the one
    nearest ``REMOVABLE_SHARE`` of the pairs removable at the start and ``EDGE_SHARE`` of
    the tiles on the outer ring is returned; every target is rounded down or up by
    ``slot.quantile``.

    Example:
        >>> state = generate("easy", np.random.default_rng(0))
        >>> 4 <= solve(state).optimal_length <= 6
        True
    """
    slot = bucket_slot("onet", BUCKETS, LENGTH_MIX, difficulty, rng, slot)
    n_adjacent = int(ADJACENT_SHARE[difficulty] * slot.length + slot.quantile)
    removable = int(REMOVABLE_SHARE[difficulty] * slot.length + (slot.quantile + 1 / 3) % 1.0)
    on_edge = int(EDGE_SHARE[difficulty] * 2 * slot.length + (slot.quantile + 2 / 3) % 1.0)
    boards: list[OnetState] = []
    for _ in range(max_attempts):
        flat = _random_board(slot.length, n_adjacent, rng)
        if flat is None:
            continue
        state = OnetState(tuple(tuple(flat[r * SIZE : (r + 1) * SIZE]) for r in range(SIZE)))
        if solve(state) is not None:
            boards.append(state)
            if len(boards) == BOARD_CANDIDATES:
                break
    if not boards:
        raise GenerationError(f"onet/{difficulty}: no solvable board of {slot.length} pairs in {max_attempts} tries")

    def miss(board: OnetState) -> int:
        return 2 * abs(len(removable_pairs(board)) - removable) + abs(_edge_tiles(board) - on_edge)

    return min(boards, key=miss)


def _edge_tiles(state: OnetState) -> int:
    last = SIZE - 1
    return sum(
        fruit is not None and (r in (0, last) or c in (0, last))
        for r, row in enumerate(state.board)
        for c, fruit in enumerate(row)
    )
