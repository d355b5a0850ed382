"""What a family may add to its required core: the optional capability groups of ``FamilySpec``.

A family declares a group as a module constant (``FamilySpec.from_package`` picks it up
from the module it passes: ``FIDELITY`` and ``VR`` in ``fidelity.py``, ``PAPER`` in
``paper.py``, ``STRUCTURE`` in ``structure.py``, ``SYMMETRY`` in ``symmetry.py``,
``AUTHORS_READER`` in ``authors_reader.py``). A group is None on a family that lacks it,
and every consumer says what it leaves out then:

    episode_steps  the answer is not the interactive steps (path names letters, its episode
                   walks a marker): how an episode plays an answer
    fidelity       what each cell of a board image shows, to decode generated images, and
                   states perturbed by k cells (``vgau_data.fidelity``, the scripted
                   images); without it a generated image gets no cell measures
    vr             the drawn solution (the dataset's ``oracle_vr``, the Oracle-VR protocol)
                   and, for a red route, how to read one back from a drawing; without it a
                   row's ``oracle_vr`` is null and ``run`` refuses ``oracle_vr``
    paper          the authors' published records (``paper_records.PaperFormat``, with the
                   helpers that read them); without it ``build --from-paper`` refuses it
    structure      structure statistics of instances, ours beside the authors' (the card's
                   table, ``benchmarks/structure.py``); without it the family is left out
    symmetry       the transformations that keep the task (rotations, reflections,
                   relabellings), so training rows are decontaminated against rotated or
                   relabelled copies of test instances (``training.keys``); without it a
                   state is a copy only of itself (``puzzles.symmetry.identity``)
    authors_reader how the authors' released code reads the family's answers and ends its
                   episodes (``authors_reader.py``: ``AUTHORS_READER``, an
                   ``AuthorsReader``); without it the ``authors``
                   reader refuses the family (``ReaderError``)
    styles         the board drawn in another ``RenderStyle`` (training variety,
                   ``vgau_data.render_styles``); without it only the benchmark style

The vocabulary these groups speak lives here too: ``Sketch`` (what a drawing shows),
``pick_edits`` (perturbations by exactly k cells), ``Statistic`` and ``Measures``; the
square's symmetries that ``Symmetry`` groups use are in ``puzzles.symmetry``.
"""

from __future__ import annotations

import dataclasses
import functools
import itertools
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from vgau_data.types import DELTAS, Cell, Direction

if TYPE_CHECKING:
    import numpy as np
    from PIL import Image

    from vgau_data.render_styles import RenderStyle
    from vgau_data.rendering import AidStyle, BoardGeometry, Box, TextMark


@dataclass(frozen=True, kw_only=True, slots=True)
class EpisodeSteps:
    """How an interactive episode plays an answer, for a family whose answer steps are not its episode's.

    Path answers with the letters on the route; its episode moves a marker one cell per
    step (``PathStep``). Every other family plays an answer's own steps and has none.

    Attributes:
        answer_steps: ``(state, answer) -> steps``, the episode that plays ``answer``
            (``ValueError`` for an answer no episode plays).
        trajectory: ``(state, answer) -> [state after each step]`` (oracle state images).
        random_step: ``(state, rng) -> step``, one random interactive step (baseline).
    """

    answer_steps: Callable[[Any, Sequence[Any]], tuple[Any, ...]]
    trajectory: Callable[[Any, Sequence[Any]], list[Any]]
    random_step: Callable[[Any, np.random.Generator], Any]


@dataclass(frozen=True, kw_only=True, slots=True)
class Fidelity:
    """What every cell of a board image shows, so that generated images can be decoded.

    Attributes:
        cell_labels: ``state -> labels``, what every cell shows (row-major), e.g.
            ``wall``/``open``/``agent``; a label names a look, so equal labels look alike
            up to the piece a cell belongs to. Generated images are decoded into them.
        palette_states: ``() -> states`` whose renders show every label in every look
            (the decoder's reference cells).
        perturb: ``(state, k, rng) -> state`` with exactly ``k`` cell labels changed (the
            scripted ``perturbed-K`` images; it need not be a solvable or even valid
            puzzle), or None when the family has no perturbation.
        text_marks: ``state -> marks``, the letters the board shows (path's A-E, parking's
            vehicle ids, klotski's T) as its renderer draws them, for the glyph reader
            (``vgau_data.fidelity.glyphs``); None when the board shows no letters.
    """

    cell_labels: Callable[[Any], tuple[str, ...]]
    palette_states: Callable[[], tuple[Any, ...]]
    perturb: Callable[[Any, int, np.random.Generator], Any] | None = None
    text_marks: Callable[[Any], tuple[TextMark, ...]] | None = None


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


