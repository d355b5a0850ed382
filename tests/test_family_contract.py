"""The contract every registered family honours (SPEC §1-§4), parametrised over the registry."""

from __future__ import annotations

import json
from typing import Any

import numpy as np
import pytest

from vgau_data.oracle_aids import annotate, oracle_aid
from vgau_data.puzzles.base import DELTAS, DIFFICULTIES, FamilySpec
from vgau_data.registry import FAMILIES
from vgau_data.seeding import instance_seed, rng_for

SPEC_BUCKETS = {
    "maze": {"easy": (1, 6), "medium": (7, 17), "hard": (18, 30)},
    "sokoban": {"easy": (1, 8), "medium": (10, 16), "hard": (20, 39)},
    "path": {"easy": (2, 5), "medium": (8, 14), "hard": (18, 25)},
    "onet": {"easy": (4, 6), "medium": (7, 10), "hard": (12, 16)},
    "parking": {"easy": (1, 5), "medium": (8, 16), "hard": (18, 34)},
    "klotski": {"easy": (1, 4), "medium": (6, 10), "hard": (15, 20)},
}
FAMILY_PARAMS = [pytest.param(spec, id=name) for name, spec in FAMILIES.items()]
CASES = [pytest.param(spec, d, id=f"{name}-{d}") for name, spec in FAMILIES.items() for d in DIFFICULTIES]


@pytest.fixture(scope="module")
def instances() -> dict[tuple[str, str], tuple[Any, Any]]:
    """One generated, solved instance per family x bucket (generated once per module)."""
    cache: dict[tuple[str, str], tuple[Any, Any]] = {}
    for name, spec in FAMILIES.items():
        for difficulty in DIFFICULTIES:
            state = spec.generate(difficulty, rng_for(instance_seed(11, name, difficulty, 0)))
            cache[(name, difficulty)] = (state, spec.solve(state))
    return cache


@pytest.mark.parametrize("spec", FAMILY_PARAMS)
def test_family__buckets_match_spec(spec: FamilySpec) -> None:
    assert {d: tuple(r) for d, r in spec.buckets.items()} == SPEC_BUCKETS[spec.name]
    for difficulty, (low, high) in SPEC_BUCKETS[spec.name].items():
        assert spec.bucket_of(low) == spec.bucket_of(high) == difficulty
    covered = {n for low, high in SPEC_BUCKETS[spec.name].values() for n in range(low, high + 1)}
    assert [n for n in range(0, 45) if spec.bucket_of(n) is None] == [n for n in range(0, 45) if n not in covered]


@pytest.mark.parametrize(("spec", "difficulty"), CASES)
def test_family__generated_state_round_trips_through_canonical_json(spec: FamilySpec, difficulty: str, instances) -> None:
    state, _ = instances[(spec.name, difficulty)]
    text = spec.to_json(state)
    assert spec.from_json(text) == state
    assert spec.to_json(spec.from_json(text)) == text
    assert text == json.dumps(json.loads(text), sort_keys=True, separators=(",", ":"), ensure_ascii=False)


@pytest.mark.parametrize(("spec", "difficulty"), CASES)
def test_family__same_rng_gives_same_instance(spec: FamilySpec, difficulty: str, instances) -> None:
    state, _ = instances[(spec.name, difficulty)]
    again = spec.generate(difficulty, rng_for(instance_seed(11, spec.name, difficulty, 0)))
    assert spec.to_json(again) == spec.to_json(state)


@pytest.mark.parametrize(("spec", "difficulty"), CASES)
def test_family__stored_solution_is_optimal_and_in_its_bucket(spec: FamilySpec, difficulty: str, instances) -> None:
    state, solution = instances[(spec.name, difficulty)]
    assert solution is not None
    assert spec.bucket_of(solution.optimal_length) == difficulty
    replayed = spec.replay(state, solution.answer)
    assert replayed.feasible and replayed.error is None
    if spec.name != "path":
        assert len(solution.answer) == replayed.length == solution.optimal_length
    trajectory = spec.trajectory(state, solution.answer)
    assert len(trajectory) == solution.optimal_length
    assert spec.is_goal(trajectory[-1])
    assert not spec.is_goal(state)


