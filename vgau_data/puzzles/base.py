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

import functools
import itertools
import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from vgau_data.puzzles.prompts import QUESTION_STYLES, FamilyPrompts
from vgau_data.types import (
    BUCKET_SIZES,
    DELTAS,
    DIFFICULTIES,
    DIRECTIONS,
    AnswerError,
    Cell,
    Difficulty,
    Direction,
)

__all__ = [  # the shared vocabulary is defined in vgau_data.types; families import it from here too
    "BUCKET_SIZES",
    "DELTAS",
    "DIFFICULTIES",
    "DIRECTIONS",
    "AnswerError",
    "Cell",
    "Difficulty",
    "Direction",
    "FamilySpec",
    "Illegal",
    "Replay",
    "Slot",
    "Solution",
]

if TYPE_CHECKING:
    import numpy as np
    from PIL import Image

    from vgau_data.rendering import BoardGeometry

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


@dataclass(frozen=True, slots=True)
class SketchMove:
    """One numbered arrow of a solution drawing: from ``cell``'s centre one cell towards ``direction``."""

    cell: Cell
    direction: Direction


@dataclass(frozen=True, slots=True)
class Sketch:
    """What the drawn solution of a state shows (``oracle_aids.vr`` draws it on the board).

    ``routes`` are polylines through cell centres, each in its own colour, the first in
    red (maze, sokoban and path draw one red route; onet one route per removed pair).
    ``moves`` are numbered arrows in solution order (parking, klotski).
    """

    routes: tuple[tuple[Cell, ...], ...] = ()
    moves: tuple[SketchMove, ...] = ()


def route_directions(cells: Sequence[Cell]) -> tuple[Direction, ...]:
    """The moves that walk ``cells`` in order (each cell a neighbour of the one before).

    Example:
        >>> route_directions([(0, 0), (0, 1), (1, 1)])
        ('right', 'down')
    """
    moves = {delta: direction for direction, delta in DELTAS.items()}
    steps = []
    for (r0, c0), (r1, c1) in itertools.pairwise(cells):
        try:
            steps.append(moves[(r1 - r0, c1 - c0)])
        except KeyError:
            raise ValueError(f"cells {(r0, c0)} and {(r1, c1)} are not neighbours") from None
    return tuple(steps)  # type: ignore[arg-type]


CellEdit = tuple[int, Any]
"""``(cells_changed, edit)``: one way to alter a piece of a board for ``pick_edits``."""


def pick_edits(options: Sequence[Sequence[CellEdit]], k: int, rng: np.random.Generator) -> list[Any]:
    """Choose at most one edit per piece so that exactly ``k`` cells change in total.

    ``options[i]`` lists the edits possible on piece ``i`` (a cell, a vehicle, a block),
    each with the number of cells it changes; pieces must not share cells. The choice is
    uniform over pieces and edits among those that can still reach ``k`` (a subset-sum
    table over the pieces), so a perturbation never falls short or overshoots.

    Raises:
        ValueError: when no choice of edits changes exactly ``k`` cells.

    Example:
        >>> import numpy as np
        >>> len(pick_edits([[(1, "a")], [(2, "b")], [(1, "c")]], 3, np.random.default_rng(0)))
        2
    """
    order = [int(i) for i in rng.permutation(len(options))]
    reachable = [{0}]  # reachable[j]: totals that pieces order[j:] can add
    for index in reversed(order):
        tail = reachable[0]
        reachable.insert(0, tail | {total + cost for total in tail for cost, _ in options[index]})
    if k not in reachable[0]:
        raise ValueError(f"no choice of edits changes exactly {k} cells (at most {max(reachable[0])} can change)")
    chosen, remaining = [], k
    for j, index in enumerate(order):
        choices = [(0, None)] + [edit for edit in options[index] if remaining - edit[0] >= 0]
        choices = [edit for edit in choices if remaining - edit[0] in reachable[j + 1]]
        cost, edit = choices[int(rng.integers(len(choices)))]
        if cost:
            chosen.append(edit)
            remaining -= cost
    return chosen


LengthMix = Mapping[str, Mapping[int, int]]
"""Rows per optimal length in each bucket: ``{"easy": {1: 5, 2: 5, ...}, ...}``."""

_GOLDEN = (5**0.5 - 1) / 2


@dataclass(frozen=True, slots=True)
class Slot:
    """What one row of a bucket is built to: its exact optimum and a stratifying quantile.

    The builder gives row ``index`` the ``length`` its family's ``length_mix`` assigns to
    that index, so a bucket's length histogram is the mix's; ``quantile`` (in [0, 1),
    evenly spread over a bucket's rows) lets a generator stratify its other random choices
    the same way (rounding targets up or down), which keeps a small bucket's averages
    close to their expectation.
    """

    length: int
    quantile: float


