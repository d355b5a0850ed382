"""What every puzzle family provides, and the pieces they share.

A family is one package, ``vgau_data/puzzles/<family>/``, of small role modules:

    state.py      the frozen state type, its JSON (docs/contract/states.md) and ASCII forms; a leaf module
    rules.py      ``apply_step``, ``candidate_steps``, ``is_goal`` and the scorer's fast ``replay``
    solver.py     ``solve`` (exhaustive, optimal) and ``random_answer`` (the baseline)
    generator.py  ``BUCKETS``, ``LENGTH_MIX`` and ``generate``
    render.py     ``GEOMETRY`` and ``render``
    answers.py    ``ANSWER_TAG``, ``parse_answer``, ``format_answer``, ``answer_payload``,
                  ``parse_step``, ``format_step``
    prompts.py    ``PROMPTS``
    and, where the family has them, the modules of its optional capabilities
    (``capabilities``): fidelity.py (``FIDELITY``: cell labels and perturbation; ``VR``:
    the drawn solution), paper.py (``PAPER``: the authors' records), structure.py
    (``STRUCTURE``: structure statistics), symmetry.py (``SYMMETRY``: the transformations
    that keep the task, for training-data decontamination).

Its ``__init__`` ends with ``SPEC = FamilySpec.from_package(__name__)`` (plus the traits
where the family differs), registered by one line in
``vgau_data/registry.py``. Everything else
in the package (builders, oracle aids, scoring, runners) talks to a family only through
its ``FamilySpec``; nothing outside the package knows its rules.

Vocabulary:
    state    a frozen dataclass; ``to_json``/``from_json`` round-trip docs/contract/states.md.
    step     one parsed unit of an answer: a direction (maze, sokoban), a ``(car, dir)``
             pair (parking), a pair of cells (onet), a ``(cell, dir)`` pair (klotski),
             a label letter (path).
    answer   a tuple of steps: what ``parse_answer`` returns and ``replay`` judges.
    illegal  ``Illegal(code, step_index)``, never an exception: docs/contract/reason-codes.md.
"""

from __future__ import annotations

import dataclasses
import importlib
import json
import pkgutil
from collections import OrderedDict
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from types import ModuleType
from typing import TYPE_CHECKING, Any, Literal

from vgau_data.errors import VgauError
from vgau_data.puzzles.capabilities import (
    AuthorsReader,
    EpisodeSteps,
    Fidelity,
    SolutionSketch,
    Structure,
    Styles,
    Symmetry,
)
from vgau_data.puzzles.prompts import QUESTION_STYLES, FamilyPrompts
from vgau_data.rendering import AidStyle
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

    from vgau_data.puzzles.paper_records import PaperFormat
    from vgau_data.render_styles import RenderStyle
    from vgau_data.rendering import BoardGeometry

DEFAULT_AID = AidStyle(line_rgb=(230, 40, 40), line_px=2, label_fraction=0.2)
"""A family's aid unless it says otherwise: solid red lines, every cell labelled at its centre."""

_DIRECTION_ALIASES = {"u": "up", "d": "down", "l": "left", "r": "right"}
_EXACT_DIRECTIONS = {
    form: _DIRECTION_ALIASES.get(word, word)
    for word in (*DIRECTIONS, *_DIRECTION_ALIASES)
    for form in (word, word.upper(), word.capitalize())
}
"""The forms answers write (``up``, ``UP``, ``Up``, ``U``), looked up before any stripping."""

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
"""Every reason code a verdict may carry (docs/contract/reason-codes.md lists them all)."""


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
    word = _EXACT_DIRECTIONS.get(token) if type(token) is str else None
    if word is not None:
        return word
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


def bucket_slot(
    family: str,
    buckets: Mapping[str, tuple[int, int]],
    mix: LengthMix,
    difficulty: str,
    rng: np.random.Generator,
    slot: Slot | None,
) -> Slot:
    """The slot a family's ``generate`` builds: ``slot``, or one drawn from ``mix``, within the bucket.

    Raises:
        ValueError: an unknown difficulty, or a slot whose length is outside its bucket.
    """
    if difficulty not in buckets:
        raise ValueError(f"{family}: unknown difficulty {difficulty!r}; choose from {list(buckets)}")
    slot = slot or draw_slot(mix, difficulty, rng)
    low, high = buckets[difficulty]
    if not low <= slot.length <= high:
        raise ValueError(f"{family}/{difficulty}: length {slot.length} is outside {low}-{high}")
    return slot


