"""PuzzleEnv: reset/step on real dataset instances of every family."""

from __future__ import annotations

import pytest

from tests.families import SHIPPED
from vgau_data.oracle_aids import annotate
from vgau_data.puzzles.base import DIRECTIONS, Illegal
from vgau_data.puzzles.path.state import PathStep
from vgau_data.runners.environment import PuzzleEnv


def _first(instances, family: str, minimum_length: int = 1):
    return next(i for i in instances if i.task == family and i.optimal_length >= minimum_length)


@pytest.mark.parametrize("family", SHIPPED)  # the families of the runners' dataset (conftest.py)
def test_env__oracle_steps_reach_the_goal_exactly_at_the_last_step(family: str, instances) -> None:
    instance = _first(instances, family)
    spec = instance.family
    env = PuzzleEnv(spec, instance.initial_state())
    assert env.reset().tobytes() == instance.image.convert("RGB").tobytes()
    steps = spec.oracle_steps(instance.initial_state())
    assert len(steps) == instance.optimal_length
    previous = env.render().tobytes()
    for index, step in enumerate(steps):
        result = env.step(step)
        assert result.illegal is None
        assert result.goal == env.goal == (index == len(steps) - 1)
        assert result.image is not None and result.image.size == spec.geometry.size
        assert result.image.tobytes() != previous
        previous = result.image.tobytes()
    replayed = spec.replay(instance.initial_state(), tuple(env.steps))
    assert replayed.feasible and replayed.length == instance.optimal_length
    assert not env.over  # the goal does not end the environment: the protocol decides


@pytest.mark.parametrize("family", SHIPPED)  # the families of the runners' dataset (conftest.py)
def test_env__annotated_boards_carry_the_oracle_grid(family: str, instances) -> None:
    instance = _first(instances, family)
    state = instance.initial_state()
    env = PuzzleEnv(instance.family, state, annotate=True)
    first = env.reset()
    assert first.tobytes() == annotate(instance.family, instance.family.render(state), state).tobytes()
    assert first.tobytes() == instance.aid().convert("RGB").tobytes()


@pytest.mark.parametrize("family", ["maze", "sokoban", "path"])
def test_env__an_illegal_step_ends_the_episode_with_its_code_and_no_new_board(family: str, instances) -> None:
    as_step = PathStep if family == "path" else str
    tries = [
        (instance, as_step(direction), instance.family.apply_step(instance.initial_state(), as_step(direction)))
        for instance in instances
        if instance.task == family
        for direction in DIRECTIONS
    ]
    blocked = [(instance, step, result) for instance, step, result in tries if isinstance(result, Illegal)]
    assert blocked, f"no {family} instance has a blocked direction at the start"
    instance, step, expected = blocked[0]
    spec, state = instance.family, instance.initial_state()
    env = PuzzleEnv(spec, state)
    env.reset()
    result = env.step(step)
    assert (env.over, result.goal, result.image, result.illegal) == (True, False, None, expected.code)
    assert expected.code in result.feedback
    assert spec.replay(state, tuple(env.steps)).error == expected.code  # path too: its steps are a walk
    with pytest.raises(RuntimeError, match="illegal"):
        env.step(step)


def test_env__reset_restarts_the_episode(instances) -> None:
    instance = _first(instances, "maze", minimum_length=2)
    env = PuzzleEnv(instance.family, instance.initial_state())
    start = env.reset().tobytes()
    env.step(instance.family.oracle_steps(instance.initial_state())[0])
    assert env.reset().tobytes() == start
    assert env.steps == [] and not env.over
