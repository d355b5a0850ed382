"""What the solver sees from one state: every candidate step, why it is legal or not, and the exact distance after it.

A ``Search`` wraps one family for one row: ``options(state)`` lists the candidate steps
of a state (the family's own ``candidate_steps``: the four directions, each vehicle along
its axis, each block in each direction, each pair of equal fruit), each with the family's
own verdict (``apply_step``: the reason code when illegal) and, when legal, the exact
number of steps still needed from the state it leads to (``distance``: the family's
exhaustive solver, memoised per row). Text-CoT traces narrate these options; exploratory
traces choose detours among them.

A family whose answers are not its episode's steps (``episode_steps``: path names letters,
its episode walks a marker whose position is not part of the puzzle) has a solver that
answers from the start only, so mid-episode states are planned by breadth-first search
over the candidates instead. ``testing/step_checks.py`` checks that the candidates cover
every legal step; a test checks that breadth-first search over them finds the solver's
optimum.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass
from typing import Any

from vgau_data.errors import GenerationError
from vgau_data.puzzles.base import FamilySpec, Illegal

BFS_LIMIT = 200_000
"""Most states a breadth-first plan visits before it gives up (path boards have a few hundred)."""


@dataclass(frozen=True, slots=True)
class Option:
    """One candidate step from a state: ``illegal`` names why the rules reject it; otherwise
    ``after`` is the state it leads to and ``remaining`` the fewest steps from there to the
    goal (None when the goal cannot be reached any more)."""

    step: Any
    illegal: str | None = None
    after: Any = None
    remaining: int | None = None


class Search:
    """Candidate steps, verdicts and exact distances for the states of one family (memoised)."""

    def __init__(self, spec: FamilySpec) -> None:
        self.spec = spec
        self._plans: dict[Any, tuple[Any, ...] | None] = {}

    def candidates(self, state: Any) -> list[Any]:
        """The family's candidate steps of ``state``, in its order."""
        return list(self.spec.candidate_steps(state))

    def legal(self, state: Any) -> list[tuple[Any, Any]]:
        """``(step, state after)`` for every legal candidate, in candidate order."""
        pairs = []
        for step in self.candidates(state):
            after = self.spec.apply_step(state, step)
            if not isinstance(after, Illegal):
                pairs.append((step, after))
        return pairs

    def plan(self, state: Any) -> tuple[Any, ...] | None:
        """The fewest interactive steps from ``state`` to the goal (the solver's; BFS where answers are not episodes).

        Every state along a plan found is remembered with the rest of that plan, which is
        optimal from there too, so the next state of a walk is rarely searched again.
        """
        if state not in self._plans:
            if self.spec.episode_steps is not None:
                steps = self._bfs(state)
            else:
                solution = self.spec.solve(state)
                steps = None if solution is None else self.spec.oracle_steps(state, solution.answer)
            self._plans[state] = steps
            current = state
            for index, step in enumerate(steps or ()):
                current = self.spec.apply_step(current, step)
                self._plans.setdefault(current, steps[index + 1 :])  # type: ignore[index]
        return self._plans[state]

    def distance(self, state: Any) -> int | None:
        """Fewest steps from ``state`` to the goal; None when it cannot be reached."""
        plan = self.plan(state)
        return None if plan is None else len(plan)

    def options(self, state: Any) -> list[Option]:
        """Every candidate step of ``state`` with its verdict and, when legal, the distance after it."""
        options = []
        for step in self.candidates(state):
            after = self.spec.apply_step(state, step)
            if isinstance(after, Illegal):
                options.append(Option(step, illegal=after.code))
            else:
                options.append(Option(step, after=after, remaining=self.distance(after)))
        return options

    def _bfs(self, start: Any) -> tuple[Any, ...] | None:
        parents: dict[Any, tuple[Any, Any] | None] = {start: None}
        queue = deque([start])
        while queue:
            state = queue.popleft()
            if self.spec.is_goal(state):
                steps = []
                while parents[state] is not None:
                    state, step = parents[state]  # type: ignore[misc]
                    steps.append(step)
                return tuple(reversed(steps))
            for step, after in self.legal(state):
                if after not in parents:
                    if len(parents) >= BFS_LIMIT:
                        raise GenerationError(f"{self.spec.name}: breadth-first plan met over {BFS_LIMIT} states")
                    parents[after] = (state, step)
                    queue.append(after)
        return None


def describe_step(step: Any, *, nested: bool = False) -> str:
    """A step in a few words, whatever its family: ``left``, ``R right``, ``(4,1) up``, ``right [E]``.

    Example:
        >>> describe_step(((4, 1), "up")), describe_step(("R", "right")), describe_step(("right", ("E",)))
        ('(4,1) up', 'R right', 'right [E]')
    """
    if isinstance(step, str):
        return step
    if isinstance(step, tuple) and len(step) == 2 and all(isinstance(x, int) for x in step):
        return f"({step[0]},{step[1]})"
    if isinstance(step, tuple):
        words = " ".join(describe_step(part, nested=True) for part in step if part not in ((), None, ""))
        return f"[{words}]" if nested and all(isinstance(part, str) for part in step) else words
    return str(step)
