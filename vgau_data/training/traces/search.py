"""What the solver sees from one state: every candidate step, why it is legal or not, and the exact distance after it.

A ``Search`` wraps one family for one row: ``options(state)`` lists the candidate steps
of a state (the moves a player could try: the four directions, each vehicle along its
axis, each block in each direction, each pair of equal fruit), each with the family's
own verdict (``apply_step``: the reason code when illegal) and, when legal, the exact
number of steps still needed from the state it leads to (``distance``: the family's
exhaustive solver, memoised per row). Text-CoT traces narrate these options; exploratory
traces choose detours among them.

Candidate steps are the one per-family piece: ``CANDIDATES`` maps a family to a small
function that lists them from the state's JSON (docs/contract/states.md), written in the family's own
per-step format and read back with its ``parse_step`` (so nothing here depends on a
family's internal types). A family whose solver plans from its start only (path: the
marker's position is not part of the puzzle) plans by breadth-first search over these
candidates instead (``BFS_PLANNED``). A test checks, for every family, that the
candidates include every legal step and that breadth-first search over them finds the
solver's optimum.
"""

from __future__ import annotations

import json
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from vgau_data.answers import step_text
from vgau_data.errors import GenerationError
from vgau_data.puzzles.base import DELTAS, DIRECTIONS, FamilySpec, Illegal

BFS_LIMIT = 200_000
"""Most states a breadth-first plan visits before it gives up (path boards have a few hundred)."""


def _directions(spec: FamilySpec, state: Any, obj: dict[str, Any]) -> list[Any]:
    """Maze and sokoban: a step is a direction."""
    return list(DIRECTIONS)


def _path_moves(spec: FamilySpec, state: Any, obj: dict[str, Any]) -> list[Any]:
    """Path: the marker moves one cell and declares the next on-path letter when it steps on it."""
    solution = spec.solve(state)
    letters = solution.answer if solution is not None else ()
    declared = obj.get("declared", [])
    wanted = letters[len(declared)] if len(declared) < len(letters) else None
    here = obj.get("position") or obj["start"]
    letter_at = {tuple(cell): letter for letter, cell in obj["labels"].items()}
    steps = []
    for direction in DIRECTIONS:
        dr, dc = DELTAS[direction]
        there = (here[0] + dr, here[1] + dc)
        hit = [wanted] if wanted is not None and letter_at.get(there) == wanted else []
        steps.append(spec.parse_step(step_text({"move": direction, "hit_labels": hit})))
    return steps


def _fruit_pairs(spec: FamilySpec, state: Any, obj: dict[str, Any]) -> list[Any]:
    """Onet: each pair of equal fruit, connectable or not."""
    cells: dict[str, list[list[int]]] = {}
    for r, row in enumerate(obj["board"]):
        for c, fruit in enumerate(row):
            if fruit is not None:
                cells.setdefault(fruit, []).append([r, c])
    return [spec.parse_step(step_text(pair)) for _, pair in sorted(cells.items()) if len(pair) == 2]


def _vehicle_slides(spec: FamilySpec, state: Any, obj: dict[str, Any]) -> list[Any]:
    """Parking: each vehicle one cell either way along its axis."""
    steps = []
    for vehicle in obj["vehicles"]:
        for direction in ("left", "right") if vehicle["orientation"] == "h" else ("up", "down"):
            steps.append(spec.parse_step(step_text({"car": vehicle["id"], "direction": direction})))
    return steps


def _block_slides(spec: FamilySpec, state: Any, obj: dict[str, Any]) -> list[Any]:
    """Klotski: each block, named by its top-left cell, one cell in each direction."""
    return [
        spec.parse_step(step_text({"from": [block["row"], block["col"]], "direction": direction.upper()}))
        for block in obj["blocks"]
        for direction in DIRECTIONS
    ]


CANDIDATES: dict[str, Callable[[FamilySpec, Any, dict[str, Any]], list[Any]]] = {
    "maze": _directions,
    "sokoban": _directions,
    "path": _path_moves,
    "onet": _fruit_pairs,
    "parking": _vehicle_slides,
    "klotski": _block_slides,
}
"""Per family, the candidate steps of a state (the per-family piece; it belongs beside each family's rules)."""
BFS_PLANNED: frozenset[str] = frozenset({"path"})
"""Families whose ``solve`` answers from the start only: mid-episode states are planned by BFS."""


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
        if spec.name not in CANDIDATES:
            raise GenerationError(f"{spec.name}: no candidate steps are defined for traces (training/traces/search.py)")
        self.spec = spec
        self._plans: dict[Any, tuple[Any, ...] | None] = {}

    def candidates(self, state: Any) -> list[Any]:
        return CANDIDATES[self.spec.name](self.spec, state, json.loads(self.spec.to_json(state)))

    def legal(self, state: Any) -> list[tuple[Any, Any]]:
        """``(step, state after)`` for every legal candidate, in candidate order."""
        pairs = []
        for step in self.candidates(state):
            after = self.spec.apply_step(state, step)
            if not isinstance(after, Illegal):
                pairs.append((step, after))
        return pairs

    def plan(self, state: Any) -> tuple[Any, ...] | None:
        """The fewest interactive steps from ``state`` to the goal (the solver's, or BFS for ``BFS_PLANNED``).

        Every state along a plan found is remembered with the rest of that plan, which is
        optimal from there too, so the next state of a walk is rarely searched again.
        """
        if state not in self._plans:
            if self.spec.name in BFS_PLANNED:
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