def mix_order(counts: Mapping[int, int]) -> tuple[int, ...]:
    """The lengths of one bucket's rows in build order: every prefix is close to the mix.

    Each row takes the length furthest behind its share so far (shorter first on ties),
    so a build of any size follows the histogram and the full bucket matches it exactly.

    Example:
        >>> mix_order({1: 1, 2: 1, 5: 2})
        (5, 1, 2, 5)
    """
    total = sum(counts.values())
    given = dict.fromkeys(counts, 0)
    order = []
    for i in range(total):
        length = max(counts, key=lambda n: (counts[n] * (i + 1) / total - given[n], -n))
        given[length] += 1
        order.append(length)
    return tuple(order)


def draw_slot(mix: LengthMix, difficulty: str, rng: np.random.Generator) -> Slot:
    """A slot drawn at random from ``mix[difficulty]`` (for ``generate`` called without one)."""
    if difficulty not in mix:
        raise ValueError(f"unknown difficulty {difficulty!r}; choose from {list(mix)}")
    lengths = sorted(mix[difficulty])
    total = sum(mix[difficulty].values())
    length = lengths[int(rng.choice(len(lengths), p=[mix[difficulty][n] / total for n in lengths]))]
    return Slot(length, float(rng.random()))


def steps_are_the_answer(initial_state: Any, steps: Sequence[Any]) -> tuple[Any, ...]:
    """``episode_answer`` of every family whose interactive steps are answer steps (all but path)."""
    return tuple(steps)


