"""Which pairs connect (at most two turns, inside the board), one removal, the removals to try, the goal and the fast replay."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final

from vgau_data.puzzles.base import Illegal, Replay
from vgau_data.puzzles.onet.state import SIZE, OnetState, Step

_BITS: Final = tuple(1 << i for i in range(SIZE * SIZE))


def _cells_mask(top: int, bottom: int, left: int, right: int) -> int:
    mask = 0
    for r in range(top, bottom + 1):
        for c in range(left, right + 1):
            mask |= _BITS[r * SIZE + c]
    return mask


_ROW_SEGMENTS: Final = tuple(
    tuple(tuple(_cells_mask(r, r, min(a, b), max(a, b)) for b in range(SIZE)) for a in range(SIZE)) for r in range(SIZE)
)
"""``_ROW_SEGMENTS[r][a][b]``: cells ``a..b`` of row ``r`` (either way round)."""
_COLUMN_SEGMENTS: Final = tuple(
    tuple(tuple(_cells_mask(min(a, b), max(a, b), c, c) for b in range(SIZE)) for a in range(SIZE)) for c in range(SIZE)
)
"""``_COLUMN_SEGMENTS[c][a][b]``: cells ``a..b`` of column ``c`` (either way round)."""


def _span(r0: int, c0: int, r1: int, c1: int) -> int:
    """Bit mask of the straight segment between two cells of one row or column (inclusive).

    Looked up (routes are built from thousands of segments, so scoring a board never seen
    before costs microseconds); any other pair of corners spans their rectangle.

    Example:
        >>> _span(0, 2, 0, 0) == 0b111 and _span(1, 4, 0, 4) == (1 << 4) | (1 << 10)
        True
    """
    if r0 == r1:
        return _ROW_SEGMENTS[r0][c0][c1]
    if c0 == c1:
        return _COLUMN_SEGMENTS[c0][r0][r1]
    return _cells_mask(min(r0, r1), max(r0, r1), min(c0, c1), max(c0, c1))


def _routes(i: int, j: int) -> tuple[int, ...]:
    """Cell masks of every <=2-turn route between cells ``i`` and ``j`` inside the board.

    A route with at most two turns is vertical-horizontal-vertical through some row ``k``
    or horizontal-vertical-horizontal through some column ``k`` (segments may be empty),
    so 12 masks cover all of them. Masks include both end cells; fewest cells first.
    """
    (ar, ac), (br, bc) = divmod(i, SIZE), divmod(j, SIZE)
    down_a, down_b = _COLUMN_SEGMENTS[ac], _COLUMN_SEGMENTS[bc]
    across_a, across_b = _ROW_SEGMENTS[ar], _ROW_SEGMENTS[br]
    masks = set()
    for k in range(SIZE):
        masks.add(down_a[ar][k] | _ROW_SEGMENTS[k][ac][bc] | down_b[k][br])
        masks.add(across_a[ac][k] | _COLUMN_SEGMENTS[k][ar][br] | across_b[k][bc])
    return tuple(sorted(masks, key=lambda m: (m.bit_count(), m)))


_ROUTE_TABLE: Final[list[tuple[int, ...] | None]] = [None] * (SIZE * SIZE) ** 2
"""``_routes(i, j)`` at index ``i * 36 + j``, filled on first use."""


def _connectable(occupied: int, i: int, j: int) -> bool:
    """Tiles at cells ``i`` and ``j`` are joined by a <=2-turn route of empty cells."""
    routes = _ROUTE_TABLE[i * SIZE * SIZE + j]
    if routes is None:  # a route between i and j is one between j and i
        routes = _ROUTE_TABLE[i * SIZE * SIZE + j] = _ROUTE_TABLE[j * SIZE * SIZE + i] = _routes(i, j)
    others = occupied & ~(_BITS[i] | _BITS[j])
    return any(not others & route for route in routes)


def _flatten(state: OnetState) -> tuple[list[str | None], int]:
    """The board as a flat list of 36 cells and the bit mask of occupied cells."""
    flat = [cell for row in state.board for cell in row]
    occupied = 0
    for index, cell in enumerate(flat):
        if cell is not None:
            occupied |= _BITS[index]
    return flat, occupied


def _cell_index(cell: Any) -> int | None:
    """``r * 6 + c`` for an on-board ``(r, c)``; None when off the board."""
    r, c = cell
    if 0 <= r < SIZE and 0 <= c < SIZE:
        return r * SIZE + c
    return None


def _check(flat: list[str | None], occupied: int, step: Step) -> tuple[str | None, int, int]:
    """The illegal code of ``step`` (None when legal) and its two flat indices."""
    i, j = _cell_index(step[0]), _cell_index(step[1])
    if i is None or j is None:
        return "out_of_bounds", -1, -1
    if i == j:
        return "same_cell", i, j
    if flat[i] is None or flat[j] is None:
        return "empty_cell", i, j
    if flat[i] != flat[j]:
        return "not_identical", i, j
    if not _connectable(occupied, i, j):
        return "not_connectable", i, j
    return None, i, j


def apply_step(state: OnetState, step: Step) -> OnetState | Illegal:
    """Remove the pair ``step`` names, or say why it cannot be removed.

    Example:
        >>> from vgau_data.puzzles.onet.state import from_ascii, to_ascii
        >>> board = from_ascii(["ACDDCA", "B.....", "B.....", "......", "......", "......"])
        >>> to_ascii(apply_step(board, ((0, 2), (0, 3))))[0]
        'AC..CA'
        >>> apply_step(board, ((0, 0), (0, 5))).code  # only a route around the outside
        'not_connectable'
    """
    flat, occupied = _flatten(state)
    code, i, j = _check(flat, occupied, step)
    if code is not None:
        return Illegal(code, 0)
    flat[i] = flat[j] = None
    return OnetState(tuple(tuple(flat[r * SIZE : (r + 1) * SIZE]) for r in range(SIZE)))


def candidate_steps(state: OnetState) -> tuple[Step, ...]:
    """Each pair of equal fruit, by fruit name, connectable or not: every fruit appears exactly
    twice, so these are all the removals there are.

    Example:
        >>> from vgau_data.puzzles.onet.state import from_ascii
        >>> candidate_steps(from_ascii(["B.A..A", "B.....", *["......"] * 4]))
        (((0, 2), (0, 5)), ((0, 0), (1, 0)))
    """
    cells: dict[str, list[tuple[int, int]]] = {}
    for r, row in enumerate(state.board):
        for c, fruit in enumerate(row):
            if fruit is not None:
                cells.setdefault(fruit, []).append((r, c))
    return tuple((pair[0], pair[1]) for _, pair in sorted(cells.items()) if len(pair) == 2)


def is_goal(state: OnetState) -> bool:
    """The board is empty."""
    return all(cell is None for row in state.board for cell in row)


def replay(state: OnetState, answer: Sequence[Step]) -> Replay:
    """Play ``answer`` on ``state``; stop at the first illegal step.

    Example:
        >>> from vgau_data.puzzles.onet.state import from_ascii
        >>> board = from_ascii(["A.A...", *["......"] * 5])
        >>> replay(board, [((0, 2), (0, 0))]).feasible
        True
        >>> replay(board, []).error
        'not_solved'
    """
    flat, occupied = _flatten(state)
    for index, step in enumerate(answer):
        code, i, j = _check(flat, occupied, step)
        if code is not None:
            return Replay(False, len(answer), code, index)
        flat[i] = flat[j] = None
        occupied &= ~(_BITS[i] | _BITS[j])
    if occupied:
        return Replay(False, len(answer), "not_solved", len(answer))
    return Replay(True, len(answer))
