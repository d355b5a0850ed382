"""A worker's answer to a body, in this process: the per-label solve budget, the deadline, the value count."""

from __future__ import annotations

import json
import time
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.rewards.server.conftest import PROMPT, parking_bomb
from vgau_data.rewards.server.body import too_many_values
from vgau_data.rewards.server.limits import ServerLimits
from vgau_data.rewards.server.scoring import answer

SHORT = ServerLimits(solve_seconds=0.3)
BOMB_ANSWER = '<ANSWER_JSON>[{"car":"R","direction":"right"}]</ANSWER_JSON>'


def test_a_label_past_its_solve_budget__pays_0_with_the_reason_and_its_other_samples_are_not_solved_again(
    reward_rows: list[dict[str, Any]]
) -> None:
    bomb = parking_bomb()
    body = json.dumps({"query": [PROMPT + BOMB_ANSWER] * 3 + [PROMPT + reward_rows[0]["answer"]],
                       "prompts": [PROMPT] * 4, "labels": [bomb] * 3 + [reward_rows[0]["state"]]}).encode()  # fmt: skip
    start = time.monotonic()
    reply = answer(body, 30.0, "progress", SHORT)
    took = time.monotonic() - start
    assert reply.status == 200 and not reply.recycle
    logs = json.loads(reply.body)
    assert logs["rewards"] == [0.0, 0.0, 0.0, 1.0]
    assert logs["extra_logs"]["vgau_over_budget"] == [1.0, 1.0, 1.0, 0.0]
    assert took < 0.3 + 2.0  # one budget, not three (its positions may run out before its seconds)


def test_the_request_deadline__caps_a_samples_budget_and_stops_the_rest(reward_rows: list[dict[str, Any]]) -> None:
    bomb = parking_bomb()
    body = json.dumps({"query": [PROMPT + BOMB_ANSWER, PROMPT + BOMB_ANSWER + " "], "prompts": [PROMPT] * 2,
                       "labels": [bomb, json.dumps({"ground_truth": bomb, "family": "parking"})]}).encode()  # fmt: skip
    start = time.monotonic()
    reply = answer(body, 0.4, "progress", ServerLimits(solve_seconds=10, solve_positions=10**9))  # time binds
    assert reply.status == 504 and "deadline" in json.loads(reply.body)["error"]
    assert time.monotonic() - start < 0.4 + 1.0


def test_kinds_that_never_solve__are_not_timed_out(reward_rows: list[dict[str, Any]]) -> None:
    """Labels as ``export-training --format openrlhf`` writes them (the optimum given): nothing is solved, so a
    budget far under the slowest row's search (klotski's 16-move row: 0.34 s on a loaded machine) never binds."""
    labels = [json.dumps({"ground_truth": row["state"], "family": row["task"], "optimal_length": row["optimal_length"]})
              for row in reward_rows]  # fmt: skip
    body = json.dumps({"query": [PROMPT + row["answer"] for row in reward_rows], "prompts": [PROMPT] * len(reward_rows),
                       "labels": labels}).encode()  # fmt: skip
    reply = answer(body, 30.0, "optimal", ServerLimits(solve_seconds=0.01))
    assert json.loads(reply.body)["rewards"] == [1.0] * len(reward_rows)


JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(alphabet=',:[]{}"\\ab', max_size=6),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(alphabet=',:[{"\\', max_size=3),
                                                                      children, max_size=3),
    max_leaves=20,
)  # fmt: skip


def _values(value: Any) -> int:
    if isinstance(value, list):
        return 1 + sum(_values(item) for item in value)
    if isinstance(value, dict):
        return 1 + len(value) + sum(_values(item) for item in value.values())  # keys are strings
    return 1


@settings(max_examples=200, deadline=None)
@given(JSON_VALUES)
def test_the_value_count__bounds_what_a_parse_makes_and_skips_separators_in_strings(value: Any) -> None:
    body = json.dumps(value).encode()
    made = _values(value)
    assert too_many_values(body, made - 1)  # never under the values made
    assert not too_many_values(body, 2 * made)  # at most twice them, whatever the strings hold


def test_a_workers_searches__are_cached_across_its_samples_and_requests(reward_rows: list[dict[str, Any]]) -> None:
    """``progress`` searches the distance left after a partial answer; a sample with the full solve budget left is
    scored with that budget, equal in every request, so the core's search cache (keyed by budget) serves the
    repeats (a budget of the seconds left to the deadline would miss it every time)."""
    from vgau_data.registry import FAMILIES
    from vgau_data.rewards import _cached_distance

    row = next(row for row in reward_rows if row["task"] == "maze" and row["optimal_length"] > 2)
    maze = FAMILIES["maze"]
    first_move = PROMPT + maze.format_answer(maze.answer_from_payload(row["solution"])[:1])
    body = json.dumps({"query": [first_move] * 2, "prompts": [PROMPT] * 2, "labels": [row["state"]] * 2}).encode()
    first = answer(body, 30.0, "progress", ServerLimits())
    searched = _cached_distance.cache_info()
    second = answer(body, 30.0, "progress", ServerLimits())
    after = _cached_distance.cache_info()
    assert first.body == second.body and json.loads(second.body)["rewards"] == [pytest.approx(1 / row["optimal_length"])] * 2
    assert (after.misses, after.hits) == (searched.misses, searched.hits + 2)


@pytest.mark.parametrize(("levels", "message"), [(65, "nested more than 64 levels deep"), (64, "JSON object"),
                                                 (5000, "nested more than 64 levels deep")])  # fmt: skip
def test_nesting__past_64_levels_is_refused_as_safe_json_refuses_it(levels: int, message: str) -> None:
    """orjson parses up to 1024 levels and refuses deeper; the depth check after it keeps the core's 64."""
    body = b"[" * levels + b"]" * levels
    reply = answer(body, 30.0, "optimal", ServerLimits(max_samples=10_000))  # a count limit the nesting is under
    assert (reply.status, message in json.loads(reply.body)["error"]) == (400, True)


@settings(max_examples=200, deadline=None)
@given(JSON_VALUES)
def test_the_body__is_read_as_the_standard_library_reads_it(value: Any) -> None:
    """Any standard JSON reaches the checks as ``json.loads`` makes it: a body of a list or a bare value is
    refused for its shape, never for its syntax."""
    reply = answer(json.dumps(value).encode(), 30.0, "optimal", ServerLimits())
    assert reply.status in (400, 422)
    assert "not valid JSON" not in json.loads(reply.body)["error"]
