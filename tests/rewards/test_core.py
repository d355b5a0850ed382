"""The reward core: every valid answer pays, nothing else does, and no text makes it raise."""

from __future__ import annotations

import functools
import json
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from vgau_data.errors import StateError
from vgau_data.metrics.scoring import make_reference
from vgau_data.registry import FAMILIES
from vgau_data.rewards import (
    REWARD_KINDS,
    STATE_CACHE_SIZE,
    RewardError,
    _entry,
    family_of,
    get_kind,
    reward,
    reward_kind,
    score,
    score_steps,
)
from vgau_data.seeding import rng_for

KINDS = ("optimal", "feasible", "progress", "format")


def test_registry__holds_the_four_kinds_and_refuses_a_second_registration() -> None:
    assert tuple(REWARD_KINDS) == KINDS
    assert REWARD_KINDS["progress"].needs_progress and not REWARD_KINDS["optimal"].needs_progress
    with pytest.raises(ValueError, match="already registered"):
        reward_kind("optimal", "again")(lambda record: 0.0)
    with pytest.raises(RewardError, match="optimal, feasible, progress, format"):
        get_kind("accuracy")


def test_oracle_answer_of_every_row__pays_every_kind_however_the_row_is_given(reward_rows: list[dict[str, Any]]) -> None:
    for row in reward_rows:
        ways = [
            {"family": row["task"], "optimal_length": row["optimal_length"]},
            {"family": row["task"]},  # the optimum is solved
            {},  # the family is found from the state
        ]
        for way in ways:
            for kind in KINDS:
                assert reward(row["answer"], row["state"], kind, **way) == 1.0, (row["id"], way, kind)
        record = score(row["answer"], make_reference(row))  # the reference JSON as the ground truth
        assert record.optimal and record.optimal_length == row["optimal_length"] and record.first_illegal is None


@pytest.mark.parametrize("text", ["", "   ", None, 42, ["up"], {"answer": "up"}, "no idea", "<ANSWER_JSON>[</ANSWER_JSON>"])
def test_no_answer_or_garbage__pays_nothing_and_says_why(reward_rows: list[dict[str, Any]], text: object) -> None:
    for row in reward_rows:
        record = score(text, row["state"], family=row["task"], progress=True)
        assert not record.parsed and not record.feasible and record.progress == 0.0
        assert record.error in ("no_answer", "bad_format", "unknown_action")
        assert all(reward(text, row["state"], kind) == 0.0 for kind in KINDS)


@functools.cache
def _a_state(name: str) -> str:
    """A palette board, or an easy one for a family without cell decoding (state JSON)."""
    family = FAMILIES[name]
    state = family.fidelity.palette_states()[0] if family.fidelity else family.generate("easy", np.random.default_rng(0))
    return family.to_json(state)


@settings(max_examples=60, deadline=None)
@given(st.text(max_size=400))
def test_any_text__never_raises(text: str) -> None:
    for family in FAMILIES.values():
        state = _a_state(family.name)
        for kind in KINDS:
            assert 0.0 <= reward(text, state, kind) <= 1.0


def _illegal_step(family: Any, state: Any, oracle: tuple[Any, ...]) -> tuple[int, Any]:
    """``(k, step)``: a step the rules reject after the first ``k`` oracle steps (a wall, a wrong label...)."""
    rng = rng_for(3)
    candidates = list(oracle)
    for _ in range(100):
        candidates.extend(family.random_answer(state, rng))
    for k in range(len(oracle)):
        for step in candidates:
            verdict = family.replay(state, (*oracle[:k], step))
            if verdict.error not in (None, "not_solved", "unknown_action") and verdict.first_invalid_step == k:
                return k, step
    raise AssertionError(f"no illegal step found for {family.name}")


