"""Verifiable rewards: an answer text and a row's state JSON -> a score record and a reward.

Reinforcement learning with verifiable rewards needs the strict replay verifier, callable
from a trainer with nothing but what the row carries. ``score(text, state)`` parses the
answer with the family's own parser and replays it on the state with the family's own
rules, so every valid solution scores (not only the stored one); it never raises on any
text. The state is the dataset's ``state`` column (a state JSON string), or a
reference JSON; the family is named (``"maze"``, ``"vgau/maze"``) or found from the state
itself. Parsed states are cached by their JSON (``STATE_CACHE_SIZE`` of them, least
recently used dropped), so a group of completions of one prompt parses its state once.
A state never seen costs its parse and a first replay: ``benchmarks/rewards.py`` prints
answers per second cold and warm (the target: 20,000 cold per core). The core imports
numpy and the families' rules, never Pillow, a trainer or torch (drawn-image rewards,
``vgau_data.rewards.images``, import Pillow themselves).

Reward kinds turn a ``Score`` into a number; each is a function registered in
``REWARD_KINDS`` where it is defined (``@reward_kind``):

    optimal    1 for a feasible answer of optimal length, else 0 (the default);
    feasible   1 for any answer that reaches the goal with legal moves, else 0;
    progress   1 for a feasible answer; else the share of the optimal distance the legal
               prefix of the answer covers, always < 1 (partial credit, only when asked for);
    format     1 when an answer in the family's format was found, read and names at
               least one move, else 0.

Every search a reward makes (the optimum of a row given without ``optimal_length``, the
distance left for ``progress``) is bounded by a ``SolveBudget`` (``budget=`` of ``score``
and ``reward``; ``DEFAULT_BUDGET`` otherwise): past it the answer gets ``progress`` 0 and
``optimal`` 0, and ``Score.budget_exceeded`` says why (``vgau_data.rewards.budget``).

The trainer adapters live beside this core: ``vgau_data.rewards.trl``, ``.verl``,
``.openrlhf``; rewards for drawn images in ``vgau_data.rewards.images``.

Example:
    >>> from vgau_data.registry import get_family
    >>> from vgau_data.seeding import rng_for
    >>> maze = get_family("maze")
    >>> initial = maze.generate("easy", rng_for(0))
    >>> state = maze.to_json(initial)
    >>> score(maze.format_answer(maze.solve(initial).answer), state).optimal
    True
    >>> reward("no idea", state, "format")
    0.0
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass
from types import MappingProxyType
from typing import Any

from vgau_data.errors import StateError, VgauError
from vgau_data.metrics.scoring import parse_output, read_with
from vgau_data.puzzles.base import FamilySpec, Illegal
from vgau_data.registry import FAMILIES
from vgau_data.rewards.budget import DEFAULT_BUDGET, SolveBudget, SolveBudgetExceeded, bounded_distance

DATA_SOURCE_PREFIX = "vgau/"
"""verl's ``data_source`` of a row is ``vgau/<family>``."""
STATE_CACHE_SIZE = 16_384
"""Parsed states kept (least recently used dropped): a training epoch's distinct prompts, several times over."""
DISTANCE_CACHE_SIZE = 65_536
"""Searched distances-to-goal kept for ``progress`` (states reached by legal prefixes)."""
_OVER_BUDGET = -1
"""``_distance``'s result for a search that met its budget (cached like a distance)."""

__all__ = [
    "DATA_SOURCE_PREFIX",
    "DEFAULT_BUDGET",
    "REWARD_KINDS",
    "RewardError",
    "RewardKind",
    "Score",
    "SolveBudget",
    "data_source",
    "family_of",
    "read_step",
    "reward",
    "reward_kind",
    "score",
    "score_steps",
]


class RewardError(VgauError, ValueError):
    """A row the rewards cannot score: a foreign task, or a ground truth that is not ours."""


