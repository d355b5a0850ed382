"""The optional capabilities a family declares, each exercised on the family's own instances.

- ``fidelity``: the cell decoder, built from ``palette_states``, reads the family's own
  boards (generated, solved, palette) and every instance's oracle aid back to
  ``cell_labels`` (an aid whose labels cover the pieces fails here); the letters
  ``text_marks`` names read back (``glyphs``) from each board and its aid;
  ``perturb`` changes exactly k labels;
- ``vr``: the drawn solution has the board's size and differs from it, the decoder reads
  the cells under it, and a red route (``route_start``) reads back as a feasible answer of
  the optimal length;
- ``paper``: an instance written in the authors' record format (``PaperFormat.write``)
  reads back as the same state with a stored answer that replays at the optimum, and
  ``Structure.measure_record`` of that record measures it as ``Structure.measure`` does;
- ``structure``: every instance measures to a finite number per statistic, and the
  authors' and the paper's means name known buckets and statistics only;
- ``symmetry``: every transform (and a random relabelling) of an instance is a valid
  board with the same optimum, on which the answer with its steps remapped replays at
  that optimum, and which has the same least form (the canonical key); ``forms`` agrees
  with ``form`` of each transform; ``record_forms`` of the instance's authors' record
  starts with that least form;
- ``styles``: the benchmark style draws exactly the family's ``render`` (and letters); the
  held-out style (``OOD_STYLE``, each knob outside the training styles') draws boards of its
  own geometry, and the ``fidelity`` and ``vr`` checks above pass on them;
- ``episode_steps`` is exercised wherever an episode is (oracle steps, trajectories,
  random walks).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from vgau_data.errors import PaperDataError
from vgau_data.fidelity import read_cells, read_route
from vgau_data.fidelity.glyphs import read_glyphs
from vgau_data.oracle_aids import oracle_aid
from vgau_data.oracle_aids.vr import oracle_vr
from vgau_data.protocols import BUDGET_MODES
from vgau_data.puzzles.authors_reading import judge_answer
from vgau_data.puzzles.base import DIFFICULTIES, FamilySpec, canonical_json
from vgau_data.puzzles.capabilities import Sketch
from vgau_data.puzzles.reading import EpisodeRules
from vgau_data.render_styles import BENCHMARK_STYLE, OOD_STYLE

if TYPE_CHECKING:
    from vgau_data.testing.checks import Instance

Expect = Callable[[object, str], None]
PERTURBED_CELLS = (1, 3)


def check_capabilities(spec: FamilySpec, instances: Sequence[Instance], expect: Expect) -> None:
    """Every capability ``spec`` declares, on ``instances`` (the first of each bucket)."""
    for capability, check in CAPABILITY_CHECKS.items():
        if getattr(spec, capability) is not None:
            check(spec, instances, expect)


def _check_authors_reader(spec: FamilySpec, instances: Sequence[Instance], expect: Expect) -> None:
    """The ``authors`` reader's view of the family: its name, the canonical answer read as optimal,
    their failed-episode answer as no solution, and an episode's rules under both budgets."""
    reader = spec.authors_reader
    expect(reader.family == spec.name, f"{spec.name}: authors_reader.family is {reader.family!r}")
    for instance in instances:
        canonical = judge_answer(spec, instance.state, reader.read_answer(spec.format_answer(instance.answer)))
        expect(canonical.replay.feasible and canonical.replay.length == instance.optimal_length,
               f"{instance.where}: the authors reader reads the canonical answer as {canonical.replay}")  # fmt: skip
        if instance.optimal_length:
            empty = judge_answer(spec, instance.state, reader.read_answer(reader.empty_answer))
            expect(not empty.replay.feasible, f"{instance.where}: the authors reader's empty_answer solves it")
        for budget in BUDGET_MODES:
            rules = reader.episode(spec, instance.state, instance.optimal_length, budget)
            expect(isinstance(rules, EpisodeRules), f"{instance.where}: authors_reader.episode under {budget!r} "
                   f"gave {type(rules).__name__}, not EpisodeRules")  # fmt: skip


