"""Bounded searches for the rewards: every solve a reward makes stops at a budget, with a defined result.

A reward that solves (the optimum of a row given without ``optimal_length``, the distance
left for ``progress``, whether a drawn step is one move closer) must never run an
unbounded search inside a trainer: one hard board would stall a whole batch. So the
rewards do not call the families' exhaustive solvers; they run one breadth-first search
over the family's own rules (``candidate_steps``, ``apply_step``, ``is_goal``), which gives
the exact fewest moves (every family's moves count one each) and stops after
``SolveBudget.positions`` positions or ``SolveBudget.seconds`` seconds, raising
``SolveBudgetExceeded``. A family whose solver takes a position limit itself
(``solve(state, max_states=...)``: parking and klotski, whose boards a plain search over
their rules would take seconds on) is solved by it, limited to ``positions``. The reward core turns that into a defined result: ``progress``
0 and ``optimal`` 0, with ``Score.budget_exceeded`` set (see ``vgau_data.rewards.score``).

The position limit is deterministic (the same answer gets the same reward on any
machine); the time limit is a safety net that only a slow or loaded machine reaches
before it, and then the result depends on the machine.
"""

from __future__ import annotations

import functools
import inspect
import time
from typing import Any, NamedTuple

from vgau_data.errors import SearchLimitError, VgauError
from vgau_data.puzzles.base import FamilySpec, Illegal

_CLOCK_EVERY = 64
"""Positions expanded between two looks at the clock."""


class SolveBudget(NamedTuple):
    """The most one reward search may take: ``positions`` met, ``seconds`` of wall time.

    A NamedTuple (hashable, so searches are cached per budget). The default,
    ``DEFAULT_BUDGET``, fits every benchmark row's own search (the largest meets ~20k
    positions) several times over.

    Example:
        >>> tight = SolveBudget(positions=1, seconds=1.0)
        >>> tight.positions, DEFAULT_BUDGET.positions
        (1, 200000)
    """

    positions: int = 200_000
    seconds: float = 2.0

    def checked(self) -> SolveBudget:
        """This budget, refused with ``SolveBudgetError`` unless both limits are positive numbers."""
        if isinstance(self.positions, bool) or not isinstance(self.positions, int) or self.positions < 1:
            raise SolveBudgetError(f"SolveBudget.positions must be an int >= 1, got {self.positions!r:.40}")
        if isinstance(self.seconds, bool) or not isinstance(self.seconds, (int, float)) or not self.seconds > 0:
            raise SolveBudgetError(f"SolveBudget.seconds must be a number > 0, got {self.seconds!r:.40}")
        return self


DEFAULT_BUDGET = SolveBudget()
"""The budget of every reward search unless ``budget=`` names another."""


class SolveBudgetError(VgauError, ValueError):
    """A ``SolveBudget`` whose limits are not positive numbers."""


class SolveBudgetExceeded(Exception):
    """A reward search met its budget before it knew the answer (the core turns this into a defined result)."""


def bounded_distance(spec: FamilySpec, state: Any, budget: SolveBudget, *, within: int | None = None) -> int | None:
    """Fewest moves from ``state`` to the goal, by breadth-first search over the family's rules.

    Args:
        spec: the family.
        state: a state of it (hashable: every family's states are frozen).
        budget: the positions and seconds the search may take.
        within: look no deeper than this many moves (None: no depth limit).

    Returns:
        The distance, or None when no sequence of moves (of at most ``within``) reaches the goal.

    Raises:
        SolveBudgetExceeded: more than ``budget.positions`` positions were met, or
            ``budget.seconds`` passed, before the search knew.
    """
    if spec.is_goal(state):
        return 0
    if _limits_itself(spec.solve):
        try:
            solution = spec.solve(state, max_states=budget.positions)  # type: ignore[call-arg]
        except SearchLimitError:
            raise SolveBudgetExceeded(f"{spec.name}: the search met more than {budget.positions} positions") from None
        if solution is None or (within is not None and solution.optimal_length > within):
            return None
        return solution.optimal_length
    deadline = time.perf_counter() + budget.seconds
    seen = {state}
    frontier = [state]
    depth = 0
    expanded = 0
    while frontier and (within is None or depth < within):
        depth += 1
        following = []
        for position in frontier:
            expanded += 1
            if expanded % _CLOCK_EVERY == 0 and time.perf_counter() > deadline:
                raise SolveBudgetExceeded(f"{spec.name}: the search took more than {budget.seconds} s")
            for step in spec.candidate_steps(position):
                after = spec.apply_step(position, step)
                if isinstance(after, Illegal) or after in seen:
                    continue
                if spec.is_goal(after):
                    return depth
                seen.add(after)
                following.append(after)
            if len(seen) > budget.positions:
                raise SolveBudgetExceeded(f"{spec.name}: the search met more than {budget.positions} positions")
        frontier = following
    return None


@functools.lru_cache(maxsize=64)
def _limits_itself(solve: Any) -> bool:
    """The family's solver takes ``max_states`` (a position limit it enforces as it searches)."""
    try:
        return "max_states" in inspect.signature(solve).parameters
    except (TypeError, ValueError):
        return False
