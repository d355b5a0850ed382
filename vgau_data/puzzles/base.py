"""What every puzzle family provides, and the pieces they share.

A family is one module in ``vgau_data/puzzles/`` that ends with ``SPEC = FamilySpec(...)``.
Everything else in the package (builders, oracle aids, scoring, runners) talks to a
family only through its ``FamilySpec``; nothing outside the module knows its rules.

Vocabulary:
    state    a frozen dataclass; ``to_json``/``from_json`` round-trip SPEC §4's schema.
    step     one parsed unit of an answer: a direction (maze, sokoban), a ``(car, dir)``
             pair (parking), a pair of cells (onet), a ``(cell, dir)`` pair (klotski),
             a label letter (path).
    answer   a tuple of steps: what ``parse_answer`` returns and ``replay`` judges.
    illegal  ``Illegal(code, step_index)``, never an exception: SPEC §3's reason codes.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

if TYPE_CHECKING:
    import numpy as np
    from PIL import Image

    from vgau_data.rendering import BoardGeometry

Cell = tuple[int, int]
"""(r, c), 0-based; (0, 0) is the top-left cell, r grows downward."""

Difficulty = Literal["easy", "medium", "hard"]
DIFFICULTIES: tuple[Difficulty, ...] = ("easy", "medium", "hard")
BUCKET_SIZES: Mapping[str, int] = {"easy": 20, "medium": 30, "hard": 50}

Direction = Literal["up", "down", "left", "right"]
DIRECTIONS: tuple[Direction, ...] = ("up", "down", "left", "right")
DELTAS: Mapping[str, Cell] = {"up": (-1, 0), "down": (1, 0), "left": (0, -1), "right": (0, 1)}
_DIRECTION_ALIASES = {"u": "up", "d": "down", "l": "left", "r": "right"}

QuestionStyle = Literal["text_cot", "direct"]

ILLEGAL_CODES: frozenset[str] = frozenset(
    {
        "no_answer",
        "bad_format",
        "unknown_action",
        "out_of_bounds",
        "wall",
        "blocked",
        "box_blocked",
        "unknown_vehicle",
        "against_orientation",
        "overlap",
        "empty_cell",
        "not_identical",
        "same_cell",
        "not_connectable",
        "no_block_at",
        "not_solved",
        "wrong_label",
    }
)
"""Every reason code a verdict may carry (SPEC §3, plus ``wrong_label`` for path)."""


class AnswerError(Exception):
    """An answer text that yields no steps; ``code`` is ``no_answer``, ``bad_format`` or ``unknown_action``.

    Raised by ``parse_answer`` and caught by scoring: it never escapes the scorer.
    """

    def __init__(self, code: str, detail: str = "") -> None:
        super().__init__(f"{code}: {detail}" if detail else code)
        self.code = code
        self.detail = detail


@dataclass(frozen=True, slots=True)
class Illegal:
    """A step the rules reject: ``code`` names why, ``step_index`` is 0-based."""

    code: str
    step_index: int


@dataclass(frozen=True, slots=True)
class Replay:
    """The outcome of playing an answer on the true state.

    ``feasible`` means every step was legal and the last state is solved. ``length`` is
    the number of steps in the answer (for path, the moves of the named route when it is
    right). ``error`` is None when feasible, else a code from ``ILLEGAL_CODES``.
    """

    feasible: bool
    length: int
    error: str | None = None
    first_invalid_step: int | None = None


@dataclass(frozen=True, slots=True)
class Solution:
    """An optimal answer and the optimum it achieves.

    For every family but path ``len(answer) == optimal_length``; for path the answer is
    the on-path labels and ``optimal_length`` counts the moves of the path.
    """

    answer: tuple[Any, ...]
    optimal_length: int


def canonical_json(obj: object) -> str:
    """The one JSON form of states: sorted keys, no spaces, so equal states are equal strings.

    Example:
        >>> canonical_json({"b": [1, 2], "a": None})
        '{"a":null,"b":[1,2]}'
    """
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def parse_direction(token: object) -> Direction:
    """``"Up"``, ``"U"``, ``" down "`` -> a direction; anything else is ``unknown_action``.

    Example:
        >>> parse_direction("L")
        'left'
    """
    if not isinstance(token, str):
        raise AnswerError("unknown_action", f"not a direction: {token!r:.40}")
    word = token.strip().lower()
    word = _DIRECTION_ALIASES.get(word, word)
    if word not in DELTAS:
        raise AnswerError("unknown_action", f"not a direction: {token!r:.40}")
    return word  # type: ignore[return-value]


def replay_steps(
    state: Any,
    answer: Sequence[Any],
    apply_step: Callable[[Any, Any], Any],
    is_goal: Callable[[Any], bool],
) -> Replay:
    """Play ``answer`` step by step; stop at the first illegal step.

    ``apply_step(state, step)`` returns the next state or an ``Illegal``; the step index
    it reports is replaced by the true position in the answer.
    """
    for index, step in enumerate(answer):
        nxt = apply_step(state, step)
        if isinstance(nxt, Illegal):
            return Replay(False, len(answer), nxt.code, index)
        state = nxt
    if not is_goal(state):
        return Replay(False, len(answer), "not_solved", len(answer))
    return Replay(True, len(answer))


def walk(state: Any, answer: Sequence[Any], apply_step: Callable[[Any, Any], Any]) -> list[Any]:
    """The states after each step of a legal answer (for oracle state images)."""
    states = []
    for index, step in enumerate(answer):
        state = apply_step(state, step)
        if isinstance(state, Illegal):
            raise ValueError(f"step {index} ({step!r}) is illegal: {state.code}")
        states.append(state)
    return states


def steps_are_the_answer(initial_state: Any, steps: Sequence[Any]) -> tuple[Any, ...]:
    """``episode_answer`` of every family whose interactive steps are answer steps (all but path)."""
    return tuple(steps)


@dataclass(frozen=True, slots=True)
class FamilySpec:
    """One puzzle family, as the rest of the package sees it.

    Attributes:
        name: registry key, HF config name and id prefix.
        buckets: SPEC §2 ``optimal_length`` range per difficulty, inclusive.
        geometry: where the cells of the rendered board lie (shared by every state).
        dashed_grid: the oracle aid draws dashed grid lines (klotski).
        unique_length: every feasible answer has the optimal length (path, onet).
        from_json / to_json: the canonical ``state`` column.
        generate: ``(difficulty, rng) -> state`` whose optimum lies in that bucket.
        solve: exhaustive optimal solver, ``state -> Solution`` (None if unsolvable).
        replay: ``(state, answer) -> Replay``.
        trajectory: ``(state, answer) -> [state after each step]`` for oracle images; for
            path the marker's walk, so its length is always ``optimal_length``.
        render: ``state -> RGB PIL image`` of size ``geometry.size``, no grid, no labels.
        parse_answer: raw model text -> answer tuple; raises ``AnswerError``.
        format_answer: answer tuple -> text in the SPEC §3 format (tags included).
        answer_payload: answer tuple -> the JSON payload stored in the ``solution`` column.
        question: ``(state, style) -> prompt`` for ``text_cot`` or ``direct``.
        random_answer: ``(state, rng) -> answer``, legal-looking random steps (baseline).
        apply_step: ``(state, step) -> state | Illegal``, one move of the interactive
            environment (for path: the marker moves one cell in a direction).
        is_goal: the environment's episode is won.
        parse_steps / format_steps: the per-turn format of interactive protocols; the
            answer format itself for every family but path (a direction list there).
        episode_answer: ``(initial_state, steps) -> answer`` turns an episode's steps
            into the answer that ``replay`` judges (identity except for path).
    """

    name: str
    buckets: Mapping[str, tuple[int, int]]
    geometry: BoardGeometry
    dashed_grid: bool
    unique_length: bool
    from_json: Callable[[str], Any]
    to_json: Callable[[Any], str]
    generate: Callable[[str, np.random.Generator], Any]
    solve: Callable[[Any], Solution | None]
    replay: Callable[[Any, Sequence[Any]], Replay]
    trajectory: Callable[[Any, Sequence[Any]], list[Any]]
    render: Callable[[Any], Image.Image]
    parse_answer: Callable[[str], tuple[Any, ...]]
    format_answer: Callable[[Sequence[Any]], str]
    answer_payload: Callable[[Sequence[Any]], str]
    question: Callable[[Any, QuestionStyle], str]
    random_answer: Callable[[Any, np.random.Generator], tuple[Any, ...]]
    apply_step: Callable[[Any, Any], Any]
    is_goal: Callable[[Any], bool]
    parse_steps: Callable[[str], tuple[Any, ...]]
    format_steps: Callable[[Sequence[Any]], str]
    episode_answer: Callable[[Any, Sequence[Any]], tuple[Any, ...]]

    def bucket_of(self, optimal_length: int) -> str | None:
        """The difficulty whose range holds ``optimal_length``, or None for the gaps."""
        for difficulty, (low, high) in self.buckets.items():
            if low <= optimal_length <= high:
                return difficulty
        return None
