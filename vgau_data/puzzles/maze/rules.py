"""One move of the agent, the moves to try, the goal, and the scorer's fast replay."""

from __future__ import annotations

from collections.abc import Sequence

from vgau_data.puzzles.base import DELTAS, DIRECTIONS, Direction, Illegal, Replay
from vgau_data.puzzles.grids import WALL
from vgau_data.puzzles.maze.state import MazeState


def apply_step(state: MazeState, step: Direction) -> MazeState | Illegal:
    """Move the agent one cell; ``Illegal`` for an unknown direction, the edge or a wall.

    Example:
        >>> from vgau_data.puzzles.maze.state import from_ascii
        >>> apply_step(from_ascii(["S#G"]), "right")
        Illegal(code='wall', step_index=0)
    """
    delta = DELTAS.get(step) if isinstance(step, str) else None
    if delta is None:
        return Illegal("unknown_action", 0)
    r, c = state.start[0] + delta[0], state.start[1] + delta[1]
    if not (0 <= r < len(state.grid) and 0 <= c < len(state.grid[0])):
        return Illegal("out_of_bounds", 0)
    if state.grid[r][c] == WALL:
        return Illegal("wall", 0)
    return MazeState(state.grid, (r, c), state.goal)


def candidate_steps(state: MazeState) -> tuple[Direction, ...]:
    """The four directions: every move there is (``apply_step`` says which are walls)."""
    return DIRECTIONS


def is_goal(state: MazeState) -> bool:
    """The agent stands on the goal."""
    return state.start == state.goal


def replay(state: MazeState, answer: Sequence[Direction]) -> Replay:
    """Play ``answer`` from the agent's cell; stop at the first illegal move.

    Example:
        >>> from vgau_data.puzzles.maze.state import from_ascii
        >>> replay(from_ascii(["S.G"]), ("right", "right"))
        Replay(feasible=True, length=2, error=None, first_invalid_step=None)
        >>> replay(from_ascii(["S.G"]), ("up",)).error
        'out_of_bounds'
    """
    grid = state.grid
    rows, cols = len(grid), len(grid[0])
    r, c = state.start
    n = len(answer)
    for index, step in enumerate(answer):
        delta = DELTAS.get(step) if isinstance(step, str) else None
        if delta is None:
            return Replay(False, n, "unknown_action", index)
        r += delta[0]
        c += delta[1]
        if not (0 <= r < rows and 0 <= c < cols):
            return Replay(False, n, "out_of_bounds", index)
        if grid[r][c] == WALL:
            return Replay(False, n, "wall", index)
    if (r, c) != state.goal:
        return Replay(False, n, "not_solved", n)
    return Replay(True, n)
