"""Path symmetries: D4 plus any renaming of the five letters; the key is the route and the label cells.

A path answer depends only on the road from the marker to the destination and on which
cells carry labels: the side roads are distractors for the eye, not for the answer. So
``form`` is that route (marker first) and the set of labelled cells, letters forgotten
(any renaming of letters is the same question). Two maps that differ only in side roads
get one key, on purpose: a training row with a test instance's route and labels gives
its answer away. It is also the key the authors' records allow: they store the route
(``answer_path``) and the labels, but no walls (``record_forms``, read by
``vgau_data.training.heldout``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

import numpy as np

from vgau_data.puzzles.capabilities import Symmetry
from vgau_data.puzzles.path.paper import read_route
from vgau_data.puzzles.path.rules import route
from vgau_data.puzzles.path.state import LETTERS, SIZE, PathState, PathStep
from vgau_data.puzzles.symmetry import D4, map_cell, map_direction, map_grid
from vgau_data.types import Cell


def apply(state: PathState, transform: str) -> PathState:
    """``state`` seen through ``transform`` (letters stay on their cells)."""
    size = len(state.grid)
    labels = tuple((letter, map_cell(transform, cell, size)) for letter, cell in state.labels)
    position = None if state.position is None else map_cell(transform, state.position, size)
    return PathState(map_grid(transform, state.grid), map_cell(transform, state.start, size),
                     map_cell(transform, state.end, size), labels, position, state.declared)


def map_step(step: Any, transform: str, state: PathState) -> Any:
    """A letter is unchanged; an interactive ``PathStep`` turns its move."""
    if isinstance(step, PathStep):
        return PathStep(map_direction(transform, step.move), step.hit_labels)
    return step


def remaining_route(state: PathState) -> tuple[Cell, ...] | None:
    """The road from the marker (the start before it moves) to the destination."""
    full = route(state)
    if state.position is None:
        return full
    if full is not None and state.position in full:  # a trajectory's marker is on the route: no new search
        return full[full.index(state.position):]
    return route(PathState(state.grid, state.position, state.end, ()))


def route_form(cells: Sequence[Cell], label_cells: Iterable[Cell]) -> str:
    """``route cells|sorted label cells``: what a path question is, letters and side roads forgotten."""
    walk = ";".join(f"{r},{c}" for r, c in cells)
    return f"{walk}|" + ";".join(f"{r},{c}" for r, c in sorted(label_cells))


def route_forms(cells: Sequence[Cell], label_cells: Sequence[Cell], size: int = SIZE) -> list[str]:
    """``route_form`` under every D4 transform (the authors' records give route and labels only)."""
    return [
        route_form([map_cell(name, cell, size) for cell in cells], [map_cell(name, cell, size) for cell in label_cells])
        for name in D4
    ]


def form(state: PathState) -> str:
    return route_forms(*_route_and_labels(state), size=len(state.grid))[0]


def forms(state: PathState) -> list[str]:
    return route_forms(*_route_and_labels(state), size=len(state.grid))


def _route_and_labels(state: PathState) -> tuple[tuple[Cell, ...], list[Cell]]:
    cells = remaining_route(state)
    if cells is None:
        raise ValueError("path: the destination is unreachable, so the board has no route to key")
    return cells, [cell for _, cell in state.labels]


def relabel(state: PathState, rng: np.random.Generator) -> tuple[PathState, Callable[[Any], Any]]:
    """The letters renamed by a random permutation of A-E, and the step map."""
    names = dict(zip(LETTERS, (LETTERS[i] for i in rng.permutation(len(LETTERS)))))
    labels = tuple(sorted((names[letter], cell) for letter, cell in state.labels))
    renamed = PathState(state.grid, state.start, state.end, labels, state.position,
                        tuple(names[letter] for letter in state.declared))

    def step_map(step: Any) -> Any:
        if isinstance(step, PathStep):
            return PathStep(step.move, tuple(names[letter] for letter in step.hit_labels))
        return names[step]

    return renamed, step_map


def record_forms(record: Mapping[str, Any]) -> tuple[str, list[str]]:
    """An authors' record's id and the least form of each state of its route before the goal (``read_route``)."""
    fields = read_route(record)
    labels = list(fields.labels.values())
    return fields.task_id, [min(route_forms(fields.route[i:], labels, fields.side)) for i in range(len(fields.route) - 1)]


SYMMETRY = Symmetry(
    transforms=D4, apply=apply, map_step=map_step, form=form, relabel=relabel, fast_forms=forms,
    record_forms=record_forms,
)