def test_one_illegal_move__pays_only_format_and_names_where(reward_rows: list[dict[str, Any]]) -> None:
    for row in reward_rows:
        family = FAMILIES[row["task"]]
        state = family.from_json(row["state"])
        oracle = tuple(family.answer_from_payload(row["solution"]))
        k, illegal = _illegal_step(family, state, oracle)
        text = family.format_answer((*oracle[:k], illegal, *oracle[k:]))
        record = score(text, row["state"], progress=True)
        assert record.parsed and record.first_illegal == k and record.error not in (None, "not_solved"), row["id"]
        assert (reward(text, row["state"], "optimal"), reward(text, row["state"], "feasible")) == (0.0, 0.0)
        assert reward(text, row["state"], "format") == 1.0
        if family.name != "path":
            assert record.progress == pytest.approx(k / len(oracle))


def test_one_extra_move__is_never_optimal(reward_rows: list[dict[str, Any]]) -> None:
    for row in reward_rows:
        family = FAMILIES[row["task"]]
        oracle = family.answer_from_payload(row["solution"])
        text = family.format_answer((*oracle, oracle[-1]))
        record = score(text, row["state"], optimal_length=row["optimal_length"], progress=True)
        assert record.parsed and not record.optimal, row["id"]
        assert reward(text, row["state"], "optimal") == 0.0
        assert record.progress < 1.0, row["id"]  # infeasible: never paid as much as a solution
        if not family.unique_length:  # the moves before the extra one reached the goal: d0 / (d0 + 1)
            d0 = row["optimal_length"]
            assert record.progress == pytest.approx(d0 / (d0 + 1)) and record.n_moves == d0 + 1


def test_every_valid_solution_pays__not_only_the_stored_one(reward_rows: list[dict[str, Any]]) -> None:
    """Swapping two steps that commute gives another optimal solution; it pays as much."""
    other_solutions = set()
    for row in reward_rows:
        family = FAMILIES[row["task"]]
        state = family.from_json(row["state"])
        oracle = family.answer_from_payload(row["solution"])
        for i in range(len(oracle) - 1):
            swapped = (*oracle[:i], oracle[i + 1], oracle[i], *oracle[i + 2 :])
            if swapped != oracle and family.replay(state, swapped).feasible:
                assert reward(family.format_answer(swapped), row["state"], "optimal") == 1.0
                other_solutions.add(row["task"])
                break
    assert {"sokoban", "onet", "parking", "klotski"} <= other_solutions


def test_a_detour__is_feasible_but_not_optimal(reward_rows: list[dict[str, Any]]) -> None:
    opposite = {"up": "down", "down": "up", "left": "right", "right": "left"}
    for row in reward_rows:
        if row["task"] != "maze":
            continue
        family = FAMILIES["maze"]
        oracle = family.answer_from_payload(row["solution"])
        detour = (opposite[oracle[0]], oracle[0])  # step back and forth first, where that is legal
        state = family.from_json(row["state"])
        if family.replay(state, (opposite[oracle[0]],)).error == "not_solved":
            text = family.format_answer(detour + tuple(oracle))
            assert (reward(text, row["state"], "feasible"), reward(text, row["state"], "optimal")) == (1.0, 0.0)


def test_progress__is_the_share_of_the_optimal_distance_the_legal_prefix_covers(reward_rows: list[dict[str, Any]]) -> None:
    for row in reward_rows:
        family = FAMILIES[row["task"]]
        if family.name == "path":
            continue  # path answers with labels, not moves: see the next test
        oracle = family.answer_from_payload(row["solution"])
        n = len(oracle)
        for k in range(n):
            record = score_steps(tuple(oracle[:k]), row["state"], family=row["task"], progress=True)
            assert record.progress == pytest.approx(k / n), (row["id"], k)
            assert not record.feasible and record.error == "not_solved" and record.first_illegal is None


def test_progress_of_path_labels__is_the_share_of_the_route_walked_to_the_last_right_label(
    reward_rows: list[dict[str, Any]]
) -> None:
    family = FAMILIES["path"]
    for row in reward_rows:
        if row["task"] != "path":
            continue
        state = family.from_json(row["state"])
        letters = family.answer_from_payload(row["solution"])
        walk = family.oracle_steps(state)
        reached = [i + 1 for i, step in enumerate(walk) for _ in step.hit_labels]  # moves to each label, in order
        for k in range(len(letters)):
            record = score(family.format_answer(letters[:k]), row["state"], progress=True)
            expected = reached[k - 1] / row["optimal_length"] if k else 0.0
            assert record.progress == pytest.approx(expected), (row["id"], k)
        other = next(letter for letter in "ABCDE" if letter not in letters[:2])  # a label, but not the next one
        wrong = score(family.format_answer((*letters[:1], other)), row["state"], progress=True)
        d0 = row["optimal_length"]  # all letters named, then a wrong one: the route passed the goal, d0 / (d0 + 1)
        covered = d0 / (d0 + 1) if len(letters) == 1 else reached[0] / d0
        assert wrong.first_illegal == 1 and wrong.progress == pytest.approx(covered)


