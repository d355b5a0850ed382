"""Every family's candidate steps cover every legal step (brute force over its step vocabulary); the check
catches a family that forgets one."""

from __future__ import annotations

import dataclasses
import itertools
from typing import Any

import numpy as np
import pytest

from vgau_data.puzzles.base import FamilySpec, Illegal
from vgau_data.registry import FAMILIES, get_family
from vgau_data.seeding import instance_seed, rng_for
from vgau_data.testing.step_checks import check_candidate_steps, step_vocabulary

WALK_STATES = 4
"""States taken along each solution (start to goal, evenly spaced) and along a random walk of legal candidates."""


def _states(spec: FamilySpec) -> list[Any]:
    """A generated state per bucket, states along its solution, and states a random walk over candidates reaches."""
    rng = np.random.default_rng(0)
    states = []
    for difficulty in spec.buckets:
        state = spec.generate(difficulty, rng_for(instance_seed(0, spec.name, difficulty, 0)))
        path = spec.trajectory(state, spec.solve(state).answer)
        states += [state, *path[:: max(1, len(path) // WALK_STATES)]]
        for _ in range(WALK_STATES):
            afters = (spec.apply_step(state, step) for step in spec.candidate_steps(state))
            legal = [after for after in afters if not isinstance(after, Illegal)]
            if not legal:
                break
            state = legal[int(rng.integers(len(legal)))]
            states.append(state)
    return states


def _failures(spec: FamilySpec, states: list[Any]) -> list[str]:
    failures: list[str] = []
    check_candidate_steps(spec, states, lambda ok, what: ok or failures.append(what))
    return failures


@pytest.mark.parametrize("family", list(FAMILIES))
def test_candidate_steps__cover_every_legal_step_of_generated_states(family: str) -> None:
    spec = get_family(family)
    assert _failures(spec, _states(spec)) == []


@pytest.mark.parametrize("family", ["parking", "onet", "path"])
def test_a_family_that_forgets_a_step__is_reported(family: str) -> None:
    """Dropping the last legal candidate of each state (a vehicle, a fruit pair, a move) fails the check."""
    spec = get_family(family)

    def forgetful(state: Any) -> list[Any]:
        steps = list(spec.candidate_steps(state))
        legal = [step for step in steps if not isinstance(spec.apply_step(state, step), Illegal)]
        return [step for step in steps if not legal or step != legal[-1]]

    failures = _failures(dataclasses.replace(spec, candidate_steps=forgetful), _states(spec)[:3])
    assert failures and all("no candidate leads to" in failure for failure in failures)


def test_an_unreadable_or_badly_coded_candidate__is_reported() -> None:
    maze = get_family("maze")
    state = maze.fidelity.palette_states()[0]
    failures = _failures(
        dataclasses.replace(maze, candidate_steps=lambda s: ("up", "down", "left", "right", "north")), [state]
    )
    assert any("'north'" in failure and "not a step code" not in failure for failure in failures)
    coded = dataclasses.replace(
        maze, apply_step=lambda s, step: Illegal("no_answer", 0) if step == "up" else maze.apply_step(s, step)
    )
    assert any("Illegal('no_answer'), not a step code" in failure for failure in _failures(coded, [state]))


def test_the_vocabulary_spans_every_part_of_each_shape() -> None:
    """Path: four moves times every run of distinct letters (326 of 5); klotski: every cell times four directions."""
    path = get_family("path")
    state = path.generate("easy", rng_for(1))
    letters = [letter for letter, _ in state.labels]
    vocabulary = step_vocabulary(path.candidate_steps(state), path.geometry, letters)
    assert len(vocabulary) == 4 * sum(1 for n in range(len(letters) + 1) for _ in itertools.permutations(letters, n))
    klotski = get_family("klotski")
    assert (
        len(step_vocabulary(klotski.candidate_steps(klotski.fidelity.palette_states()[0]), klotski.geometry)) == 36 * 4
    )