@pytest.mark.parametrize(("spec", "difficulty"), CASES)
def test_family__answer_text_round_trips(spec: FamilySpec, difficulty: str, instances) -> None:
    state, solution = instances[(spec.name, difficulty)]
    assert spec.parse_answer(spec.format_answer(solution.answer)) == tuple(solution.answer)
    json.loads(spec.answer_payload(solution.answer))
    random_answer = spec.random_answer(state, np.random.default_rng(0))
    assert spec.parse_answer(spec.format_answer(random_answer)) == tuple(random_answer)


def oracle_episode_steps(spec: FamilySpec, state: Any, solution: Any) -> tuple[Any, ...]:
    """The per-turn steps an interactive oracle takes: the answer, or path's marker moves."""
    if spec.name != "path":
        return spec.parse_steps(spec.format_steps(solution.answer))
    positions = [state.start] + [s.position for s in spec.trajectory(state, solution.answer)]
    names = {delta: name for name, delta in DELTAS.items()}
    return tuple(names[(b[0] - a[0], b[1] - a[1])] for a, b in zip(positions, positions[1:]))


@pytest.mark.parametrize(("spec", "difficulty"), CASES)
def test_family__episode_of_the_oracle_steps_scores_like_the_answer(spec: FamilySpec, difficulty: str, instances) -> None:
    state, solution = instances[(spec.name, difficulty)]
    steps = oracle_episode_steps(spec, state, solution)
    assert spec.parse_steps(spec.format_steps(steps)) == steps
    assert spec.episode_answer(state, steps) == tuple(solution.answer)
    current = state
    for step, expected in zip(steps, spec.trajectory(state, solution.answer), strict=True):
        current = spec.apply_step(current, step)
        assert current == expected
    assert spec.is_goal(current)


@pytest.mark.parametrize("spec", FAMILY_PARAMS)
def test_family__render_is_an_rgb_board_of_the_declared_size(spec: FamilySpec, instances) -> None:
    state, _ = instances[(spec.name, "medium")]
    image = spec.render(state)
    assert image.mode == "RGB"
    assert image.size == spec.geometry.size
    assert max(image.size) >= 512
    assert spec.render(state).tobytes() == image.tobytes()


@pytest.mark.parametrize("spec", FAMILY_PARAMS)
def test_family__oracle_aid_adds_red_grid_and_labels(spec: FamilySpec, instances) -> None:
    state, _ = instances[(spec.name, "easy")]
    board, aid = spec.render(state), oracle_aid(spec, state)
    assert aid.size == board.size
    assert aid.tobytes() != board.tobytes()
    geometry = spec.geometry
    # a pixel on the top grid line, midway along the first cell's edge, is red in the aid
    x = geometry.margin_left + geometry.cell_px // 2 + (0 if not spec.dashed_grid else -geometry.cell_px // 2 + 3)
    y = geometry.margin_top
    assert aid.getpixel((x, y)) == (220, 20, 20)
    with pytest.raises(ValueError, match="boards are"):
        annotate(spec, board.resize((100, 100)))


@pytest.mark.parametrize(("spec", "difficulty"), CASES)
def test_family__questions_state_the_exact_answer_format(spec: FamilySpec, difficulty: str, instances) -> None:
    state, solution = instances[(spec.name, difficulty)]
    markers = {
        "maze": "<ANSWER_JSON>",
        "sokoban": "<ANSWER_JSON>",
        "parking": "<ANSWER_JSON>",
        "path": "<answer>",
        "onet": "<answer_json>",
        "klotski": '"solution"',
    }
    for style in ("text_cot", "direct"):
        question = spec.question(state, style)
        assert markers[spec.name] in question
        assert spec.answer_payload(solution.answer) not in question
    assert spec.question(state, "text_cot") != spec.question(state, "direct")
