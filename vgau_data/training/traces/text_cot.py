"""text_cot: the Text-CoT question (Tables 12-17), answered by reasoning written from the solver's search.

The reply first reads the board: what every cell shows, from the family's
``fidelity.cell_labels``, with ``(r,c)`` coordinates as in the oracle aid. It then walks the
solver's optimal answer one step at a time: the candidate steps of the current state
(``search.Search.options``), each legal one with the exact number of steps still needed
after it and each illegal one with the rule that rejects it; the step taken and why (it
is one that brings the goal one step closer, the solver's choice among ties); and what
changed on the board. It ends with the final answer in the family's format. Every number
is the solver's and every reason the rules': templates arrange them, no model writes them.

Example reply (maze, two steps)::

    Reading the board: agent at (5,7); goal at (4,6); open at (2,5), ...; the other 70 cells are wall.
    The fewest steps from the start to the goal: 2.
    Step 1: 2 to go. Options: left leaves 1, up leaves 3; not allowed: right (wall), down (wall).
    Take left, the only step that brings the goal closer. Now (5,6) open -> agent, (5,7) agent -> open.
    Step 2: ...
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

import numpy as np

from vgau_data.errors import GenerationError
from vgau_data.puzzles.base import FamilySpec, Illegal
from vgau_data.training.traces.record import Record, TraceKind
from vgau_data.training.traces.search import Option, Search, describe_step

MAX_LISTED_ILLEGAL = 6
"""Illegal candidates are named one by one up to this many; more are counted by reason."""


def _cell(index: int, cols: int) -> str:
    r, c = divmod(index, cols)
    return f"({r},{c})"


def board_reading(spec: FamilySpec, state: Any) -> str:
    """Every cell's content: the cells of each label, the most common label only counted.

    Example:
        >>> from vgau_data.registry import get_family
        >>> maze = get_family("maze")
        >>> board_reading(maze, maze.fidelity.palette_states()[0]).split("; ")[0]
        'agent at (0,0)'
    """
    if spec.fidelity is None:  # a family that cannot say what each cell shows: its state JSON
        return spec.to_json(state)
    labels = spec.fidelity.cell_labels(state)
    cells: dict[str, list[int]] = {}
    for index, label in enumerate(labels):
        cells.setdefault(label, []).append(index)
    background = Counter(labels).most_common(1)[0][0]
    cols = spec.geometry.cols
    parts = [
        f"{label} at {', '.join(_cell(i, cols) for i in where)}"
        for label, where in cells.items()
        if label != background
    ]
    return "; ".join([*parts, f"the other {len(cells[background])} cells are {background}"])


def board_change(spec: FamilySpec, before: Any, after: Any) -> str:
    """The cells whose content changed, ``(r,c) old -> new``."""
    if spec.fidelity is None:
        return spec.to_json(after)
    cols = spec.geometry.cols
    changes = [
        f"{_cell(i, cols)} {old} -> {new}"
        for i, (old, new) in enumerate(zip(spec.fidelity.cell_labels(before), spec.fidelity.cell_labels(after)))
        if old != new
    ]
    return ", ".join(changes) if changes else "no cell changed"


def options_text(options: Sequence[Option]) -> str:
    """The legal candidates with the steps they leave, then the illegal ones with their reasons."""
    legal = [
        f"{describe_step(o.step)} leaves " + (str(o.remaining) if o.remaining is not None else "no way to the goal")
        for o in options
        if o.illegal is None
    ]
    illegal = [o for o in options if o.illegal is not None]
    text = "Options: " + (", ".join(legal) if legal else "none")
    if len(illegal) <= MAX_LISTED_ILLEGAL:
        named = [f"{describe_step(o.step)} ({o.illegal.replace('_', ' ')})" for o in illegal]  # type: ignore[union-attr]
        return text + ("; not allowed: " + ", ".join(named) if named else "")
    reasons = Counter(o.illegal.replace("_", " ") for o in illegal)  # type: ignore[union-attr]
    return text + f"; {len(illegal)} others not allowed (" + ", ".join(f"{n} {why}" for why, n in reasons.items()) + ")"


def reasoning(spec: FamilySpec, state: Any, steps: Sequence[Any], search: Search) -> str:
    """The reasoning lines of a reply that plays ``steps`` (an optimal episode) from ``state``.

    Raises:
        GenerationError: a step is illegal, the search does not list it, or it is not optimal.
    """
    lines = [
        f"Reading the board: {board_reading(spec, state)}.",
        f"The fewest steps from the start to the goal: {len(steps)}.",
    ]
    current = state
    for index, step in enumerate(steps, 1):
        left = len(steps) - index + 1
        options = search.options(current)
        after = spec.apply_step(current, step)
        if isinstance(after, Illegal) or not any(o.after == after for o in options):
            raise GenerationError(f"{spec.name}: step {index} of the answer is not among the legal candidates")
        closer = sum(o.remaining == left - 1 for o in options)
        if search.distance(after) != left - 1:
            raise GenerationError(f"{spec.name}: step {index} of the answer is not on a shortest route")
        why = "the only step that brings" if closer == 1 else f"the solver's pick of the {closer} steps that bring"
        lines.append(f"Step {index}: {left} to go. {options_text(options)}.")
        lines.append(f"Take {describe_step(step)}, {why} the goal closer. Now {board_change(spec, current, after)}.")
        current = after
    lines.append(f"The goal is reached after {len(steps)} steps.")
    return "\n".join(lines)


def build(spec: FamilySpec, state: Any, answer: tuple[Any, ...], rng: np.random.Generator) -> Record:
    text = reasoning(spec, state, spec.oracle_steps(state, answer), Search(spec))
    record = Record()
    record.add("user", spec.render(state), spec.question(state, "text_cot"))
    record.add("assistant", f"{text}\n\n{spec.format_answer(answer)}")
    return record


KIND = TraceKind(
    name="text_cot",
    summary="Text-CoT question; the reply narrates the solver's search step by step, then answers",
    build=build,
)
