"""``check_candidate_steps``: a family's candidate steps cover every legal step, checked by brute force.

``FamilySpec.candidate_steps(state)`` lists the steps a player tries from a state; solver
traces narrate them and the image rewards match a drawn next board against them, so a
legal step missing from them would go unnarrated and a right drawing unpaid. The check,
on each state it is given:

- the candidates are the same on a second call, each is legal or ``apply_step`` gives a
  step's reason code (``STEP_CODES``), and each reads back through the per-step format
  (``parse_step(format_step(step))``), which traces and rewards write them in;
- every step of the family's step vocabulary (``step_vocabulary``) that ``apply_step``
  accepts leads to a state some legal candidate leads to, or to one drawn the same
  (``render``: path's declared labels are not drawn, so a move declaring them early is
  the candidate move, as the board shows it).

The vocabulary is built from what the family itself produces, not from its candidates
alone: the steps of every shape among its candidates and random steps, each part over its
whole domain, with every name (a car, a label) its random steps and answers use, so
nothing the family forgot to list is missed for want of a name.
``check_family`` calls it on its instances; ``tests/testing/test_step_checks.py`` runs it
over the registry.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any, Final

import numpy as np

from vgau_data.puzzles.base import ILLEGAL_CODES, FamilySpec, Illegal
from vgau_data.rendering import BoardGeometry
from vgau_data.types import DIRECTIONS

STEP_CODES: Final = ILLEGAL_CODES - {"no_answer", "bad_format", "not_solved"}
"""The codes one step may earn (the others judge a whole answer text)."""
VOCABULARY_LIMIT: Final = 20_000
"""Most steps brute-forced per state; a larger vocabulary is reported, not sampled."""
RANDOM_STEPS: Final = 8
"""Random steps drawn per state to learn the shapes and names of the family's steps."""

Expect = Callable[[object, str], None]


def check_candidate_steps(spec: FamilySpec, states: Sequence[Any], expect: Expect, *, seed: int = 0) -> None:
    """Check ``spec.candidate_steps`` on ``states`` (module docstring); ``expect(ok, what)`` records each failure.

    Example:
        >>> from vgau_data.registry import get_family
        >>> maze, failures = get_family("maze"), []
        >>> state = maze.fidelity.palette_states()[0]
        >>> check_candidate_steps(maze, [state], lambda ok, what: ok or failures.append(what))
        >>> failures
        []
    """
    rng = np.random.default_rng(seed)
    candidates = {index: list(spec.candidate_steps(state)) for index, state in enumerate(states)}
    shapes: list[Any] = []
    names: list[Any] = []
    for index, state in enumerate(states):
        shapes += candidates[index]
        shapes += [step for step in (spec.random_step(state, rng) for _ in range(RANDOM_STEPS)) if step is not None]
        names += spec.random_answer(state, rng)  # path's answers are its letters: every label, on the route or not
    vocabulary = step_vocabulary(shapes, spec.geometry, names)
    expect(len(vocabulary) <= VOCABULARY_LIMIT, f"{spec.name}: the step vocabulary has {len(vocabulary)} steps, more "
           f"than the {VOCABULARY_LIMIT} brute-forced per state")  # fmt: skip
    for index, state in enumerate(states):
        where = f"{spec.name}: state {index} ({spec.to_json(state)[:60]}...)"
        _check_state(spec, state, candidates[index], vocabulary[:VOCABULARY_LIMIT], where, expect)


