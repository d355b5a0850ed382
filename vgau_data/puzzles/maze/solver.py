"""The exhaustive solver (BFS), the simple-path count and the random baseline."""

from __future__ import annotations

from collections import deque

import numpy as np

from vgau_data.puzzles.base import DELTAS, DIRECTIONS, Cell, Direction, Solution
from vgau_data.puzzles.grids import WALL
from vgau_data.puzzles.maze.state import MazeState


def solve(state: MazeState) -> Solution | None:
    """Shortest move list by BFS over open cells, or None if the goal is unreachable.

    Example:
        >>> from vgau_data.puzzles.maze.state import from_ascii
        >>> solve(from_ascii(["S.", "#G"])).answer
        ('right', 'down')
    """
    grid = state.grid
    rows, cols = len(grid), len(grid[0])
    parent: dict[Cell, tuple[Cell, Direction] | None] = {state.start: None}
    queue = deque([state.start])
    while queue:
        cell = queue.popleft()
        if cell == state.goal:
            break
        for direction in DIRECTIONS:
            dr, dc = DELTAS[direction]
            nxt = (cell[0] + dr, cell[1] + dc)
            if 0 <= nxt[0] < rows and 0 <= nxt[1] < cols and grid[nxt[0]][nxt[1]] != WALL and nxt not in parent:
                parent[nxt] = (cell, direction)
                queue.append(nxt)
    if state.goal not in parent:
        return None
    steps: list[Direction] = []
    link = parent[state.goal]
    while link is not None:
        cell, direction = link
        steps.append(direction)
        link = parent[cell]
    steps.reverse()
    return Solution(tuple(steps), len(steps))


def count_simple_paths(state: MazeState, limit: int = 2) -> int:
    """Simple paths from start to goal, counted by depth-first search up to ``limit``.

    The generator's uniqueness check (the paper counts them explicitly): its mazes are
    trees, so the answer is 1 and the search visits each open cell once.

    Example:
        >>> from vgau_data.puzzles.maze.state import from_ascii
        >>> count_simple_paths(from_ascii(["S..", "..G"]))
        2
    """
    grid = state.grid
    rows, cols = len(grid), len(grid[0])
    found = 0
    on_path = {state.start}
    stack = [(state.start, iter(DIRECTIONS))]
    while stack and found < limit:
        cell, moves = stack[-1]
        step = next(moves, None)
        if step is None:
            on_path.discard(cell)
            stack.pop()
            continue
        r, c = cell[0] + DELTAS[step][0], cell[1] + DELTAS[step][1]
        if not (0 <= r < rows and 0 <= c < cols) or grid[r][c] == WALL or (r, c) in on_path:
            continue
        if (r, c) == state.goal:
            found += 1
            continue
        on_path.add((r, c))
        stack.append(((r, c), iter(DIRECTIONS)))
    return found


def random_answer(state: MazeState, rng: np.random.Generator) -> tuple[Direction, ...]:
    """A random legal walk of 1-30 moves (it ignores the goal): the random baseline."""
    length = int(rng.integers(1, 31))
    grid = state.grid
    r, c = state.start
    steps: list[Direction] = []
    for _ in range(length):
        legal = [
            d
            for d in DIRECTIONS
            if 0 <= r + DELTAS[d][0] < len(grid)
            and 0 <= c + DELTAS[d][1] < len(grid[0])
            and grid[r + DELTAS[d][0]][c + DELTAS[d][1]] != WALL
        ]
        if not legal:
            break
        direction = legal[int(rng.integers(len(legal)))]
        steps.append(direction)
        r, c = r + DELTAS[direction][0], c + DELTAS[direction][1]
    return tuple(steps)
