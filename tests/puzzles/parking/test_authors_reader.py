"""The authors reader's parking optimum check: their capped breadth-first search, reproduced."""

from __future__ import annotations

from collections import deque

import numpy as np
import pytest

from vgau_data.puzzles.parking import authors_reader
from vgau_data.puzzles.parking.authors_reader import authors_remaining
from vgau_data.puzzles.parking.generator import generate
from vgau_data.puzzles.parking.solver import solve
from vgau_data.puzzles.parking.state import ParkingState, from_ascii


def capped_bfs(state: ParkingState, cap: int) -> int | None:
    """A plain reading of the authors' ``_bfs_remaining`` (worked out by hand from their
    step_adapter.py): one-cell slides, cars in board order, back before forward; goals are
    returned when generated, never stored; give up at a pop once more than ``cap`` are stored."""
    cars = [(v.id, v.orientation, v.length, v.row, v.col) for v in state.vehicles]

    def goal(cars: list[tuple[str, str, int, int, int]]) -> bool:
        return any(i == "R" and c + n - 1 == state.size - 1 for i, _, n, _, c in cars)

    def neighbours(cars: list[tuple[str, str, int, int, int]]) -> list[list[tuple[str, str, int, int, int]]]:
        taken = {
            cell: i
            for i, o, n, r, c in cars
            for cell in ([(r, c + k) for k in range(n)] if o == "h" else [(r + k, c) for k in range(n)])
        }
        out = []
        for index, (i, o, n, r, c) in enumerate(cars):
            for dr, dc in ((0, -1), (0, 1)) if o == "h" else ((-1, 0), (1, 0)):
                nr, nc = r + dr, c + dc
                cells = [(nr, nc + k) for k in range(n)] if o == "h" else [(nr + k, nc) for k in range(n)]
                if all(0 <= a < state.size and 0 <= b < state.size and taken.get((a, b), i) == i for a, b in cells):
                    out.append([*cars[:index], (i, o, n, nr, nc), *cars[index + 1 :]])
        return out

    if goal(cars):
        return 0
    seen = {tuple(cars)}
    queue = deque([(cars, 0)])
    while queue:
        here, depth = queue.popleft()
        if len(seen) > cap:
            return None
        for there in neighbours(here):
            if tuple(there) in seen:
                continue
            if goal(there):
                return depth + 1
            seen.add(tuple(there))
            queue.append((there, depth + 1))
    return None


BOARDS = [generate("easy", np.random.default_rng(5)), generate("medium", np.random.default_rng(3))]


@pytest.mark.parametrize("board", range(len(BOARDS)))
def test_authors_remaining__matches_their_search_at_every_cap(board: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """Caps below, between and above the goal layer: it gives up, replays their order, or counts layers."""
    state = BOARDS[board]
    optimum = solve(state).optimal_length
    full = capped_bfs(state, 10**9)
    assert full == optimum  # their search without a cap finds the optimum
    verdicts = []
    for cap in (1, 2, 5, 10, 20, 50, 100, 300, 1000, 3000, 4600, 10_000):
        monkeypatch.setattr(authors_reader, "MAX_NODES", cap)
        authors_remaining.cache_clear()
        got = authors_remaining(state)
        assert got == capped_bfs(state, cap), cap
        verdicts.append(got)
    authors_remaining.cache_clear()
    assert verdicts[0] is None and verdicts[-1] == full  # both regimes reached: gives up, then finds it


def test_authors_remaining__solved_and_default_cap() -> None:
    authors_remaining.cache_clear()
    state = from_ascii(["......RR>"] + ["........"] * 7)
    assert authors_remaining(state) == 0
    assert authors_remaining(BOARDS[0]) == capped_bfs(BOARDS[0], authors_reader.MAX_NODES)