def _check_fidelity(spec: FamilySpec, instances: Sequence[Instance], expect: Expect) -> None:
    fidelity, cells = spec.fidelity, spec.geometry.rows * spec.geometry.cols
    palette = fidelity.palette_states()
    first = instances[0]
    for what, state in (
        *((f"palette state {i}", s) for i, s in enumerate(palette)),
        *((f"{i.where}", i.state) for i in instances),
        (f"{first.where} solved", first.trajectory[-1] if first.trajectory else first.state),
    ):
        labels = fidelity.cell_labels(state)
        expect(len(labels) == cells and all(isinstance(x, str) for x in labels), f"{spec.name}: cell_labels of {what} "
               f"is not {cells} strings")  # fmt: skip
        decoded = read_cells(spec, spec.render(state))
        expect(decoded == labels, f"{spec.name}: the decoder reads {what} as {_differences(decoded, labels)}")
    for instance in instances:  # the aid's labels must leave every piece and letter readable
        labels = fidelity.cell_labels(instance.state)
        aid = oracle_aid(spec, instance.state)
        on_aid = read_cells(spec, aid, "grid")
        expect(on_aid == labels, f"{spec.name}: the decoder reads {instance.where}'s oracle aid as "
               f"{_differences(on_aid, labels)} (do its labels cover the pieces?)")  # fmt: skip
        if fidelity.text_marks is not None:
            for what, image in (("board", spec.render(instance.state)), ("oracle aid", aid)):
                unread = [r.mark.text for r in read_glyphs(spec, image, instance.state) if not r.legible]
                expect(not unread, f"{spec.name}: the letters {unread[:4]} of {instance.where}'s {what} do not read "
                       "back (text_marks must say where and how the renderer draws them; the aid must leave them "
                       "clear)")  # fmt: skip
    labels = fidelity.cell_labels(first.state)
    if fidelity.perturb is not None:
        rng = np.random.default_rng(0)
        for k in PERTURBED_CELLS:
            changed = fidelity.cell_labels(fidelity.perturb(first.state, k, rng))
            moved = sum(a != b for a, b in zip(changed, labels))
            expect(moved == k, f"{spec.name}: perturb(state, {k}) changed {moved} cell labels")


def _differences(decoded: Sequence[str], labels: Sequence[str]) -> str:
    wrong = [(i, d, t) for i, (d, t) in enumerate(zip(decoded, labels)) if d != t]
    return f"{len(wrong)} wrong cells (index, read, true): {wrong[:3]}" if wrong else f"{len(decoded)} cells"


def _check_vr(spec: FamilySpec, instances: Sequence[Instance], expect: Expect) -> None:
    vr = spec.vr
    for instance in instances:
        sketch = vr.sketch(instance.state, instance.answer)
        expect(isinstance(sketch, Sketch) and (sketch.routes or sketch.moves), f"{instance.where}: vr.sketch draws nothing")
        drawing, board = oracle_vr(spec, instance.state, instance.answer), spec.render(instance.state)
        expect(drawing.size == board.size, f"{instance.where}: the drawn solution is {drawing.size}, the board {board.size}")
        strokes = sketch.moves or any(len(route) > 1 for route in sketch.routes)  # a route of one cell draws nothing
        expect(not strokes or drawing.tobytes() != board.tobytes(), f"{instance.where}: the drawn solution is the plain board")
        if spec.fidelity is not None:
            labels = spec.fidelity.cell_labels(instance.state)
            under = read_cells(spec, drawing, "sketch")
            expect(under == labels, f"{instance.where}: the decoder reads the drawn solution as {_differences(under, labels)}")
        if vr.route_start is not None:
            start = vr.route_start(instance.state)
            inside = 0 <= start[0] < spec.geometry.rows and 0 <= start[1] < spec.geometry.cols
            expect(inside, f"{instance.where}: route_start {start} is off the board")
            reading = read_route(spec, drawing, instance.state)
            expect(
                reading.replay.feasible and reading.replay.length == instance.optimal_length,
                f"{instance.where}: the red route of the drawn solution reads back as {reading.replay}",
            )


