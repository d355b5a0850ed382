"""The exact solver (``astar.fewest_slides`` on vehicles in our terms) and the random baseline."""

from __future__ import annotations

import functools
from typing import Final

import numpy as np

from vgau_data.puzzles.base import Direction, Solution
from vgau_data.puzzles.parking import astar, bounded
from vgau_data.puzzles.parking.search import Car, Search
from vgau_data.puzzles.parking.state import RED, ParkingState, Step, Vehicle

SOLVE_MAX_STATES: Final = 3_000_000
"""``solve`` gives up past this many positions (only loose, hand-made boards get near it; the
authors' hardest published board, parking_exit_061, meets about 0.46M)."""


def _car(v: Vehicle) -> Car:
    return (v.orientation, v.length, v.row, v.col) if v.orientation == "h" else (v.orientation, v.length, v.col, v.row)


@functools.lru_cache(maxsize=256)
def solve(state: ParkingState, max_states: int = SOLVE_MAX_STATES) -> Solution | None:
    """The fewest single-cell slides that park ``R`` on the exit: bound-pruned numpy layers
    (``bounded``, whose answer is canonical), or A* (``astar``) for a board of more than 21
    mobile cars.

    Exact: every shorter answer is ruled out (``astar`` says why). Returns None when no
    sequence of slides reaches the goal. Cached (states are immutable), and a row the
    generator proved with ``solve_at`` costs nothing.

    Raises:
        SearchLimitError: when more than ``max_states`` positions were met first.

    Example:
        >>> from vgau_data.puzzles.parking.state import from_ascii
        >>> solve(from_ascii(["....RR..>"] + ["........"] * 7))
        Solution(answer=(('R', 'right'), ('R', 'right')), optimal_length=2)
    """
    proved = _PROVED.get(state)
    if proved is not None:
        return proved
    search, red = _search(state)
    fewest_slides = bounded.fewest_slides if bounded.supports(search) else astar.fewest_slides
    slides, _ = fewest_slides(search, red, state.exit_row, max_states)
    return None if slides is None else _solution(state, search, slides)


def solve_at(state: ParkingState, length: int, max_states: int = SOLVE_MAX_STATES) -> Solution | None:
    """``solve(state)`` if its optimum is exactly ``length``, else None: the deepening stops past ``length``.

    The answer is the one ``solve`` gives (``bounded`` says why it is canonical) and is
    kept for it, so the builder's ``solve`` after ``generate`` searches nothing.

    Raises:
        SearchLimitError: when more than ``max_states`` positions were met first.
    """
    search, red = _search(state)
    slides = bounded.answer_within(search, red, state.exit_row, length, max_states)
    if slides is None or len(slides) != length:
        return None
    solution = _solution(state, search, slides)
    _PROVED[state] = solution
    while len(_PROVED) > _PROVED_KEPT:
        del _PROVED[next(iter(_PROVED))]
    return solution


_PROVED: dict[ParkingState, Solution] = {}
"""Answers ``solve_at`` proved optimal, oldest first."""
_PROVED_KEPT: Final = 64


def _search(state: ParkingState) -> tuple[Search, int]:
    return Search([_car(v) for v in state.vehicles]), [v.id for v in state.vehicles].index(RED)


def _solution(state: ParkingState, search: Search, slides: list[tuple[int, bool]]) -> Solution:
    steps: list[Step] = []
    for index, forward in slides:
        horizontal = search.cars[index][0] == "h"
        direction: Direction = ("right" if forward else "left") if horizontal else ("down" if forward else "up")
        steps.append((state.vehicles[index].id, direction))
    return Solution(tuple(steps), len(steps))


def random_answer(state: ParkingState, rng: np.random.Generator) -> tuple[Step, ...]:
    """4 to 30 random slides, each of a vehicle on the board along its own axis (baseline).

    Example:
        >>> from vgau_data.puzzles.parking.state import from_ascii
        >>> len(random_answer(from_ascii(["RR......>"] + ["........"] * 7), np.random.default_rng(0))) >= 4
        True
    """
    length = int(rng.integers(4, 31))
    steps: list[Step] = []
    for k, side in zip(rng.integers(len(state.vehicles), size=length), rng.integers(2, size=length)):
        v = state.vehicles[int(k)]
        options: tuple[Direction, Direction] = ("left", "right") if v.orientation == "h" else ("up", "down")
        steps.append((v.id, options[int(side)]))
    return tuple(steps)
