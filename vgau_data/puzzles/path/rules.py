"""The route and its letters, one marker move, the moves to try, the goal, the scorer's replay, and the marker's walk."""

from __future__ import annotations

import functools
import itertools
from collections.abc import Sequence
from typing import Any

from vgau_data.puzzles.base import DELTAS, DIRECTIONS, Cell, Illegal, Replay
from vgau_data.puzzles.path.state import _LETTER_SET, WALL, PathState, PathStep, _reachable


@functools.lru_cache(maxsize=4096)
def _route(grid: tuple[str, ...], start: Cell, end: Cell) -> tuple[Cell, ...] | None:
    """The cells of the start-end path (both included), or None if end is unreachable."""
    parent = _reachable(grid, start)
    if end not in parent:
        return None
    cells = [end]
    while (up := parent[cells[-1]]) is not None:
        cells.append(up)
    return tuple(reversed(cells))


def route(state: PathState) -> tuple[Cell, ...] | None:
    """The cells of the start-end path, both ends included (None if end is unreachable).

    Example:
        >>> from vgau_data.puzzles.path.state import from_ascii
        >>> route(from_ascii(["SA.T", "##B#"]))
        ((0, 0), (0, 1), (0, 2), (0, 3))
    """
    return _route(state.grid, state.start, state.end)


@functools.lru_cache(maxsize=4096)
def _truth(
    grid: tuple[str, ...], start: Cell, end: Cell, labels: tuple[tuple[str, Cell], ...]
) -> tuple[tuple[str, ...], int] | None:
    """(on-path letters in order, moves of the path), or None if end is unreachable."""
    route = _route(grid, start, end)
    if route is None:
        return None
    letter_at = {cell: letter for letter, cell in labels}
    return tuple(letter_at[cell] for cell in route if cell in letter_at), len(route) - 1


def _here(state: PathState) -> Cell:
    return state.start if state.position is None else state.position


def _move(grid: tuple[str, ...], here: Cell, move: object) -> Cell | str:
    """The cell a move leads to, or the reason code it is illegal."""
    delta = DELTAS.get(move) if isinstance(move, str) else None
    if delta is None:
        return "unknown_action"
    r, c = here[0] + delta[0], here[1] + delta[1]
    if not (0 <= r < len(grid) and 0 <= c < len(grid[0])):
        return "out_of_bounds"
    if grid[r][c] == WALL:
        return "wall"
    return (r, c)


def _declares_in_order(declared: Sequence[str], letters: Sequence[str]) -> bool:
    return len(declared) <= len(letters) and tuple(declared) == tuple(letters[: len(declared)])


def apply_step(state: PathState, step: PathStep) -> PathState | Illegal:
    """Move the marker one cell and add the labels declared on the way (interactive step).

    ``Illegal``: off the board, into a wall, or declarations that stop being a prefix of
    the on-path letters (``wrong_label``).

    Example:
        >>> from vgau_data.puzzles.path.state import from_ascii
        >>> s = from_ascii(["SA.T"])
        >>> apply_step(s, PathStep("right", ("A",))).declared
        ('A',)
        >>> apply_step(s, PathStep("left"))
        Illegal(code='out_of_bounds', step_index=0)
        >>> apply_step(s, PathStep("right", ("B",)))
        Illegal(code='wrong_label', step_index=0)
    """
    if not isinstance(step, PathStep):
        return Illegal("unknown_action", 0)
    there = _move(state.grid, _here(state), step.move)
    if isinstance(there, str):
        return Illegal(there, 0)
    declared = state.declared + tuple(step.hit_labels)
    truth = _truth(state.grid, state.start, state.end, state.labels)
    if truth is None or not _declares_in_order(declared, truth[0]):
        return Illegal("wrong_label", 0)
    position = None if there == state.start else there
    return PathState(state.grid, state.start, state.end, state.labels, position, declared)


def candidate_steps(state: PathState) -> tuple[PathStep, ...]:
    """The marker one cell each way, declaring the next on-path letter when it steps onto it.

    Any other declaration a legal move could make (a letter declared early or late, or
    several at once) leaves the same board, since declarations are not drawn: these four
    are the moves a player tries.

    Example:
        >>> from vgau_data.puzzles.path.state import from_ascii
        >>> candidate_steps(from_ascii(["SA.T"]))[3]
        PathStep(move='right', hit_labels=('A',))
    """
    truth = _truth(state.grid, state.start, state.end, state.labels)
    letters = truth[0] if truth is not None else ()
    wanted = letters[len(state.declared)] if len(state.declared) < len(letters) else None
    target = next((cell for letter, cell in state.labels if letter == wanted), None)
    r, c = _here(state)
    steps = []
    for direction in DIRECTIONS:
        dr, dc = DELTAS[direction]
        steps.append(PathStep(direction, (wanted,) if target == (r + dr, c + dc) else ()))  # type: ignore[arg-type]
    return tuple(steps)