@dataclass(frozen=True, kw_only=True, slots=True)
class FamilySpec:
    """One puzzle family, as the rest of the package sees it.

    Required (every family has its own):
        name: registry key, HF config name and id prefix.
        buckets: SPEC §2 ``optimal_length`` range per difficulty, inclusive.
        geometry: where the cells of the rendered board lie (shared by every state).
        from_json / to_json: the canonical ``state`` column.
        generate: ``(difficulty, rng, slot=None) -> state`` whose optimum is exactly
            ``slot.length`` (a slot drawn from ``length_mix`` when None).
        length_mix: the rows per optimal length of each bucket (the authors' histogram);
            ``slot`` hands row ``index`` its length from it.
        solve: exhaustive optimal solver, ``state -> Solution`` (None if unsolvable).
        replay: ``(state, answer) -> Replay``, the scorer's fast path.
        render: ``state -> RGB PIL image`` of size ``geometry.size``, no grid, no labels.
        parse_answer: raw model text -> answer tuple; raises ``AnswerError``.
        format_answer: answer tuple -> text in the SPEC §3 format (tags included).
        answer_payload: answer tuple -> the JSON payload stored in the ``solution`` column.
        answer_tag: the SPEC §3 tag around that payload in an answer text (None when the
            payload is the whole answer, as klotski's ``{"solution": [...]}``).
        prompts: the family's prompt pieces (``puzzles/prompts.py`` composes every
            protocol's text from them); ``question(state, style)`` is built from them.
        random_answer: ``(state, rng) -> answer``, legal-looking random steps (baseline).
        apply_step: ``(state, step) -> state | Illegal``, one move of the interactive
            environment (for path: the marker moves one cell and the model declares the
            labels it passes).
        is_goal: the environment's episode is won.
        parse_step / format_step: one interactive step in the per-turn format of the
            paper's authors (``<STEP_JSON>...</STEP_JSON>``, or a sentence for maze and
            sokoban); ``parse_step`` reads the last step in a reply, raising ``AnswerError``.
            An episode's steps, as a tuple, are an answer ``replay`` judges.

    Defaults (what most families share; set them where a family differs):
        dashed_grid: the oracle aid draws dashed grid lines (klotski).
        unique_length: every feasible answer has the optimal length (path, onet).
        trajectory: ``(state, answer) -> [state after each step]`` for oracle images;
            default: ``apply_step`` along the answer. Path's answer is labels, so it walks
            the marker instead (its length is always ``optimal_length``).
        answer_steps: ``(state, answer) -> steps``, the interactive steps that play a
            (solver) answer; default: the answer's own steps. Path answers with letters,
            so it walks the marker along the route, declaring the letters it passes.
        labelled_cells: ``state -> cells`` that carry a ``(r,c)`` label in the oracle aid
            (Tables 18-23); default None: every cell. Sokoban labels non-wall cells only.
        answer_from_payload: the inverse of ``answer_payload``; default: ``parse_answer``
            of the payload wrapped in ``answer_tag``.
        random_step: ``(state, rng) -> step``, one random interactive step (baseline);
            default: a step of ``random_answer``.
        generation_weight: relative cost of generating a row, for scheduling builds.

    Generation fidelity (None: the family has none; see ``vgau_data.fidelity``):
        cell_labels: ``state -> labels``, what every cell shows (row-major), e.g.
            ``wall``/``open``/``agent``; a label names a look, so equal labels look alike
            up to the piece a cell belongs to. Generated images are decoded into them.
        palette_states: ``() -> states`` whose renders show every label in every look
            (the decoder's reference cells).
        perturb: ``(state, k, rng) -> state`` with exactly ``k`` cell labels changed, for
            ``render`` (it need not be a solvable or even valid puzzle).
        sketch: ``(state, answer) -> Sketch``, the solution drawing of self-VR's oracle.
        route_start: the cell a red route starts from (maze, sokoban, path).
        route_answer: ``(state, cells) -> steps`` turns a red route read from an image
            into interactive steps (None: the route's own moves, ``route_directions``).
    """

    name: str
    buckets: Mapping[str, tuple[int, int]]
    geometry: BoardGeometry
    from_json: Callable[[str], Any]
    to_json: Callable[[Any], str]
    generate: Callable[..., Any]
    length_mix: LengthMix
    solve: Callable[[Any], Solution | None]
    replay: Callable[[Any, Sequence[Any]], Replay]
    render: Callable[[Any], Image.Image]
    parse_answer: Callable[[str], tuple[Any, ...]]
    format_answer: Callable[[Sequence[Any]], str]
    answer_payload: Callable[[Sequence[Any]], str]
    answer_tag: str | None
    prompts: FamilyPrompts
    random_answer: Callable[[Any, np.random.Generator], tuple[Any, ...]]
    apply_step: Callable[[Any, Any], Any]
    is_goal: Callable[[Any], bool]
    parse_step: Callable[[str], Any]
    format_step: Callable[[Any], str]
    dashed_grid: bool = False
    unique_length: bool = False
    trajectory: Callable[[Any, Sequence[Any]], list[Any]] = None  # type: ignore[assignment]
    answer_steps: Callable[[Any, Sequence[Any]], tuple[Any, ...]] = None  # type: ignore[assignment]
    labelled_cells: Callable[[Any], frozenset[Cell]] | None = None
    answer_from_payload: Callable[[str], tuple[Any, ...]] = None  # type: ignore[assignment]
    random_step: Callable[[Any, np.random.Generator], Any] = None  # type: ignore[assignment]
    generation_weight: float = 1.0
    cell_labels: Callable[[Any], tuple[str, ...]] | None = None
    palette_states: Callable[[], tuple[Any, ...]] | None = None
    perturb: Callable[[Any, int, np.random.Generator], Any] | None = None
    sketch: Callable[[Any, Sequence[Any]], Sketch] | None = None
    route_start: Callable[[Any], Cell] | None = None
    route_answer: Callable[[Any, Sequence[Cell]], tuple[Any, ...]] | None = None

    def __post_init__(self) -> None:
        """Fill the derived defaults (None above) from the family's own functions."""
        derived = {
            "trajectory": functools.partial(_trajectory, apply_step=self.apply_step),
            "answer_steps": _own_steps,
            "answer_from_payload": functools.partial(_answer_from_payload, self.parse_answer, self.answer_tag),
            "random_step": functools.partial(_random_step, self.random_answer),
        }
        for name, value in derived.items():
            if getattr(self, name) is None:
                object.__setattr__(self, name, value)

    def question(self, state: Any, style: QuestionStyle) -> str:
        """The single-turn prompt: ``text_cot`` (Tables 12-17, the ``question`` column) or ``direct``."""
        if style not in QUESTION_STYLES:
            raise ValueError(f"unknown question style {style!r}; choose from {', '.join(QUESTION_STYLES)}")
        return QUESTION_STYLES[style](self, state)

    def oracle_steps(self, state: Any, answer: Sequence[Any] | None = None) -> tuple[Any, ...]:
        """The interactive steps of an optimal episode from ``state`` (``answer`` defaults to the solver's).

        Raises:
            ValueError: the state has no solution.
        """
        if answer is None:
            solution = self.solve(state)
            if solution is None:
                raise ValueError(f"{self.name} state has no solution")
            answer = solution.answer
        return tuple(self.answer_steps(state, tuple(answer)))

    def slot(self, difficulty: str, index: int) -> Slot:
        """The slot of row ``index`` (0-based) of a bucket; the mix repeats past its total.

        Example:
            >>> from vgau_data.registry import get_family
            >>> get_family("maze").slot("easy", 0).length in get_family("maze").length_mix["easy"]
            True
        """
        order = mix_order(self.length_mix[difficulty])
        return Slot(order[index % len(order)], (index * _GOLDEN) % 1.0)

    def bucket_of(self, optimal_length: int) -> str | None:
        """The difficulty whose range holds ``optimal_length``, or None for the gaps."""
        for difficulty, (low, high) in self.buckets.items():
            if low <= optimal_length <= high:
                return difficulty
        return None


def _own_steps(state: Any, answer: Sequence[Any]) -> tuple[Any, ...]:
    return tuple(answer)


def _trajectory(state: Any, answer: Sequence[Any], *, apply_step: Callable[[Any, Any], Any]) -> list[Any]:
    return walk(state, answer, apply_step)


def _answer_from_payload(parse_answer: Callable[[str], tuple[Any, ...]], tag: str | None, payload: str) -> tuple[Any, ...]:
    return parse_answer(payload if tag is None else f"<{tag}>{payload}</{tag}>")


def _random_step(random_answer: Callable[[Any, Any], tuple[Any, ...]], state: Any, rng: np.random.Generator) -> Any:
    """A step of a random answer (None when the family's random answer is empty)."""
    answer = random_answer(state, rng) or random_answer(state, rng)
    return answer[int(rng.integers(len(answer)))] if answer else None