MODULE_NAMES: dict[str, str] = {
    "aid": "AID",
    "buckets": "BUCKETS",
    "length_mix": "LENGTH_MIX",
    "geometry": "GEOMETRY",
    "prompts": "PROMPTS",
    "answer_tag": "ANSWER_TAG",
    "episode_steps": "EPISODE_STEPS",
    "fidelity": "FIDELITY",
    "vr": "VR",
    "paper": "PAPER",
    "structure": "STRUCTURE",
    "symmetry": "SYMMETRY",
    "authors_reader": "AUTHORS_READER",
    "styles": "STYLES",
}
"""How a family's modules spell the fields that are data, not functions (``FamilySpec.from_modules``)."""
CAPABILITIES: tuple[str, ...] = (
    "episode_steps", "fidelity", "vr", "paper", "structure", "symmetry", "authors_reader", "styles",
)  # fmt: skip
"""The optional capability groups of ``FamilySpec`` (``capabilities``), None where a family has none."""


@dataclass(frozen=True, kw_only=True, slots=True)
class FamilySpec:
    """One puzzle family, as the rest of the package sees it.

    Required core (every family gives its own; ``from_modules`` reads them from the
    family's role modules):
        name: registry key, HF config name and id prefix.
        buckets: the ``optimal_length`` range per difficulty, inclusive.
        length_mix: the rows per optimal length of each bucket (the authors' histogram);
            ``slot`` hands row ``index`` its length from it.
        geometry: where the cells of the rendered board lie (shared by every state).
        from_json / to_json: the canonical ``state`` column.
        apply_step: ``(state, step) -> state | Illegal``, one move of the interactive
            environment (for path: the marker moves one cell and the model declares the
            labels it passes).
        candidate_steps: ``state -> steps``, the steps a player tries from a state, legal
            or not (``apply_step`` judges each): every legal step leads to a state one of
            them leads to, or to one drawn the same (path's declarations are not drawn).
            Solver traces narrate them and a drawn next board is matched against them
            (``testing/step_checks.py`` checks the claim by brute force).
        is_goal: the environment's episode is won.
        replay: ``(state, answer) -> Replay``, the scorer's fast path; it agrees with
            stepping ``apply_step`` and ``is_goal``.
        generate: ``(difficulty, rng, slot=None) -> state`` whose optimum is exactly
            ``slot.length`` (a slot drawn from ``length_mix`` when None).
        solve: exhaustive optimal solver, ``state -> Solution`` (None if unsolvable).
        random_answer: ``(state, rng) -> answer``, legal-looking random steps (baseline).
        render: ``state -> RGB PIL image`` of size ``geometry.size``, no grid, no labels.
        prompts: the family's prompt pieces (``puzzles/prompts.py`` composes every
            protocol's text from them); ``question(state, style)`` is built from them.
        parse_answer: raw model text -> answer tuple; raises ``AnswerError``.
        format_answer: answer tuple -> text in the answer format (docs/contract/answers.md; tags included).
        answer_payload: answer tuple -> the JSON payload stored in the ``solution`` column.
        answer_tag: the tag around that payload in an answer text (None when the
            payload is the whole answer, as klotski's ``{"solution": [...]}``).
        parse_step / format_step: one interactive step in the per-turn format of the
            paper's authors (``<STEP_JSON>...</STEP_JSON>``, or a sentence for maze and
            sokoban); ``parse_step`` reads the last step in a reply, raising ``AnswerError``.
            An episode's steps, as a tuple, are an answer ``replay`` judges.

    Traits (defaults fit most families; set them where a family differs):
        aid: how the oracle aid looks (``AidStyle``: the authors' ``_build_aux_overlay``
            for the family: line colour, width and dash, which cells carry a ``(r,c)``
            label, where and how large, what the lines leave clear); the default is
            solid red lines and every cell labelled at its centre.
        unique_length: every feasible answer has the optimal length (path, onet).
        generation_weight: relative cost of generating a row, for scheduling builds.

    Optional capabilities (None: the family has none; ``capabilities`` describes each and
    what its consumers do without it): ``episode_steps``, ``fidelity``, ``vr``, ``paper``,
    ``structure``, ``symmetry``, ``authors_reader``, ``styles``.

    Everything else is computed from these fields (``trajectory``, ``answer_steps``,
    ``answer_from_payload``, ``random_step``, ``oracle_steps``, ``question``, ``slot``,
    ``bucket_of``), so ``dataclasses.replace(spec, apply_step=f)`` changes all that
    depends on ``apply_step``.
    """

    name: str
    buckets: Mapping[str, tuple[int, int]]
    length_mix: LengthMix
    geometry: BoardGeometry
    from_json: Callable[[str], Any]
    to_json: Callable[[Any], str]
    apply_step: Callable[[Any, Any], Any]
    candidate_steps: Callable[[Any], Iterable[Any]]
    is_goal: Callable[[Any], bool]
    replay: Callable[[Any, Sequence[Any]], Replay]
    generate: Callable[..., Any]
    solve: Callable[[Any], Solution | None]
    random_answer: Callable[[Any, np.random.Generator], tuple[Any, ...]]
    render: Callable[[Any], Image.Image]
    prompts: FamilyPrompts
    parse_answer: Callable[[str], tuple[Any, ...]]
    format_answer: Callable[[Sequence[Any]], str]
    answer_payload: Callable[[Sequence[Any]], str]
    answer_tag: str | None
    parse_step: Callable[[str], Any]
    format_step: Callable[[Any], str]
    aid: AidStyle = DEFAULT_AID
    unique_length: bool = False
    generation_weight: float = 1.0
    episode_steps: EpisodeSteps | None = None
    fidelity: Fidelity | None = None
    vr: SolutionSketch | None = None
    paper: PaperFormat | None = None
    structure: Structure | None = None
    symmetry: Symmetry | None = None
    authors_reader: AuthorsReader | None = None
    styles: Styles | None = None

    @classmethod
    def from_package(cls, package: str, **fields: Any) -> FamilySpec:
        """The spec of the family package ``package`` (its ``__name__``), read from all its modules.

        Every module of the package whose name does not start with ``_`` is imported, in
        name order, and read as ``from_modules`` reads them, so a new role or capability
        module is picked up by being there; the family is named by the package's last part.

        Example:
            >>> spec = FamilySpec.from_package("vgau_data.puzzles.maze")
            >>> spec.name, spec.vr is not None, spec.aid.line_px
            ('maze', True, 2)
        """
        root = importlib.import_module(package)  # from the package's own __init__: the module being built
        names = sorted(info.name for info in pkgutil.iter_modules(root.__path__) if not info.name.startswith("_"))
        modules = [importlib.import_module(f"{package}.{name}") for name in names]
        return cls.from_modules(package.rpartition(".")[2], modules, **fields)

    @classmethod
    def from_modules(cls, name: str, modules: Sequence[ModuleType], **fields: Any) -> FamilySpec:
        """The spec of a family, read from its modules; ``fields`` set the traits and override.

        Every required field is looked up in ``modules`` by its own name (``apply_step``,
        ``solve``, ...) or, for data, in capitals (``MODULE_NAMES``: ``BUCKETS``,
        ``GEOMETRY``, ...); each capability group a module defines is taken the same way
        (``FIDELITY``, ``VR``, ``PAPER``, ``STRUCTURE``, ``SYMMETRY``, ``EPISODE_STEPS``,
        ``AUTHORS_READER``), as is the aid's look (``AID``), and one no module defines
        keeps its default (None for a capability). Modules that import a name from one
        another share one object. The other traits (``unique_length``, ...) are only ever given.

        Raises:
            TypeError: a required field no module defines, or two modules define differently.

        Example:
            >>> from vgau_data.puzzles.maze import answers, fidelity, generator, prompts, render, rules, solver, state
            >>> roles = (state, rules, solver, generator, render, answers, prompts)
            >>> FamilySpec.from_modules("maze", roles).fidelity is None  # no module declares it
            True
            >>> FamilySpec.from_modules("maze", (*roles, fidelity)).vr.route_start(state.from_ascii(["S.G"]))
            (0, 0)
        """
        absent = object()
        missing = []
        for field in dataclasses.fields(cls):
            required = field.default is dataclasses.MISSING
            if field.name == "name" or field.name in fields or not (required or field.name in MODULE_NAMES):
                continue  # given, or a trait that is only ever given
            attribute = MODULE_NAMES.get(field.name, field.name)
            found = {}
            for module in modules:
                value = getattr(module, attribute, absent)
                if value is not absent:
                    found.setdefault(id(value), (module.__name__, value))
            if not found:
                if required:
                    missing.append(attribute)
            elif len(found) > 1:
                where = ", ".join(module for module, _ in found.values())
                raise TypeError(f"{name}: {attribute} is defined differently in {where}")
            else:
                fields[field.name] = next(iter(found.values()))[1]
        if missing:
            raise TypeError(f"{name}: none of its modules defines {', '.join(missing)} (FamilySpec.from_modules)")
        return cls(name=name, **fields)

    def trajectory(self, state: Any, answer: Sequence[Any]) -> list[Any]:
        """The states after each step of ``answer`` (the oracle state images).

        ``apply_step`` along the answer; a family with ``episode_steps`` (path) walks its
        episode instead, so its length is always ``optimal_length``.

        Raises:
            ValueError: a step of ``answer`` is illegal.
        """
        if self.episode_steps is not None:
            return self.episode_steps.trajectory(state, answer)
        return walk(state, answer, self.apply_step)

    def answer_steps(self, state: Any, answer: Sequence[Any]) -> tuple[Any, ...]:
        """The interactive steps that play ``answer``: its own steps, or the family's ``episode_steps``."""
        if self.episode_steps is not None:
            return self.episode_steps.answer_steps(state, answer)
        return tuple(answer)

    def answer_from_payload(self, payload: str) -> tuple[Any, ...]:
        """The answer of a ``solution`` payload: ``parse_answer`` of it wrapped in ``answer_tag``."""
        tag = self.answer_tag
        return self.parse_answer(payload if tag is None else f"<{tag}>{payload}</{tag}>")

    def random_step(self, state: Any, rng: np.random.Generator) -> Any:
        """One random interactive step (baseline): a step of a random answer, or ``episode_steps``' own.

        None when the family's random answer is empty twice.
        """
        if self.episode_steps is not None:
            return self.episode_steps.random_step(state, rng)
        answer = self.random_answer(state, rng) or self.random_answer(state, rng)
        return answer[int(rng.integers(len(answer)))] if answer else None

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

    def styled(self, style: RenderStyle) -> FamilySpec:
        """This family as drawn in ``style`` (``vgau_data.render_styles``): its geometry, render,
        aid and letters from ``styles``, so oracle images and the readers follow the style.

        The benchmark style gives the spec itself; the same style gives the same object
        (caches keyed on a spec's renderer, the cell decoder's references, are built once).

        Raises:
            VgauError: the family draws only the benchmark style (``styles`` is None).

        Example:
            >>> from vgau_data.registry import get_family
            >>> from vgau_data.render_styles import OOD_STYLE
            >>> get_family("maze").styled(OOD_STYLE).geometry.cell_px
            78
        """
        if style.is_benchmark:
            return self
        key = (id(self), style)
        cached = _STYLED.get(key)
        if cached is not None and cached[0] is self:
            _STYLED.move_to_end(key)
            return cached[1]
        if self.styles is None:
            raise VgauError(f"family {self.name!r} draws only the benchmark style (FamilySpec.styles)")
        board = self.styles.board(style)
        fidelity = self.fidelity
        if fidelity is not None and fidelity.text_marks is not None:
            fidelity = dataclasses.replace(fidelity, text_marks=board.text_marks)
        drawn = {"geometry": board.geometry, "render": board.render, "aid": board.aid, "fidelity": fidelity}
        result = dataclasses.replace(self, **drawn)
        _STYLED[key] = (self, result)
        while len(_STYLED) > _STYLED_MAX:
            _STYLED.popitem(last=False)
        return result

    def bucket_of(self, optimal_length: int) -> str | None:
        """The difficulty whose range holds ``optimal_length``, or None for the gaps."""
        for difficulty, (low, high) in self.buckets.items():
            if low <= optimal_length <= high:
                return difficulty
        return None


_STYLED: OrderedDict[tuple[int, RenderStyle], tuple[FamilySpec, FamilySpec]] = OrderedDict()
"""``FamilySpec.styled``'s specs by (spec, style), least recently used first."""
_STYLED_MAX = 1024
