"""The bounded search every reward search runs: exact within its budget, and a defined stop past it."""

from __future__ import annotations

from typing import Any

import pytest

from vgau_data.registry import FAMILIES
from vgau_data.rewards.budget import (
    DEFAULT_BUDGET,
    SolveBudget,
    SolveBudgetError,
    SolveBudgetExceeded,
    bounded_distance,
)


def test_the_distance__is_every_rows_optimum_in_every_family(reward_rows: list[dict[str, Any]]) -> None:
    for row in reward_rows:
        family = FAMILIES[row["task"]]
        state = family.from_json(row["state"])
        assert bounded_distance(family, state, DEFAULT_BUDGET) == row["optimal_length"], row["id"]


def test_within__looks_no_deeper_and_a_solved_state_is_0(reward_rows: list[dict[str, Any]]) -> None:
    row = next(row for row in reward_rows if row["task"] == "sokoban" and row["optimal_length"] > 3)
    family = FAMILIES["sokoban"]
    state = family.from_json(row["state"])
    optimum = row["optimal_length"]
    assert bounded_distance(family, state, DEFAULT_BUDGET, within=optimum) == optimum
    assert bounded_distance(family, state, DEFAULT_BUDGET, within=optimum - 1) is None
    end = family.trajectory(state, family.answer_from_payload(row["solution"]))[-1]
    assert bounded_distance(family, end, SolveBudget(positions=1)) == 0


@pytest.mark.parametrize("family_name", ["klotski", "parking", "maze"])
def test_past_the_positions__the_search_stops_with_solve_budget_exceeded(
    reward_rows: list[dict[str, Any]], family_name: str
) -> None:
    """Maze by the search over the family's rules, klotski and parking by their own solvers' position limits."""
    row = max((row for row in reward_rows if row["task"] == family_name), key=lambda row: row["optimal_length"])
    family = FAMILIES[family_name]
    with pytest.raises(SolveBudgetExceeded, match="more than 3 positions"):
        bounded_distance(family, family.from_json(row["state"]), SolveBudget(positions=3))


def test_past_the_seconds__the_search_stops_too(reward_rows: list[dict[str, Any]]) -> None:
    row = max((row for row in reward_rows if row["task"] == "sokoban"), key=lambda row: row["optimal_length"])
    family = FAMILIES["sokoban"]
    with pytest.raises(SolveBudgetExceeded, match="took more than 1e-06 s"):
        bounded_distance(family, family.from_json(row["state"]), SolveBudget(seconds=1e-6))


@pytest.mark.parametrize("budget", [SolveBudget(positions=0), SolveBudget(positions=True), SolveBudget(seconds=0),
                                    SolveBudget(seconds=float("nan")), SolveBudget(positions=1.5)])  # fmt: skip
def test_a_budget_that_is_not_positive__is_refused(budget: SolveBudget) -> None:
    with pytest.raises(SolveBudgetError, match="must be"):
        budget.checked()