@dataclass(frozen=True, slots=True)
class Score:
    """How one answer fared on its state.

    Attributes:
        family: the puzzle family.
        parsed: an answer in the family's format was found and read.
        feasible: every move legal and the goal reached.
        optimal: feasible in ``optimal_length`` moves.
        n_moves: moves in the answer (for path's label answers: the route's moves when right,
            else the labels given), as the scorer counts them.
        optimal_length: the optimum; given with the row, or solved when judging needed it
            (None when neither: an answer that is not feasible needs no optimum).
        first_illegal: 0-based index of the first illegal move (None when every move is legal).
        error: the reason code (docs/contract/reason-codes.md; None when feasible).
        progress: 1.0 for a feasible answer, else the share of the optimal distance covered
            by the legal prefix, in [0, 1); computed only when asked for
            (``score(..., progress=True)``), else None.
        budget_exceeded: a search this score needed met its ``SolveBudget``: ``progress``
            is then 0 and ``optimal`` False (and ``optimal_length`` None when it was the optimum).
    """

    family: str
    parsed: bool
    feasible: bool
    optimal: bool
    n_moves: int
    optimal_length: int | None
    first_illegal: int | None
    error: str | None
    progress: float | None = None
    budget_exceeded: bool = False

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


# ---------------------------------------------------------------------------- states


@dataclass(slots=True)
class _Entry:
    """A parsed ground truth: its family, state and optimum (searched on first need, then kept).

    ``over_budget`` is the largest budget a search for the optimum met (not searched again within it).
    """

    family: FamilySpec
    state: Any
    optimal_length: int | None
    over_budget: SolveBudget | None = None


def family_of(name: object) -> FamilySpec:
    """The family a task name, a family name or a verl ``data_source`` (``"vgau/maze"``) names.

    Raises:
        RewardError: a name that is none of ours (the message lists ours).

    Example:
        >>> family_of("vgau/Maze").name
        'maze'
    """
    if isinstance(name, str):
        key = name.strip().lower().removeprefix(DATA_SOURCE_PREFIX)
        if key in FAMILIES:
            return FAMILIES[key]
    ours = ", ".join(data_source(f) for f in FAMILIES)
    raise RewardError(f"not a vgau_data task: {name!r:.80}; these rewards score only {ours}")


def data_source(family: str) -> str:
    """The verl ``data_source`` of a family's rows (``"vgau/maze"``)."""
    return DATA_SOURCE_PREFIX + family


@functools.lru_cache(maxsize=STATE_CACHE_SIZE)
def _entry(ground_truth: str, family: str | None) -> _Entry:
    """Parse a ground truth (state JSON or reference JSON, docs/contract/records.md) once; raises on anything else."""
    optimal_length = None
    state_json = ground_truth
    if '"task"' in ground_truth and '"state"' in ground_truth:  # cheap test before parsing a reference
        try:
            obj = json.loads(ground_truth)
        except (ValueError, RecursionError):
            obj = None
        if isinstance(obj, dict) and isinstance(obj.get("state"), str) and "task" in obj:
            reference_family = family_of(obj["task"]).name
            if family is not None and family != reference_family:
                raise RewardError(f"the row is {family} but its reference is {reference_family}")
            family, state_json = reference_family, obj["state"]
            optimal_length = _optimum(obj.get("optimal_length"))
    if family is not None:
        spec = FAMILIES[family]
        return _Entry(spec, spec.from_json(state_json), optimal_length)
    for spec in FAMILIES.values():  # every family checks its keys first, so the others fail fast
        try:
            return _Entry(spec, spec.from_json(state_json), optimal_length)
        except StateError:
            continue
    raise RewardError(f"the ground truth is the state of no vgau_data family: {ground_truth[:120]!r}")


def _optimum(value: object) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise RewardError(f"optimal_length must be a non-negative int, got {value!r:.40}")
    return value


def _resolve(state: object, family: object, optimal_length: object) -> _Entry:
    if not isinstance(state, str):
        raise RewardError(f"the state must be the row's state JSON string, got {type(state).__name__}")
    entry = _entry(state, None if family is None else family_of(family).name)
    given = _optimum(optimal_length)
    if given is not None and given != entry.optimal_length:
        entry = _Entry(entry.family, entry.state, given)
    return entry


def _optimal_length(entry: _Entry, budget: SolveBudget) -> int | None:
    """The entry's optimum, searched within ``budget`` (and kept on the cached entry) the first time it is needed.

    Raises:
        SolveBudgetExceeded: the search met the budget (now or before, with a budget at least as large).
    """
    if entry.optimal_length is None:
        known = entry.over_budget
        if known is not None and budget.positions <= known.positions and budget.seconds <= known.seconds:
            raise SolveBudgetExceeded(f"{entry.family.name}: the optimum's search met {known}")
        try:
            entry.optimal_length = bounded_distance(entry.family, entry.state, budget)
        except SolveBudgetExceeded:
            entry.over_budget = budget
            raise
    return entry.optimal_length