def _check_state(spec: FamilySpec, state: Any, candidates: list[Any], vocabulary: list[Any], where: str,
                 expect: Expect) -> None:  # fmt: skip
    expect(
        list(spec.candidate_steps(state)) == candidates,
        f"{where}: candidate_steps gives another list when called again",
    )
    reached: dict[Any, Any] = {}
    for step in candidates:
        after = spec.apply_step(state, step)
        if isinstance(after, Illegal):
            expect(
                after.code in STEP_CODES, f"{where}: candidate {step!r:.60} is Illegal({after.code!r}), not a step code"
            )
        else:
            reached.setdefault(after, step)
        try:
            back = spec.parse_step(spec.format_step(step))
        except Exception as error:  # noqa: BLE001 - whatever the per-step format raises is the finding
            back = error
        expect(back == step, f"{where}: candidate {step!r:.60} reads back from its per-step text as {back!r:.60}")
    drawn: dict[Any, bytes] = {}

    def look(after: Any) -> bytes:
        if after not in drawn:
            drawn[after] = spec.render(after).tobytes()
        return drawn[after]

    looks: set[bytes] | None = None
    for step in vocabulary:
        try:
            after = spec.apply_step(state, step)
        except Exception as error:  # noqa: BLE001 - apply_step must judge every step, not raise
            expect(False, f"{where}: apply_step raised {error!r:.80} on {step!r:.60}")
            continue
        if isinstance(after, Illegal) or after in reached:
            continue
        if looks is None:
            looks = {look(other) for other in reached}
        expect(look(after) in looks, f"{where}: the legal step {step!r:.60} leads to a board no candidate leads to")


def step_vocabulary(steps: Iterable[Any], geometry: BoardGeometry, names: Iterable[Any] = ()) -> list[Any]:
    """Every step of the shapes of ``steps``, each part over its whole domain, in a fixed order.

    A direction ranges over the four directions, a cell over every cell of the board, any
    other string (a car, a label) over every such string in ``steps`` and ``names``, and a tuple of such
    strings (path's declared labels) over every sequence of distinct ones; a tuple of other
    parts is the product of its parts' domains (named tuples keep their type).

    Example:
        >>> from vgau_data.rendering import BoardGeometry
        >>> len(step_vocabulary([((0, 0), "up")], BoardGeometry(2, 3, 10)))  # 6 cells x 4 directions
        24
        >>> step_vocabulary([("A", "up"), ("B", "left")], BoardGeometry(1, 1, 10))[:2]
        [('A', 'up'), ('A', 'down')]
    """
    steps = list(steps)
    words = list(dict.fromkeys(word for value in (*steps, *names) for word in _names(value)))
    cells = [(r, c) for r in range(geometry.rows) for c in range(geometry.cols)]
    found: dict[str, Any] = {}
    for shape in dict.fromkeys(_shape(step) for step in steps):
        for variant in _expand(shape, cells, words):
            found.setdefault(repr(variant), variant)
    return list(found.values())


def _names(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        if value not in DIRECTIONS:
            yield value
    elif isinstance(value, tuple):
        for item in value:
            yield from _names(item)


def _is_cell(value: object) -> bool:
    return isinstance(value, tuple) and len(value) == 2 and all(type(x) is int for x in value)


def _is_name_run(value: object) -> bool:
    return type(value) is tuple and all(isinstance(x, str) and x not in DIRECTIONS for x in value)


def _shape(value: Any) -> Any:
    """What ``step_vocabulary`` varies in ``value``: its parts' kinds, in a hashable form."""
    if isinstance(value, str):
        return "direction" if value in DIRECTIONS else "name"
    if _is_cell(value):
        return "cell"
    if _is_name_run(value):
        return "names"
    if isinstance(value, tuple):
        return (type(value), tuple(_shape(item) for item in value))
    return ("fixed", value)


def _expand(shape: Any, cells: list[tuple[int, int]], names: list[str]) -> Iterator[Any]:
    if shape == "direction":
        yield from DIRECTIONS
    elif shape == "name":
        yield from names
    elif shape == "cell":
        yield from cells
    elif shape == "names":
        for length in range(len(names) + 1):
            yield from itertools.permutations(names, length)
    elif shape[0] == "fixed":
        yield shape[1]
    else:
        kind, parts = shape
        for items in itertools.product(*(list(_expand(part, cells, names)) for part in parts)):
            yield kind._make(items) if hasattr(kind, "_make") else items
