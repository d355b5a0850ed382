"""The solver's view of a state: candidates cover every legal step, distances are exact."""

from __future__ import annotations

import numpy as np
import pytest

from tests.training.conftest import FIXED_STATES
from vgau_data.puzzles.base import Illegal
from vgau_data.registry import FAMILIES, get_family
from vgau_data.training.traces.search import CANDIDATES, Search, describe_step


def test_every_family_has_candidate_steps() -> None:
    assert set(CANDIDATES) == set(FAMILIES)


@pytest.mark.parametrize("family", list(FIXED_STATES))
def test_candidates_include_every_legal_step(family: str) -> None:
    """Random steps the family itself proposes, from every state of the optimal walk: each legal one is a candidate.

    Boards are compared as they look (``fidelity.cell_labels``): path's random steps declare no
    label, while its candidate declares the label it steps on, as the per-step format asks.
    """
    spec = get_family(family)
    search = Search(spec)
    state = spec.from_json(FIXED_STATES[family])
    rng = np.random.default_rng(0)
    states = [state, *spec.trajectory(state, spec.solve(state).answer)[:-1]]
    checked = 0
    for current in states:
        reachable = {spec.fidelity.cell_labels(after) for _, after in search.legal(current)}
        for _ in range(60):
            step = spec.random_step(current, rng)
            after = spec.apply_step(current, step) if step is not None else Illegal("no_answer", 0)
            if not isinstance(after, Illegal):
                checked += 1
                assert spec.fidelity.cell_labels(after) in reachable, f"{family}: legal step {step!r} is not a candidate"
    assert checked > 0


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
