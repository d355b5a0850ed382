"""The gymnasium environments: registered ids, gymnasium's own checker, episodes, seeding, vector envs."""

from __future__ import annotations

import os
import subprocess
import sys
import warnings
from pathlib import Path

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

from tests.families import SHIPPED
from vgau_data.envs import ENV_IDS, env_id
from vgau_data.puzzles.base import Illegal
from vgau_data.registry import FAMILIES, get_family


def _oracle_texts(info: dict) -> list[str]:
    family = get_family(info["family"])
    return [family.format_step(step) for step in family.oracle_steps(family.from_json(info["state"]))]


@pytest.mark.parametrize("name", list(FAMILIES))
def test_make__every_family_passes_gymnasiums_check_env(name: str) -> None:
    env = gymnasium.make(env_id(name), render_mode="rgb_array")
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # check_env reports problems as warnings: none is allowed
        check_env(env.unwrapped)
    assert env.spec.id == f"vgau/{name.capitalize()}-v0"


@pytest.mark.parametrize("name", list(FAMILIES))
def test_step__the_oracle_episode_reaches_the_goal_on_its_last_step(name: str) -> None:
    env = gymnasium.make(env_id(name), render_mode="rgb_array")
    observation, info = env.reset(seed=3)
    assert observation.shape == env.observation_space.shape and observation.dtype == np.uint8
    texts = _oracle_texts(info)
    assert len(texts) == info["optimal_length"] and "written as" in info["instructions"]
    for number, text in enumerate(texts, 1):
        observation, reward, terminated, truncated, info = env.step(text)
        assert (reward, terminated, truncated) == ((1.0, True, False) if number == len(texts) else (0.0, False, False))
        assert info["reason"] is None and info["steps"] == number
    assert np.array_equal(env.render(), observation)
    assert not np.array_equal(observation, env.reset(seed=3)[0])  # the goal board is not the start board


def test_step__an_unreadable_and_an_illegal_step_end_the_episode_with_their_reason_codes() -> None:
    env = gymnasium.make("vgau/Onet-v0")
    start, _ = env.reset(seed=0)
    observation, reward, terminated, truncated, info = env.step("I give up")
    assert (reward, terminated, truncated, info["reason"]) == (0.0, True, False, "no_answer")
    assert np.array_equal(observation, start)
    env.reset(seed=0)
    *_, info = env.step("<STEP_JSON>[[0,0],[0,0]]</STEP_JSON>")
    assert info["reason"] == "same_cell" and "illegal" in info["feedback"]
    with pytest.raises(RuntimeError, match="reset"):
        env.step("<STEP_JSON>[[0,1],[0,2]]</STEP_JSON>")


def test_reset__the_seed_fixes_the_instance_and_options_set_the_difficulty() -> None:
    env = gymnasium.make("vgau/Maze-v0")
    first, info = env.reset(seed=11)
    again, info_again = env.reset(seed=11)
    other, _ = env.reset(seed=12)
    assert np.array_equal(first, again) and info["state"] == info_again["state"]
    assert not np.array_equal(first, other)
    _, hard = env.reset(seed=11, options={"difficulty": "hard"})
    low, high = get_family("maze").buckets["hard"]
    assert hard["difficulty"] == "hard" and low <= hard["optimal_length"] <= high
    with pytest.raises(ValueError, match="difficulty"):
        env.reset(options={"difficulty": "impossible"})


def test_step__the_optimal_budget_truncates_a_legal_episode_that_misses_the_goal() -> None:
    family = get_family("maze")
    env = gymnasium.make("vgau/Maze-v0")
    _, info = env.reset(seed=5)
    state = family.from_json(info["state"])
    optimal = info["optimal_length"]
    first = next(s for s in family.candidate_steps(state) if not isinstance(family.apply_step(state, s), Illegal))
    back = family.apply_step(state, first)
    undo = next(s for s in family.candidate_steps(back) if family.apply_step(back, s) == state)
    steps = [first, undo] * optimal
    outcomes = [env.step(family.format_step(step)) for step in steps[:optimal]]
    assert [o[3] for o in outcomes] == [False] * (optimal - 1) + [True]
    assert not any(o[2] for o in outcomes)
    unbounded = gymnasium.make("vgau/Maze-v0", budget="none")
    unbounded.reset(seed=5)
    assert not any(unbounded.step(family.format_step(step))[3] for step in steps[: optimal + 1])


def test_reset__aug_vcot_shows_the_annotated_board() -> None:
    plain, _ = gymnasium.make("vgau/Klotski-v0").reset(seed=2)
    annotated, info = gymnasium.make("vgau/Klotski-v0", protocol="oracle_aug_vcot").reset(seed=2)
    assert plain.shape == annotated.shape and not np.array_equal(plain, annotated)
    assert "second image" in info["instructions"]
    with pytest.raises(ValueError, match="protocol"):
        gymnasium.make("vgau/Klotski-v0", protocol="direct")


def test_vector_env__sync_vector_envs_step_and_autoreset() -> None:
    envs = gymnasium.make_vec("vgau/Sokoban-v0", num_envs=2, vectorization_mode="sync")
    observations, infos = envs.reset(seed=[0, 1])
    assert observations.shape == (2, *envs.single_observation_space.shape)
    texts = [_oracle_texts({"family": "sokoban", "state": state}) for state in infos["state"]]
    _, _, terminated, _, infos = envs.step([texts[0][0], "no step here"])
    assert terminated.tolist() == [len(texts[0]) == 1, True] and infos["reason"][1] == "no_answer"
    envs.close()


def test_ids__one_per_family() -> None:
    assert tuple(f"vgau/{name.capitalize()}-v0" for name in FAMILIES) == ENV_IDS
    assert set(ENV_IDS) <= set(gymnasium.registry)


def test_environments_page__the_example_runs_and_the_sizes_are_the_boards(tmp_path: Path) -> None:
    from tests.docs.pages import blocks, page

    text = page("environments.md")
    (_, example), *_ = blocks(text, "python")
    script = tmp_path / "example.py"
    script.write_text(example, encoding="utf-8")
    root = str(Path(__file__).resolve().parents[2])
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([root, os.environ.get("PYTHONPATH", "")])}
    done = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, timeout=120, env=env, check=False
    )
    assert done.returncode == 0 and "step 1" in done.stdout, done.stderr[-2000:]
    for name in SHIPPED:  # the page describes the package's families (the suite also registers a toy one)
        width, height = get_family(name).geometry.size
        assert f"{width} x {height}" in text or f"{height} high x {width} wide" in text