def test_the_state_is_parsed_once_per_distinct_json_in_a_bounded_cache(reward_rows: list[dict[str, Any]]) -> None:
    assert _entry.cache_info().maxsize == STATE_CACHE_SIZE
    row = reward_rows[0]
    before = _entry.cache_info()
    for _ in range(5):
        score(row["answer"], row["state"], family=row["task"])
    after = _entry.cache_info()
    assert after.hits - before.hits >= 4 and after.misses - before.misses <= 1


def test_a_state_parses_as_its_own_family_only(reward_rows: list[dict[str, Any]]) -> None:
    for row in reward_rows:
        assert score("", row["state"]).family == row["task"]
        for other in FAMILIES.values():
            if other.name != row["task"]:
                with pytest.raises(StateError):
                    other.from_json(row["state"])


def test_rows_that_are_not_ours__are_refused_with_a_message_naming_ours(reward_rows: list[dict[str, Any]]) -> None:
    state = reward_rows[0]["state"]
    with pytest.raises(RewardError, match="vgau/maze, vgau/sokoban"):
        score("up", state, family="openai/gsm8k")
    with pytest.raises(RewardError, match="state of no vgau_data family"):
        score("up", json.dumps({"question": "1+1"}))
    with pytest.raises(RewardError, match="state JSON string"):
        score("up", None)  # type: ignore[arg-type]
    with pytest.raises(StateError):
        score("up", state, family="sokoban")  # a maze state named sokoban
    with pytest.raises(RewardError, match="non-negative int"):
        score("up", state, optimal_length=-1)
    assert family_of("VGAU/Klotski").name == "klotski"


def test_format__pays_no_empty_answer_and_progress_never_pays_an_infeasible_one_1(reward_rows: list[dict[str, Any]]) -> None:
    for row in reward_rows:
        family = FAMILIES[row["task"]]
        empty = score(family.format_answer(()), row["state"], optimal_length=row["optimal_length"], progress=True)
        assert empty.parsed and reward(family.format_answer(()), row["state"], "format") == 0.0, row["id"]
        assert empty.progress == 0.0
    assert reward(reward_rows[0]["answer"], reward_rows[0]["state"], "format") == 1.0


def test_a_search_past_its_budget__gets_the_defined_result(reward_rows: list[dict[str, Any]]) -> None:
    from vgau_data.rewards import SolveBudget, _cached_distance
    from vgau_data.rewards.budget import SolveBudgetError

    _entry.cache_clear()  # no optimum or distance known from the tests before
    _cached_distance.cache_clear()
    row = next(row for row in reward_rows if row["task"] == "klotski" and row["optimal_length"] > 3)
    family = FAMILIES["klotski"]
    oracle = family.answer_from_payload(row["solution"])
    tight = SolveBudget(positions=2, seconds=5.0)
    solved = score(row["answer"], row["state"], budget=tight)  # no optimum given: the search for it meets the budget
    assert solved.feasible and not solved.optimal and solved.budget_exceeded and solved.optimal_length is None
    assert score(row["answer"], row["state"]).optimal  # the default budget settles it
    half = family.format_answer(oracle[:2])
    short = score(half, row["state"], optimal_length=row["optimal_length"], progress=True, budget=tight)
    assert short.progress == 0.0 and short.budget_exceeded
    assert not score(half, row["state"], optimal_length=row["optimal_length"], progress=True).budget_exceeded
    with pytest.raises(SolveBudgetError, match="positions must be an int >= 1"):
        score(half, row["state"], budget=SolveBudget(positions=0))
