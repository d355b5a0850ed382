"""The solver's view of a state: the family's candidates, exact distances, plans (that candidates cover every
legal step is tests/testing/test_step_checks.py's)."""

from __future__ import annotations

import pytest

from tests.training.conftest import FIXED_STATES, short_state
from vgau_data.registry import FAMILIES, get_family
from vgau_data.training.traces.search import Search, describe_step


def test_the_search_lists_each_family_s_own_candidate_steps() -> None:
    for family in FAMILIES:
        spec = get_family(family)
        state = spec.from_json(short_state(family))
        assert Search(spec).candidates(state) == list(spec.candidate_steps(state))


@pytest.mark.parametrize("family", list(FIXED_STATES))
def test_breadth_first_search_over_candidates_finds_the_solver_optimum(family: str) -> None:
    spec = get_family(family)
    state = spec.from_json(FIXED_STATES[family])
    plan = Search(spec)._bfs(state)
    assert plan is not None and len(plan) == spec.solve(state).optimal_length
    assert spec.replay(state, spec.answer_steps(state, plan)).feasible


def test_options_give_exact_distances_and_reasons() -> None:
    spec = get_family("maze")
    state = spec.from_json(FIXED_STATES["maze"])
    options = {o.step: o for o in Search(spec).options(state)}
    assert options["left"].remaining == 2 and options["left"].illegal is None
    assert options["up"].illegal == "wall" and options["up"].remaining is None


def test_path_plans_from_the_marker_not_the_start() -> None:
    """Path's solver answers from the start; mid-walk, the plan is the rest of the walk."""
    spec = get_family("path")
    state = spec.from_json(FIXED_STATES["path"])
    search = Search(spec)
    walk = spec.trajectory(state, spec.solve(state).answer)
    assert [search.distance(s) for s in walk] == list(range(len(walk) - 1, -1, -1))
    assert spec.is_goal(walk[-1])


def test_describe_step_reads_every_family_s_steps() -> None:
    words = set()
    for family, text in FIXED_STATES.items():
        spec = get_family(family)
        state = spec.from_json(text)
        words |= {describe_step(step) for step in spec.oracle_steps(state)}
    assert {"left", "(3,2) down", "R right"} & words
    assert all("(" not in word or ")" in word for word in words)