def is_goal(state: PathState) -> bool:
    """The marker stands on the destination and every on-path letter has been declared."""
    truth = _truth(state.grid, state.start, state.end, state.labels)
    return _here(state) == state.end and truth is not None and state.declared == truth[0]


def replay(state: PathState, answer: Sequence[Any]) -> Replay:
    """Judge a label list against the true on-path letters, or a walk (``PathStep``s) by playing it.

    Example:
        >>> from vgau_data.puzzles.path.state import from_ascii
        >>> s = from_ascii(["SA.T", "##B#"])
        >>> replay(s, ("A",))
        Replay(feasible=True, length=3, error=None, first_invalid_step=None)
        >>> replay(s, ("A", "B")).error
        'wrong_label'
        >>> replay(s, (PathStep("right", ("A",)), PathStep("right"))).error  # one cell short
        'not_solved'
    """
    if answer and isinstance(answer[0], PathStep):
        return _replay_walk(state, answer)
    n = len(answer)
    truth = _truth(state.grid, state.start, state.end, state.labels)
    if truth is None:
        return Replay(False, n, "not_solved", 0)
    letters, moves = truth
    for index, letter in enumerate(answer):
        if not isinstance(letter, str) or letter not in _LETTER_SET:
            return Replay(False, n, "unknown_action", index)
        if index >= len(letters) or letter != letters[index]:
            return Replay(False, n, "wrong_label", index)
    if n < len(letters):
        return Replay(False, n, "not_solved", n)
    return Replay(True, moves)


def _replay_walk(state: PathState, walk: Sequence[Any]) -> Replay:
    """``apply_step`` along ``walk`` then ``is_goal``, without building states (same verdicts)."""
    n = len(walk)
    truth = _truth(state.grid, state.start, state.end, state.labels)
    here, declared = _here(state), list(state.declared)
    for index, step in enumerate(walk):
        if not isinstance(step, PathStep):
            return Replay(False, n, "unknown_action", index)
        there = _move(state.grid, here, step.move)
        if isinstance(there, str):
            return Replay(False, n, there, index)
        declared.extend(step.hit_labels)
        if truth is None or not _declares_in_order(declared, truth[0]):
            return Replay(False, n, "wrong_label", index)
        here = there
    if truth is None or here != state.end or len(declared) != len(truth[0]):
        return Replay(False, n, "not_solved", n)
    return Replay(True, n)


def trajectory(state: PathState, answer: Sequence[Any]) -> list[PathState]:
    """The marker walking the true path, one state per move, declaring each label as it passes it."""
    return [state_after for _, state_after in _route_walk(state)]


def answer_steps(state: PathState, answer: Sequence[Any]) -> tuple[PathStep, ...]:
    """The walk that plays ``answer``: itself when it is a walk; for the on-path letters, the route.

    A strict prefix of the on-path letters is played by the route up to the cell of the
    last of them (the legal part of an answer, for partial credit).

    Raises:
        ValueError: letters that are no prefix of the route's (only those have a walk).

    Example:
        >>> from vgau_data.puzzles.path.state import from_ascii
        >>> answer_steps(from_ascii(["SA.T", "##B#"]), ("A",))
        (PathStep(move='right', hit_labels=('A',)), PathStep(move='right', hit_labels=()), PathStep(move='right', hit_labels=()))
        >>> answer_steps(from_ascii(["SA.BT"]), ("A",))
        (PathStep(move='right', hit_labels=('A',)),)
    """
    if answer and isinstance(answer[0], PathStep):
        return tuple(answer)
    walk = [step for step, _ in _route_walk(state)]
    letters = tuple(letter for step in walk for letter in step.hit_labels)
    wanted = tuple(answer)
    if wanted == letters:
        return tuple(walk)
    if letters[: len(wanted)] != wanted:
        raise ValueError(f"path: {answer!r} are not the on-path letters, so no walk plays them")
    declared = 0
    for index, step in enumerate(walk):
        if declared == len(wanted):
            return tuple(walk[:index])
        declared += len(step.hit_labels)
    return tuple(walk)  # unreachable: a strict prefix ends before the last labelled cell


def _route_walk(state: PathState) -> list[tuple[PathStep, PathState]]:
    """Each move along the start-end route with its declaration, and the state after it."""
    route = _route(state.grid, state.start, state.end)
    if route is None:
        raise ValueError("the destination is unreachable from the start")
    letter_at = {cell: letter for letter, cell in state.labels}
    walk = []
    current = state
    for before, after in itertools.pairwise(route):
        move = next(d for d, (dr, dc) in DELTAS.items() if (before[0] + dr, before[1] + dc) == after)
        step = PathStep(move, (letter_at[after],) if after in letter_at else ())  # type: ignore[arg-type]
        current = apply_step(current, step)  # type: ignore[assignment]
        walk.append((step, current))
    return walk