def _check_styles(spec: FamilySpec, instances: Sequence[Instance], expect: Expect) -> None:
    state = instances[0].state
    board = spec.styles.board(BENCHMARK_STYLE)
    expect(board.geometry == spec.geometry, f"{spec.name}: styles.board(BENCHMARK_STYLE) has another geometry")
    expect(board.render(state).tobytes() == spec.render(state).tobytes(),
           f"{spec.name}: styles.board(BENCHMARK_STYLE) draws another board than render")  # fmt: skip
    if board.text_marks is not None and spec.fidelity is not None and spec.fidelity.text_marks is not None:
        expect(board.text_marks(state) == spec.fidelity.text_marks(state),
               f"{spec.name}: styles.board(BENCHMARK_STYLE) puts the letters elsewhere than text_marks")  # fmt: skip
    held_out = spec.styled(OOD_STYLE)
    image = held_out.render(state)
    expect(image.size == held_out.geometry.size, f"{spec.name}: the {OOD_STYLE.name} board is {image.size}, "
           f"its geometry {held_out.geometry.size}")  # fmt: skip
    expect(image.size != spec.geometry.size, f"{spec.name}: the {OOD_STYLE.name} board has the benchmark's size")

    def in_style(ok: object, message: str) -> None:
        expect(ok, f"{message} (drawn in the {OOD_STYLE.name} style)")

    if spec.fidelity is not None:
        _check_fidelity(held_out, instances, in_style)
    if spec.vr is not None:
        _check_vr(held_out, instances, in_style)


def _check_paper(spec: FamilySpec, instances: Sequence[Instance], expect: Expect) -> None:
    paper = spec.paper
    parts = paper.manifest.split("/")
    inside = not paper.manifest.startswith("/") and ".." not in parts and paper.manifest.endswith((".json", ".jsonl"))
    expect(inside, f"{spec.name}: paper.manifest {paper.manifest!r} must be a JSON file inside the authors' data/ folder")
    note = paper.card_note
    expect(isinstance(note, str) and (not note or note.endswith("\n")), f"{spec.name}: paper.card_note is a card line")
    for spoiled in ({}, {paper.id_key: [1]}, {paper.id_key: "x", paper.image_key: 3}):
        try:
            paper.read(spoiled, None)
        except PaperDataError:
            pass
        except Exception as error:  # noqa: BLE001 - anything but PaperDataError is the finding
            expect(False, f"{spec.name}: paper.read of the record {spoiled} raised {type(error).__name__}, not PaperDataError")
        else:
            expect(False, f"{spec.name}: paper.read accepted the record {spoiled}")
    solve = paper.solve or spec.solve
    for index, instance in enumerate(instances):
        difficulty = spec.bucket_of(instance.optimal_length)
        record, image = paper.write(instance.state, instance.answer, difficulty, index)
        expect(paper.id_key in record and (image is None) != paper.walls_in_image, f"{instance.where}: paper.write "
               f"gives no {paper.id_key!r} or {'no' if paper.walls_in_image else 'an'} image")  # fmt: skip
        read = paper.read(record, image)
        state = spec.from_json(canonical_json(read.state))
        expect(state == instance.state, f"{instance.where}: the record paper.write wrote reads back as another state")
        expect(read.difficulty == difficulty, f"{instance.where}: the record reads back as {read.difficulty}")
        replayed = spec.replay(state, spec.parse_answer(read.stored_answer))
        optimum = solve(state)
        expect(
            replayed.feasible and replayed.length == read.stored_optimum == instance.optimal_length == optimum.optimal_length,
            f"{instance.where}: the record's stored answer replays as {replayed}, stored optimum {read.stored_optimum}",
        )
        if spec.structure is not None and spec.structure.measure_record is not None:
            ours, theirs = spec.structure.measure(instance.state, instance.answer), spec.structure.measure_record(record)
            same = set(theirs) <= set(ours) and all(theirs[key] == ours[key] for key in theirs)
            expect(same, f"{instance.where}: measure_record of its record gives {theirs}, measure gives {ours}")