# ---------------------------------------------------------------------------- scoring


def read_step(family: FamilySpec, text: object) -> tuple[Any, str | None]:
    """``(step, None)`` for one interactive step in the family's per-step format, else ``(None, reason code)``."""
    return read_with(family.parse_step, text, family.name)


def score(
    text: object,
    state: str,
    *,
    family: str | None = None,
    optimal_length: int | None = None,
    progress: bool = False,
    budget: SolveBudget = DEFAULT_BUDGET,
) -> Score:
    """Parse ``text`` as the family's answer and replay it on ``state``.

    Args:
        text: the model's answer (any object; only a string can parse).
        state: the row's state JSON (the ``state`` column), or its reference JSON.
        family: the row's family (``"maze"``, or verl's ``"vgau/maze"``); found from the
            state when None.
        optimal_length: the row's optimum (its ``optimal_length`` column); searched when
            None and an answer is feasible (path and onet: never, every feasible answer is optimal).
        progress: also compute ``Score.progress`` (it may search from the state the answer reaches).
        budget: the most any of those searches may take (``SolveBudget``); past it, the
            defined result: ``progress`` 0, ``optimal`` False, ``budget_exceeded`` True.

    Never raises on ``text``. Raises ``RewardError`` (or ``StateError``) when the row
    itself is not ours or is broken.
    """
    entry = _resolve(state, family, optimal_length)
    budget = _checked(budget)
    answer, error = parse_output(entry.family, text)
    if answer is None:
        return Score(entry.family.name, False, False, False, 0, entry.optimal_length, None, error,
                     0.0 if progress else None)  # fmt: skip
    return _judge(entry, answer, progress, budget)


def score_steps(
    steps: tuple[Any, ...],
    state: str,
    *,
    family: str | None = None,
    optimal_length: int | None = None,
    progress: bool = False,
    budget: SolveBudget = DEFAULT_BUDGET,
) -> Score:
    """``score`` of an answer already parsed: the steps of an interactive episode, as ``parse_step`` reads them."""
    entry = _resolve(state, family, optimal_length)
    return _judge(entry, tuple(steps), progress, _checked(budget))


def _checked(budget: object) -> SolveBudget:
    if budget is DEFAULT_BUDGET:
        return DEFAULT_BUDGET
    if not isinstance(budget, SolveBudget):
        raise RewardError(f"budget must be a SolveBudget(positions=..., seconds=...), got {type(budget).__name__}")
    return budget.checked()


def _judge(entry: _Entry, answer: tuple[Any, ...], progress: bool, budget: SolveBudget) -> Score:
    """Replay; search only what the score needs: the optimum of a feasible answer given none, progress when asked."""
    spec = entry.family
    replayed = spec.replay(entry.state, answer)
    optimum = entry.optimal_length
    exceeded = False
    if replayed.feasible and optimum is None:
        if spec.unique_length:
            optimum = replayed.length  # every feasible answer of these families is optimal
        else:
            try:
                optimum = _optimal_length(entry, budget)
            except SolveBudgetExceeded:
                exceeded = True
    optimal = replayed.feasible and replayed.length == optimum
    first_illegal = None
    if replayed.error is not None and replayed.error != "not_solved":
        first_illegal = replayed.first_invalid_step
    share = None
    if progress:
        if replayed.feasible:
            share = 1.0
        else:
            try:
                share = _progress(entry, answer, first_illegal, budget)
            except SolveBudgetExceeded:
                share, exceeded = 0.0, True
        optimum = entry.optimal_length if optimum is None else optimum
    return Score(spec.name, True, replayed.feasible, optimal, replayed.length, optimum, first_illegal,
                 replayed.error, share, exceeded)  # fmt: skip


