"""Steps built from the rules: the family's own steps, one part changed, played where they can go wrong.

Random answers stay on the board and off the walls, so a replay that checks them only
never meets an off-board step. ``step_variants`` takes steps the family itself produced
(the oracle's, random walks') and changes one part at a time, keeping the step's shape:
a direction becomes every other direction and an unknown word, a cell becomes its
neighbours and the cells just past each edge of the board, another word (a car) becomes
every other word seen, and a tuple gets one element changed or repeated (so a pair of
cells can name the same cell twice). Played from every state along the solution, from
states on random walks and from the states fidelity draws its palette from (which put
pieces on the border), these step off every edge, into walls and into other pieces.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from vgau_data.puzzles.base import ILLEGAL_CODES, FamilySpec, Illegal, Replay, replay_steps
from vgau_data.rendering import BoardGeometry
from vgau_data.types import DIRECTIONS

UNKNOWN_WORD = "sideways"
"""A direction no family knows: a step naming it is ``unknown_action``."""
STEP_CODES = ILLEGAL_CODES - {"no_answer", "bad_format", "not_solved"}
"""The codes one step may earn (the others judge a whole answer text)."""
PROBES_PER_STATE = 48
"""Most probe steps played from one state (a random sample of its variants beyond that)."""

Expect = Callable[[object, str], None]


def _is_cell(value: object) -> bool:
    return isinstance(value, tuple) and len(value) == 2 and all(type(x) is int for x in value)


def _rebuilt(value: tuple[Any, ...], items: list[Any]) -> tuple[Any, ...]:
    """A tuple (or named tuple) of ``value``'s type holding ``items``."""
    return type(value)._make(items) if hasattr(value, "_make") else tuple(items)


def step_variants(step: Any, geometry: BoardGeometry, words: Sequence[str]) -> Iterator[Any]:
    """Steps of ``step``'s shape with one part changed (see the module docstring).

    Example:
        >>> from vgau_data.rendering import BoardGeometry
        >>> sorted(step_variants(((0, 0), "up"), BoardGeometry(2, 2, 10), ()))[:3]
        [((-1, 0), 'up'), ((0, -1), 'up'), ((0, 0), 'down')]
    """
    if isinstance(step, str):
        if step in DIRECTIONS:
            yield from (d for d in (*DIRECTIONS, UNKNOWN_WORD) if d != step)
        else:
            yield from (w for w in words if w != step)
    elif _is_cell(step):
        r, c = step
        near = [(r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1)]
        past_edges = [(-1, c), (geometry.rows, c), (r, -1), (r, geometry.cols)]
        yield from dict.fromkeys(cell for cell in (*near, *past_edges) if cell != step)
    elif isinstance(step, tuple):
        items = list(step)
        for i, item in enumerate(items):
            for variant in step_variants(item, geometry, words):
                yield _rebuilt(step, [*items[:i], variant, *items[i + 1 :]])
            for j, other in enumerate(items):  # an element repeated in another's place: (a, a)
                if j != i and type(other) is type(item) and other != item:
                    yield _rebuilt(step, [*items[:i], other, *items[i + 1 :]])


def words_of(steps: Iterable[Any]) -> list[str]:
    """Every string in ``steps`` that is not a direction (car ids, label letters), in first-seen order."""
    found: dict[str, None] = {}

    def visit(value: Any) -> None:
        if isinstance(value, str):
            if value not in DIRECTIONS:
                found.setdefault(value)
        elif isinstance(value, tuple):
            for item in value:
                visit(item)

    for step in steps:
        visit(step)
    return list(found)


@dataclass(frozen=True, slots=True)
class ProbeStart:
    """A state to probe from: reached from the instance's state by ``prefix`` (None: a state of its own)."""

    state: Any
    prefix: tuple[Any, ...] | None


def probe_pool(spec: FamilySpec, seen_steps: Sequence[Any]) -> list[Any]:
    """``seen_steps`` and all their variants, each once."""
    words = words_of(seen_steps)
    pool = {repr(v): v for step in seen_steps for v in (step, *step_variants(step, spec.geometry, words))}
    return list(pool.values())


def probe_steps(
    spec: FamilySpec,
    origin: Any,
    starts: Sequence[ProbeStart],
    pool: Sequence[Any],
    rng: np.random.Generator,
    where: str,
    expect: Expect,
    codes: set[str],
) -> list[list[tuple[Any, Any]]]:
    """Play steps of ``pool`` from each start; check ``apply_step`` and ``replay`` on them.

    Returns the legal ``(step, state after)`` pairs met at each start; ``codes`` gains the
    codes of the illegal ones.

    An illegal probe carries a step code from ``ILLEGAL_CODES`` and ``replay`` names it at
    its true position (``first_invalid_step``), also with steps after it; a legal one
    changes the state (an off-board step clamped to the edge leaves it as it was), leaves
    a state its JSON keeps, and ``replay`` agrees with stepping ``apply_step``.
    """
    legal_at: list[list[tuple[Any, Any]]] = []
    for start in starts:
        chosen = pool
        if len(pool) > PROBES_PER_STATE:
            chosen = [pool[i] for i in sorted(rng.choice(len(pool), PROBES_PER_STATE, replace=False))]
        legal = []
        for probe in chosen:
            after = spec.apply_step(start.state, probe)
            _check_probe(spec, origin, start, probe, after, where, expect, codes)
            if not isinstance(after, Illegal):
                legal.append((probe, after))
        legal_at.append(legal)
    return legal_at


def _check_probe(
    spec: FamilySpec, origin: Any, start: ProbeStart, probe: Any, after: Any, where: str, expect: Expect, codes: set[str]
) -> None:
    base, prefix = (origin, start.prefix) if start.prefix is not None else (start.state, ())
    played = (*prefix, probe)
    fast = spec.replay(base, played)
    at = f"{where}: step {probe!r:.60} after {len(prefix)} step(s)"
    if isinstance(after, Illegal):
        codes.add(after.code)
        expect(after.code in STEP_CODES, f"{at} is Illegal({after.code!r}), not a step code of ILLEGAL_CODES")
        expected = Replay(False, len(played), after.code, len(prefix))
        expect(fast == expected, f"{at}: replay gives {fast}, the rules {expected}")
        tail = (*played, *played)
        later = spec.replay(base, tail)
        expect(
            (later.error, later.first_invalid_step, later.length) == (after.code, len(prefix), len(tail)),
            f"{at} and more steps after it: replay gives {later}, not its first illegal step {len(prefix)}",
        )
        return
    expect(after != start.state, f"{at} is legal but leaves the state unchanged (an off-board step clamped?)")
    try:
        kept = spec.from_json(spec.to_json(after))
    except Exception as error:  # noqa: BLE001 - whatever it raises is the finding
        expect(False, f"{at} leads to a state its own from_json rejects: {error}")
    else:
        expect(kept == after, f"{at} leads to a state that from_json(to_json(...)) changes")
    slow = replay_steps(base, played, spec.apply_step, spec.is_goal)
    expect(fast == slow, f"{at}: replay {fast} != step-by-step {slow}")


def detour(spec: FamilySpec, state: Any, legal: Sequence[tuple[Any, Any]], pool: Sequence[Any]) -> tuple[Any, Any] | None:
    """A legal step from ``state`` (one of ``legal``, the first 8) and a step of ``pool`` that undoes it, if any."""
    for step, after in legal[:8]:
        for back in pool:
            if spec.apply_step(after, back) == state:
                return step, back
    return None
