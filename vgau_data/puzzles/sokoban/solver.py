"""The exhaustive solver, a forward BFS over (player, box) on a padded board, and the random baseline.

Cells are indices into the board padded by one off-board ring (which counts as blocked),
so a neighbour is ``i + offset`` with no bounds check. A (player, box) state is the int
``player * n + box`` where ``n`` is the padded cell count.
"""

from __future__ import annotations

import functools

import numpy as np

from vgau_data.puzzles.base import DIRECTIONS, Cell, Direction, Solution
from vgau_data.puzzles.sokoban.state import FLOOR, SokobanState


@functools.lru_cache(maxsize=512)
def _board(grid: tuple[str, ...]) -> tuple[int, bytes]:
    """(padded width, free[i] == 1 for floor cells) of a grid."""
    width = len(grid[0]) + 2
    free = bytearray((len(grid) + 2) * width)
    for r, row in enumerate(grid):
        for c, ch in enumerate(row):
            if ch == FLOOR:
                free[(r + 1) * width + c + 1] = 1
    return width, bytes(free)


def _index(cell: Cell, width: int) -> int:
    return (cell[0] + 1) * width + cell[1] + 1


def solve(state: SokobanState) -> Solution | None:
    """The shortest answer (walks and pushes both count), by forward BFS over (player, box).

    Returns None when the box can never reach the target.

    Example:
        >>> from vgau_data.puzzles.sokoban.state import from_ascii
        >>> solve(from_ascii(["P.BT"]))
        Solution(answer=('right', 'right'), optimal_length=2)
    """
    width, free = _board(state.grid)
    n = len(free)
    target = _index(state.target, width)
    box = _index(state.box, width)
    if box == target:
        return Solution((), 0)
    offsets = (-width, width, -1, 1)  # DIRECTIONS order
    start = _index(state.player, width) * n + box
    parent = {start: -1}  # key -> previous key * 4 + direction index
    frontier = [start]
    while frontier:
        nxt = []
        for key in frontier:
            player, box = divmod(key, n)
            for k, off in enumerate(offsets):
                cell = player + off
                if not free[cell]:
                    continue
                if cell == box:
                    moved = box + off
                    if not free[moved]:
                        continue
                    new = cell * n + moved
                    if new in parent:
                        continue
                    parent[new] = key * 4 + k
                    if moved == target:
                        return _path(parent, new)
                else:
                    new = cell * n + box
                    if new in parent:
                        continue
                    parent[new] = key * 4 + k
                nxt.append(new)
        frontier = nxt
    return None


def _path(parent: dict[int, int], key: int) -> Solution:
    steps: list[Direction] = []
    link = parent[key]
    while link >= 0:
        key, k = divmod(link, 4)
        steps.append(DIRECTIONS[k])
        link = parent[key]
    steps.reverse()
    return Solution(tuple(steps), len(steps))


def random_answer(state: SokobanState, rng: np.random.Generator) -> tuple[Direction, ...]:
    """Random directions, 4 to 30 of them (the 'random' baseline).

    Example:
        >>> from vgau_data.puzzles.sokoban.state import from_ascii
        >>> len(random_answer(from_ascii(["PBT"]), np.random.default_rng(0))) >= 4
        True
    """
    length = int(rng.integers(4, 31))
    return tuple(DIRECTIONS[int(k)] for k in rng.integers(4, size=length))
