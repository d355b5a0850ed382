"""One player move (walks and pushes), the moves to try, the goal, and the scorer's fast replay."""

from __future__ import annotations

from collections.abc import Sequence

from vgau_data.puzzles.base import DELTAS, DIRECTIONS, Direction, Illegal, Replay
from vgau_data.puzzles.sokoban.state import WALL, SokobanState


def apply_step(state: SokobanState, step: Direction) -> SokobanState | Illegal:
    """Move the player one cell (pushing the box if it walks into it).

    Example:
        >>> from vgau_data.puzzles.sokoban.state import from_ascii
        >>> apply_step(from_ascii(["PBT"]), "right").box
        (0, 2)
        >>> apply_step(from_ascii(["PBT"]), "left").code
        'out_of_bounds'
    """
    delta = DELTAS.get(step) if isinstance(step, str) else None
    if delta is None:
        return Illegal("unknown_action", 0)
    grid = state.grid
    rows, cols = len(grid), len(grid[0])
    dr, dc = delta
    r, c = state.player[0] + dr, state.player[1] + dc
    if not (0 <= r < rows and 0 <= c < cols):
        return Illegal("out_of_bounds", 0)
    if grid[r][c] == WALL:
        return Illegal("wall", 0)
    box = state.box
    if (r, c) == box:
        br, bc = r + dr, c + dc
        if not (0 <= br < rows and 0 <= bc < cols) or grid[br][bc] == WALL:
            return Illegal("box_blocked", 0)
        box = (br, bc)
    return SokobanState(grid, (r, c), box, state.target)


def candidate_steps(state: SokobanState) -> tuple[Direction, ...]:
    """The four directions: every player move there is, walks and pushes alike."""
    return DIRECTIONS


def is_goal(state: SokobanState) -> bool:
    """The box stands on the target."""
    return state.box == state.target


def replay(state: SokobanState, answer: Sequence[Direction]) -> Replay:
    """Play ``answer`` from ``state``; stop at the first illegal step.

    Same rules as ``apply_step``, inlined on plain integers for scoring speed.

    Example:
        >>> from vgau_data.puzzles.sokoban.state import from_ascii
        >>> replay(from_ascii(["P.BT"]), ["right", "right"]).feasible
        True
        >>> replay(from_ascii(["P.BT"]), ["right"]).error
        'not_solved'
    """
    grid = state.grid
    rows, cols = len(grid), len(grid[0])
    pr, pc = state.player
    br, bc = state.box
    n = len(answer)
    for index, step in enumerate(answer):
        delta = DELTAS.get(step) if isinstance(step, str) else None
        if delta is None:
            return Replay(False, n, "unknown_action", index)
        dr, dc = delta
        r, c = pr + dr, pc + dc
        if not (0 <= r < rows and 0 <= c < cols):
            return Replay(False, n, "out_of_bounds", index)
        if grid[r][c] == WALL:
            return Replay(False, n, "wall", index)
        if r == br and c == bc:
            br, bc = r + dr, c + dc
            if not (0 <= br < rows and 0 <= bc < cols) or grid[br][bc] == WALL:
                return Replay(False, n, "box_blocked", index)
        pr, pc = r, c
    if (br, bc) != state.target:
        return Replay(False, n, "not_solved", n)
    return Replay(True, n)