def _progress(entry: _Entry, answer: tuple[Any, ...], first_illegal: int | None, budget: SolveBudget) -> float:
    """Share of the optimal distance ``d0`` covered by an infeasible answer's legal prefix, always < 1.

    ``(d0 - d) / d0`` with ``d`` the distance left where the legal moves lead (searched within
    ``budget``; 0 at a dead end); an answer whose legal moves pass through the goal but do
    not end the answer there (moves after it, an illegal one after it) gets ``d0 / (d0 + 1)``:
    above every answer that never reached the goal, below every feasible one.
    """
    spec, state = entry.family, entry.state
    start = _optimal_length(entry, budget)
    if not start:
        return 0.0
    legal = answer if first_illegal is None else answer[:first_illegal]
    try:
        steps = spec.answer_steps(state, legal)
    except ValueError:  # an answer form with no walk (path's labels other than the route's)
        return 0.0
    for step in steps:
        nxt = spec.apply_step(state, step)
        if isinstance(nxt, Illegal):
            break
        state = nxt
        if spec.is_goal(state):
            return start / (start + 1)
    left = _distance(spec.name, state, budget)
    if left is None:
        return 0.0  # a dead end (a box in a corner, a blocked pairing): no distance was covered
    return max(0.0, (start - left) / start)


def _distance(family: str, state: Any, budget: SolveBudget, within: int | None = None) -> int | None:
    """Moves from ``state`` to the goal (None when it cannot be reached, in ``within`` moves when given).

    Raises:
        SolveBudgetExceeded: the search met ``budget`` (now or, cached, before).
    """
    moves = _cached_distance(family, state, budget, within)
    if moves == _OVER_BUDGET:
        raise SolveBudgetExceeded(f"{family}: the search met {budget}")
    return moves


@functools.lru_cache(maxsize=DISTANCE_CACHE_SIZE)
def _cached_distance(family: str, state: Any, budget: SolveBudget, within: int | None) -> int | None:
    """``_distance``, cached; states are frozen, so they key it."""
    try:
        return bounded_distance(FAMILIES[family], state, budget, within=within)
    except SolveBudgetExceeded:
        return _OVER_BUDGET


# ---------------------------------------------------------------------------- reward kinds


@dataclass(frozen=True, slots=True)
class RewardKind:
    """One way to turn a ``Score`` into a reward; ``needs_progress`` asks ``score`` for ``progress``."""

    name: str
    function: Callable[[Score], float]
    summary: str
    needs_progress: bool = False

    def __call__(self, record: Score) -> float:
        return self.function(record)


_KINDS: dict[str, RewardKind] = {}
REWARD_KINDS: Mapping[str, RewardKind] = MappingProxyType(_KINDS)
"""Every reward kind by name (``reward_kind`` registers one)."""


def reward_kind(name: str, summary: str, *, needs_progress: bool = False) -> Callable[[Callable[[Score], float]], RewardKind]:
    """Decorator: register ``function(score) -> float`` as the reward kind ``name``."""

    def register(function: Callable[[Score], float]) -> RewardKind:
        if name in _KINDS:
            raise ValueError(f"reward kind {name!r} is already registered")
        kind = RewardKind(name, function, summary, needs_progress)
        _KINDS[name] = kind
        return kind

    return register


def get_kind(name: object) -> RewardKind:
    """The reward kind ``name``; ``RewardError`` lists the kinds when it is none of them."""
    if isinstance(name, str) and name in _KINDS:
        return _KINDS[name]
    raise RewardError(f"unknown reward kind {name!r:.40}; choose from {', '.join(_KINDS)}")


@reward_kind("optimal", "1 for a feasible answer of optimal length, else 0")
def optimal(record: Score) -> float:
    return 1.0 if record.optimal else 0.0


@reward_kind("feasible", "1 for legal moves that reach the goal, whatever their number, else 0")
def feasible(record: Score) -> float:
    return 1.0 if record.feasible else 0.0


@reward_kind("progress", "1 when feasible, else the share of the optimal distance the legal prefix covers, < 1",
             needs_progress=True)  # fmt: skip
def progress(record: Score) -> float:
    return float(record.progress or 0.0)


@reward_kind("format", "1 when an answer in the family's format was found, read and names a move, else 0")
def answer_format(record: Score) -> float:
    return 1.0 if record.parsed and record.n_moves > 0 else 0.0


def reward(
    text: object,
    state: str,
    kind: str = "optimal",
    *,
    family: str | None = None,
    optimal_length: int | None = None,
    budget: SolveBudget = DEFAULT_BUDGET,
) -> float:
    """The ``kind`` reward of one answer (see ``score`` for the arguments); it searches only what the kind needs."""
    chosen = get_kind(kind)
    return chosen(score(text, state, family=family, optimal_length=optimal_length, progress=chosen.needs_progress,
                        budget=budget))  # fmt: skip