def _check_structure(spec: FamilySpec, instances: Sequence[Instance], expect: Expect) -> None:
    structure = spec.structure
    keys = [statistic.key for statistic in structure.statistics]
    expect(keys and len(set(keys)) == len(keys), f"{spec.name}: structure statistics need distinct keys, got {keys}")
    expect(all(statistic.label for statistic in structure.statistics), f"{spec.name}: a structure statistic has no label")
    for instance in instances:
        measures = structure.measure(instance.state, instance.answer)
        expect(set(measures) == set(keys), f"{instance.where}: structure.measure gives {sorted(measures)}, not {keys}")
        expect(all(_finite(v) for v in measures.values()), f"{instance.where}: structure.measure gives {measures}")
    for source, means in (("authors", structure.authors), ("paper", structure.paper)):
        if means is not None:
            expect(set(means) <= set(DIFFICULTIES), f"{spec.name}: structure.{source} names buckets {sorted(means)}")
            for difficulty, row in means.items():
                expect(set(row) <= set(keys) and all(_finite(v) for v in row.values()),
                       f"{spec.name}: structure.{source}[{difficulty!r}] has unknown or non-numeric statistics")  # fmt: skip


def _finite(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)


def _check_symmetry(spec: FamilySpec, instances: Sequence[Instance], expect: Expect) -> None:
    symmetry, rng = spec.symmetry, np.random.default_rng(0)
    expect("identity" in symmetry.transforms, f"{spec.name}: symmetry.transforms {symmetry.transforms} lack the identity")
    for index, instance in enumerate(instances):
        state, answer = instance.state, instance.answer
        forms = symmetry.forms(state)
        expect(forms == [symmetry.form(symmetry.apply(state, name)) for name in symmetry.transforms],
               f"{instance.where}: symmetry.forms disagrees with symmetry.form of each transform")
        played = spec.answer_steps(state, answer) == tuple(answer)
        boards = [state, *spec.trajectory(state, answer)] if played else [state] * len(answer)
        copies = [(name, symmetry.apply(state, name),
                   tuple(symmetry.map_step(step, name, board) for step, board in zip(answer, boards)))
                  for name in symmetry.transforms]
        if symmetry.relabel is not None:
            renamed, step_map = symmetry.relabel(state, rng)
            copies.append(("a relabelling", renamed, tuple(step_map(step) for step in answer)))
        for name, copy, mapped in copies:
            copy = spec.from_json(spec.to_json(copy))
            solution = spec.solve(copy)
            replay = spec.replay(copy, mapped)
            same = (solution is not None and solution.optimal_length == instance.optimal_length and replay.feasible
                    and replay.length == instance.optimal_length and min(symmetry.forms(copy)) == min(forms))
            expect(same, f"{instance.where}: under {name} the board is another puzzle (optimum "
                         f"{solution and solution.optimal_length}, remapped answer {replay}) or another key")
        if symmetry.record_forms is not None and spec.paper is not None:
            record, _ = spec.paper.write(state, answer, spec.bucket_of(instance.optimal_length), index)
            _, record_forms = symmetry.record_forms(record)
            expect(record_forms[:1] == [min(forms)],
                   f"{instance.where}: symmetry.record_forms of its authors' record does not start with its least form")


CAPABILITY_CHECKS: dict[str, Callable[[FamilySpec, Sequence[Instance], Expect], None]] = {
    "fidelity": _check_fidelity,
    "vr": _check_vr,
    "paper": _check_paper,
    "structure": _check_structure,
    "authors_reader": _check_authors_reader,
    "symmetry": _check_symmetry,
    "styles": _check_styles,
}
"""The check of each optional capability, in the order they run (``episode_steps`` is exercised wherever an episode is)."""
