"""Every family's symmetry claim, checked by solving: a transformed board is the same puzzle.

For each family, on generated boards of every bucket: every declared transform (and a
random relabelling) gives a valid board of our rules whose optimum is the same, on which
the original answer with its steps remapped replays as an optimal answer, and which has
the same canonical key. That a transform a family does not claim changes the key, and
what each family's form leaves out, is checked in tests/puzzles/<family>/test_symmetry.py.
"""

from __future__ import annotations

import functools

import numpy as np
import pytest

from vgau_data.builders.instances import RowTask, generate_verified
from vgau_data.puzzles.base import DIFFICULTIES
from vgau_data.puzzles.symmetry import D4, map_cell, map_grid
from vgau_data.registry import FAMILIES
from vgau_data.training.keys import canonical_key, symmetry_of

ROWS_PER_BUCKET = 2


@functools.cache
def boards(family: str) -> list[tuple[object, tuple]]:
    """(state, optimal answer) of the first rows of each bucket of the seed-0 build."""
    found = []
    for difficulty in DIFFICULTIES:
        for index in range(ROWS_PER_BUCKET):
            task = RowTask(family, difficulty, index, 0)
            state, solution = generate_verified(family, difficulty, task.seed, task.slot)
            found.append((state, solution.answer))
    return found


def mapped_answer(family: str, state: object, answer: tuple, transform: str) -> tuple:
    """``answer``'s steps as played on the transformed board (each mapped on the board it is played on)."""
    spec, symmetry = FAMILIES[family], symmetry_of(family)
    steps = spec.answer_steps(state, answer)
    before = [state, *spec.trajectory(state, answer)] if steps == tuple(answer) else [state] * len(answer)
    return tuple(symmetry.map_step(step, transform, board) for step, board in zip(answer, before))


def assert_same_puzzle(family: str, state: object, other: object, answer: tuple) -> None:
    spec = FAMILIES[family]
    other = spec.from_json(spec.to_json(other))  # a valid board under our rules
    optimum = spec.solve(state).optimal_length
    assert spec.solve(other).optimal_length == optimum
    replay = spec.replay(other, answer)
    assert replay.feasible and replay.length == optimum, replay
    assert canonical_key(family, other) == canonical_key(family, state)


DECLARED = [name for name, spec in FAMILIES.items() if spec.symmetry is not None]


def test_every_family_with_published_test_instances_declares_a_symmetry() -> None:
    """The authors' 600 and ours are keyed up to it: without one only exact copies would be caught."""
    published = [name for name, spec in FAMILIES.items() if spec.paper is not None]
    assert published and set(published) <= set(DECLARED)
    assert all(len(FAMILIES[name].symmetry.transforms) > 1 for name in published)


@pytest.mark.parametrize("family", DECLARED)
def test_every_declared_transform_keeps_the_puzzle_and_the_key(family: str) -> None:
    symmetry = symmetry_of(family)
    for state, answer in boards(family):
        for transform in symmetry.transforms:
            turned = symmetry.apply(state, transform)
            assert_same_puzzle(family, state, turned, mapped_answer(family, state, answer, transform))


@pytest.mark.parametrize("family", [name for name in DECLARED if FAMILIES[name].symmetry.relabel is not None])
def test_a_random_relabelling_keeps_the_puzzle_and_the_key(family: str) -> None:
    symmetry = symmetry_of(family)
    rng = np.random.default_rng(7)
    for state, answer in boards(family):
        renamed, step_map = symmetry.relabel(state, rng)
        assert FAMILIES[family].to_json(renamed) != FAMILIES[family].to_json(state)
        assert_same_puzzle(family, state, renamed, tuple(step_map(step) for step in answer))


@pytest.mark.parametrize("family", list(FAMILIES))
def test_the_fast_forms_are_the_forms_of_each_transform(family: str) -> None:
    symmetry = symmetry_of(family)
    for state, answer in boards(family):
        for board in [state, *FAMILIES[family].trajectory(state, answer)[:-1]]:
            assert symmetry.forms(board) == [symmetry.form(symmetry.apply(board, t)) for t in symmetry.transforms]


@pytest.mark.parametrize("family", list(FAMILIES))
def test_different_boards_have_different_keys(family: str) -> None:
    keys = [canonical_key(family, state) for state, _ in boards(family)]
    assert len(set(keys)) == len(keys)


def test_d4_maps_cells_and_grids_consistently() -> None:
    grid = ("ab.", "...", "..c")
    for transform in D4:
        turned = map_grid(transform, grid)
        for r in range(3):
            for c in range(3):
                tr, tc = map_cell(transform, (r, c), 3)
                assert turned[tr][tc] == grid[r][c]
    with pytest.raises(ValueError, match="square"):
        map_grid("rot90", ("ab",))
