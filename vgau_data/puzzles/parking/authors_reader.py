"""Parking as the authors' code reads it (``lmms_eval/tasks/parking``: ``utils.py``, ``step_adapter.py``).

Final answer: the last ``<ANSWER_JSON>[...]</ANSWER_JSON>`` or ``<ANSWER_JSON>{...}</ANSWER_JSON>``
(else the whole text when it is one list or object); strict JSON. An object stands for its
``"solution"`` list. Items that are not objects are skipped; in the others ``car`` is
stripped and upper-cased, ``direction`` lower-cased with ``u d l r`` for the four words,
and ``"steps"`` (or ``"distance"``) repeats the move that many times. Solved when the red
car ends at the exit, optimal when the moves number the optimum.

Step reply: the last ``<STEP_JSON>...</STEP_JSON>`` content as strict JSON
``{"car": ..., "direction": ...}``, else the first ``{...}`` without nested braces anywhere
in the reply that reads as one. After each step the red car must still reach the exit
within the optimum, by their breadth-first search (``_bfs_remaining``), which gives up
once it holds more than 200,000 positions and then ends the episode too
(``authors_remaining`` reproduces when it gives up).
The capability ``FamilySpec.authors_reader`` (reader ``authors``, ``vgau_data.readers``).
"""

from __future__ import annotations

import functools
import json
import re
from collections import deque
from collections.abc import Sequence
from typing import Any, Final

import numpy as np

from vgau_data.puzzles.authors_reading import (
    DIRECTIONS,
    MAX_REPEATS,
    Answer,
    AuthorsEpisode,
    AuthorsFamily,
    last_between,
    last_enclosed,
    loads,
    result_text,
    to_int,
    whole_value,
)
from vgau_data.puzzles.parking.search import MAX_LAYERED_SLOTS, SIZE, LayeredSearch, Search
from vgau_data.puzzles.parking.solver import _car
from vgau_data.puzzles.parking.state import RED, ParkingState

MAX_NODES: Final = 200_000
"""Their ``_bfs_remaining`` gives up (None: the episode ends) once it holds more positions."""

ALIASES = {"u": "up", "d": "down", "l": "left", "r": "right"}
_FLAT_OBJECT = re.compile(r"\{[^{}]*\}")


def _move(item: dict[str, Any]) -> tuple[str, str]:
    car = str(item.get("car", "")).strip().upper()
    direction = str(item.get("direction", "")).strip().lower()
    return car, ALIASES.get(direction, direction)


def _step(payload: str) -> tuple[str, str] | None:
    ok, value = loads(payload)
    if not ok or not isinstance(value, dict):
        return None
    car, direction = _move(value)
    return (car, direction) if car and direction in DIRECTIONS else None


def read_step(text: str) -> tuple[str, str] | None:
    """One move from a step reply (see the module docstring)."""
    if not text:
        return None
    tagged = last_between(text, "STEP_JSON")
    if tagged is not None and (step := _step(tagged.strip())) is not None:
        return step
    for found in _FLAT_OBJECT.finditer(text):
        if (step := _step(found.group(0))) is not None:
            return step
    return None


@functools.lru_cache(maxsize=4096)
def authors_remaining(state: ParkingState) -> int | None:
    """What their ``_bfs_remaining`` answers for ``state``: the fewest slides to the exit, or None.

    None when no slides reach the exit, and when their search gives up first: it pops
    positions breadth-first (cars in list order, ``left, right`` or ``up, down``), returns
    on generating a goal position (goals are never stored), and gives up at a pop once it
    stores more than ``MAX_NODES``. So with the goal first at depth d and ``C`` positions
    in the layers before it, it gives up when ``C > MAX_NODES``, finds d when ``C`` plus
    layer d's non-goal positions is at most ``MAX_NODES``, and in between depends on the
    order; then their exact order is replayed. Cars are taken in our order (by id), the
    order of the boards we write for them.
    """
    cars = [_car(v) for v in state.vehicles]
    red = [v.id for v in state.vehicles].index(RED)
    goal = SIZE - cars[red][1]
    if cars[red][3] == goal:
        return 0
    search = Search(cars)
    if red not in search.slots:
        return None
    slot = search.slots.index(red)
    if len(search.slots) > MAX_LAYERED_SLOTS:
        return _ordered_search(search, slot, goal)
    layered = LayeredSearch(search)
    before = 0
    for depth, layer in enumerate(layered.layers(np.array([search.key], dtype=np.uint64), max_states=1 << 62)):
        at_goal = layered.offsets(layer, slot) == goal
        if at_goal.any():
            if before + int((~at_goal).sum()) <= MAX_NODES:
                return depth
            return _ordered_search(search, slot, goal)
        before += len(layer)
        if before > MAX_NODES:
            return None
    return None


def _ordered_search(search: Search, slot: int, goal: int) -> int | None:
    """Their breadth-first search step by step, in their order, on our packed positions."""
    shift = 3 * slot
    visited = {search.key}
    queue = deque([(search.key, search.occupied, 0)])
    moves = search.moves
    while queue:
        key, occupied, depth = queue.popleft()
        if len(visited) > MAX_NODES:
            return None
        for slot_shift, unit, table in moves:
            head, head_xor, tail, tail_xor = table[(key >> slot_shift) & 7]
            for free, new, change in (
                (not occupied & tail, key - unit, tail_xor),
                (not occupied & head, key + unit, head_xor),
            ):
                if not free or new in visited:
                    continue
                if (new >> shift) & 7 == goal:
                    return depth + 1
                visited.add(new)
                queue.append((new, occupied ^ change, depth + 1))
    return None


class ParkingEpisode(AuthorsEpisode):
    """Their runners with the parking adapter: the optimum check is their capped search."""

    def within_optimum(self, state: Any, steps: int) -> bool:
        rest = authors_remaining(state)
        return rest is not None and steps + rest <= self.optimal_length


class ParkingReader(AuthorsFamily):
    family = "parking"
    empty_answer = "<ANSWER_JSON>[]</ANSWER_JSON>"

    def read_answer(self, text: str) -> Answer | str:
        text = result_text(text)
        payload = last_enclosed(text, "ANSWER_JSON", "[{") or whole_value(text, "[{")
        if payload is None:
            return "no_answer"
        ok, value = loads(payload)
        if ok and isinstance(value, dict):
            value = value.get("solution", [])
        if not ok or not isinstance(value, list):
            return "bad_format"
        steps: list[tuple[str, str]] = []
        length = 0
        for item in value:
            if not isinstance(item, dict):
                continue
            car, direction = _move(item)
            repeats = to_int(item.get("steps", item.get("distance", 1)))
            repeats = max(1, 1 if repeats is None else repeats)
            if direction not in DIRECTIONS:
                return Answer(tuple(steps), length + repeats, (len(steps), "unknown_action"))
            steps.extend([(car, direction)] * min(repeats, MAX_REPEATS))
            length += repeats
        return Answer(tuple(steps), length)

    def read_step(self, text: str) -> Any:
        return read_step(text)

    def episode(self, family: Any, state: Any, optimal_length: int, budget: str) -> ParkingEpisode:
        return ParkingEpisode(self, family, optimal_length, budget)

    def answer_text(self, steps: Sequence[Any]) -> str:
        return f"<ANSWER_JSON>{json.dumps([{'car': car, 'direction': d} for car, d in steps])}</ANSWER_JSON>"


AUTHORS_READER = ParkingReader()