@dataclass(frozen=True, kw_only=True, slots=True)
class SolutionSketch:
    """The drawn solution of a state: Self-VR's target (Tables 30-35) and the dataset's ``oracle_vr``.

    Attributes:
        sketch: ``(state, answer) -> Sketch``, the solution drawing of self-VR's oracle.
        route_start: the cell a red route starts from, for a family whose drawing is one
            red route (maze, sokoban, path); None: drawings are not read back as routes.
        route_answer: ``(state, cells) -> steps`` turns a red route read from an image
            into interactive steps (None: the route's own moves, ``route_directions``).
    """

    sketch: Callable[[Any, Sequence[Any]], Sketch]
    route_start: Callable[[Any], Cell] | None = None
    route_answer: Callable[[Any, Sequence[Cell]], tuple[Any, ...]] | None = None


class AuthorsReader(Protocol):
    """How the authors' released code reads a family (``authors_reader.py``: ``AUTHORS_READER``).

    ``AuthorsReader`` implements it with their shared behaviour;
    the ``authors`` reader (``vgau_data.readers``) uses it.

    Attributes:
        family: the family's name.
        empty_answer: what their step runner answers after a failed episode.
        bounded: their adapter ends an episode once the goal is out of reach within the optimum.
        read_answer: ``text -> Answer`` (``authors_reading.Answer``), or the reason code of a
            text without an answer.
        read_step: ``text -> step`` of one interactive reply, or None.
        answer_text: ``steps -> text``, their runner's answer after a finished episode.
        episode: ``(spec, state, optimal_length, budget) -> EpisodeRules`` (``puzzles.reading``).
    """

    family: str
    empty_answer: str
    bounded: bool

    def read_answer(self, text: str) -> Any: ...

    def read_step(self, text: str) -> Any: ...

    def answer_text(self, steps: Sequence[Any]) -> str: ...

    def episode(self, family: Any, state: Any, optimal_length: int, budget: str) -> Any: ...


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


Measures = dict[str, float]
"""One instance's structure statistics, or a bucket's means: ``{statistic key: value}``."""


@dataclass(frozen=True, slots=True)
class Statistic:
    """One column of the structure comparison: its key in a ``Measures`` dict and its label."""

    key: str
    label: str


@dataclass(frozen=True, kw_only=True, slots=True)
class Structure:
    """Structure statistics of a family's instances, so a build can show its buckets are built like the authors'.

    The paper validates its difficulty split on maze alone (appendix A.1.7, Tables 5-6);
    ``builders.structure`` tables every family that declares its statistics here.

    Attributes:
        statistics: the statistics in table order (distances are Manhattan, in cells).
        measure: ``(state, optimal answer) -> Measures`` with every statistic's key.
        authors: the authors' bucket means over their published instances, ``{difficulty:
            Measures}`` (numbers only: their files are not part of this package); None
            when they published none. A statistic their files cannot give is left out.
        paper: the paper's own bucket means where it prints them (maze: Tables 5-6).
        measure_record: ``record -> Measures`` of one raw record in the file
            ``FamilySpec.paper.manifest`` names (``benchmarks/structure.py --paper-data``
            recomputes ``authors`` with it); None when there is none.
    """

    statistics: tuple[Statistic, ...]
    measure: Callable[[Any, Sequence[Any]], Measures]
    authors: Mapping[str, Measures] | None = None
    paper: Mapping[str, Measures] | None = None
    measure_record: Callable[[Mapping[str, Any]], Measures] | None = None


def manhattan(a: Cell, b: Cell) -> int:
    """The Manhattan distance of two cells (the structure statistics' distance).

    Example:
        >>> manhattan((0, 0), (2, 3))
        5
    """
    return abs(a[0] - b[0]) + abs(a[1] - b[1])


