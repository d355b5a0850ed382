"""exploratory: VCoT rounds along a seeded walk with feasible detours, so a trace's length does not give away the optimum.

The paper's "optimal-step prior leakage" (section 4.4): when every trace is exactly
``optimal_length`` steps long, a model learns to stop after that many, and the length
itself becomes a hint. An exploratory trace takes ``k`` detours, ``k`` drawn uniformly
from ``0..n//2 + 1`` for an optimum of ``n``: at a detour a legal step that does not bring
the goal closer (the goal stays as far or one step farther, and stays reachable), spread
over the walk at random; every other step is one of the steps that bring the goal one
closer, chosen at random among ties. Each detour costs one or two extra steps, so a
trace of ``L`` steps may come from any optimum between ``L - 2k`` and ``L``. Every step
is legal, the walk ends at the goal, and ``replay`` accepts it as a feasible answer;
the same row's rng gives the same walk. Families where every step brings the goal
closer (onet: each removal clears two tiles) get a random solver-optimal order instead.
The record has the ``visual_cot`` layout.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from vgau_data.errors import GenerationError
from vgau_data.puzzles.base import FamilySpec
from vgau_data.training.traces.record import Record, TraceKind
from vgau_data.training.traces.search import Search
from vgau_data.training.traces.visual_cot import drawn_question, vcot_record


def detour_count(optimum: int, rng: np.random.Generator) -> int:
    """How many detours a walk of optimum ``optimum`` takes: uniform over ``0..optimum//2 + 1``."""
    return int(rng.integers(0, optimum // 2 + 2))


def walk_with_detours(
    spec: FamilySpec, state: Any, rng: np.random.Generator, search: Search | None = None
) -> tuple[Any, ...]:
    """A legal walk from ``state`` to the goal with ``detour_count`` detours (see the module docstring).

    Raises:
        GenerationError: the state has no solution, or the search finds no step closer to the goal.
    """
    search = search or Search(spec)
    remaining = search.distance(state)
    if remaining is None:
        raise GenerationError(f"{spec.name}: an exploratory trace needs a solvable state")
    detours = detour_count(remaining, rng)
    steps: list[Any] = []
    while remaining > 0:
        options = [o for o in search.options(state) if o.remaining is not None]
        closer = [o for o in options if o.remaining == remaining - 1]
        away = [o for o in options if remaining <= o.remaining <= remaining + 1]  # type: ignore[operator]
        if not closer:
            raise GenerationError(f"{spec.name}: no legal step brings the goal closer from a state {remaining} away")
        if detours and away and rng.random() < detours / remaining:
            choice = away[int(rng.integers(len(away)))]
            detours -= 1
        else:
            choice = closer[int(rng.integers(len(closer)))]
        steps.append(choice.step)
        state, remaining = choice.after, choice.remaining
    return tuple(steps)


def build(spec: FamilySpec, state: Any, answer: tuple[Any, ...], rng: np.random.Generator) -> Record:
    steps = walk_with_detours(spec, state, rng)
    verdict = spec.replay(state, steps)
    if not verdict.feasible:
        raise GenerationError(f"{spec.name}: an exploratory walk does not replay ({verdict.error})")
    return vcot_record(spec, state, steps, annotated=False)


KIND = TraceKind(
    name="exploratory",
    summary="VCoT rounds along a seeded walk with feasible detours: its length does not reveal the optimum",
    build=build,
    drawn_question=drawn_question,
)