@dataclass(frozen=True, kw_only=True, slots=True)
class Symmetry:
    """A family's task-preserving transformations, for canonical keys (``training.keys``).

    Rotating a maze a quarter turn, or renaming the fruits of an onet board, gives the same
    puzzle: the same optimum, and the old answer with its moves remapped solves it. A
    training row that is such a copy of a test instance leaks it, so decontamination
    compares states up to these transformations.

    Attributes:
        transforms: names of the geometric maps of the group (``puzzles.symmetry.D4``, a
            mirror, or just ``"identity"``).
        apply: ``(state, name) -> state`` seen through transform ``name``.
        map_step: ``(step, name, state) -> step``, one answer step under ``name``
            (``state`` is the board the step is played on).
        form: ``state -> str``, equal for two states exactly when they are the same board
            up to relabelling (fruits, letters, other vehicles) and, where a family says
            so, up to details its answer does not depend on (a sokoban player anywhere in
            its region); the canonical key hashes the least form over ``transforms``.
        relabel: ``(state, rng) -> (state, step map)``, a random relabelling and the step
            map that goes with it, so a test can check the claim by solving the
            relabelled board (None: nothing to relabel).
        fast_forms: ``state -> [form under each transform]`` computed at once (None:
            ``form(apply(state, name))`` name by name; a test checks they agree).
        record_forms: ``record -> (task id, forms)`` for a family whose published records
            (``FamilySpec.paper``) hold no board without their images (path: walls only
            in the image): the least form of the start and of each state of the stored
            optimal answer before the goal, read from the record alone (None: records
            are read into states and keyed like any state).
    """

    transforms: tuple[str, ...]
    apply: Callable[[Any, str], Any]
    map_step: Callable[[Any, str, Any], Any]
    form: Callable[[Any], str]
    relabel: Callable[[Any, np.random.Generator], tuple[Any, Callable[[Any], Any]]] | None = None
    fast_forms: Callable[[Any], list[str]] | None = None
    record_forms: Callable[[Mapping[str, Any]], tuple[str, list[str]]] | None = None

    def forms(self, state: Any) -> list[str]:
        """The form of ``state`` under every transform (the canonical key hashes the least)."""
        if self.fast_forms is not None:
            return self.fast_forms(state)
        return [self.form(self.apply(state, name)) for name in self.transforms]


@dataclass(frozen=True, kw_only=True, slots=True)
class StyledBoard:
    """A family's drawing in one ``RenderStyle``: what ``render_styles.styled`` puts in its spec.

    Attributes:
        geometry: where the cells lie at the style's cell scale.
        render: ``state -> RGB image`` of ``geometry.size`` in the style.
        aid: the oracle aid's look on that board (the authors' lines and labels; what
            they keep clear follows the board).
        text_marks: the letters as drawn in the style (None: the board shows none).
    """

    geometry: BoardGeometry
    render: Callable[[Any], Image.Image]
    aid: AidStyle
    text_marks: Callable[[Any], tuple[TextMark, ...]] | None = None


@dataclass(frozen=True, kw_only=True, slots=True)
class Styles:
    """How a family draws its board in any ``RenderStyle`` (``board(style)``), for training variety.

    ``board(BENCHMARK_STYLE)`` draws exactly what the family's ``render`` draws. A family
    whose drawing functions each take a ``style=`` keyword declares ``Styles.drawn(...)``.
    """

    board: Callable[[RenderStyle], StyledBoard]

    @classmethod
    def drawn(
        cls,
        geometry: BoardGeometry,
        render: Callable[..., Image.Image],
        aid: AidStyle,
        *,
        text_marks: Callable[..., tuple[TextMark, ...]] | None = None,
        keep_clear: Callable[..., Sequence[Box]] | None = None,
    ) -> Styles:
        """The styles of a family whose ``render``, ``text_marks`` and the aid's ``keep_clear``
        take ``style=`` (the benchmark style by default): each board is the benchmark
        ``geometry`` at the style's cell scale, those functions bound to the style, and
        ``aid`` (the authors' look) keeping clear what ``keep_clear`` says in that style."""

        def board(style: RenderStyle) -> StyledBoard:
            return StyledBoard(
                geometry=style.geometry(geometry),
                render=functools.partial(render, style=style),
                aid=aid if keep_clear is None else dataclasses.replace(
                    aid, keep_clear=functools.partial(keep_clear, style=style)),
                text_marks=None if text_marks is None else functools.partial(text_marks, style=style),
            )  # fmt: skip

        return cls(board=board)
