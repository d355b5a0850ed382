"""The diagnosis tables: Table 3 (and 10, 11) in two layouts, fidelity, routes, generation contexts.

Accuracy cells read as the paper prints them: the accuracy in percent, then in
parentheses the difference to the same answering model's Text-CoT on the same rows, in
points (``45.0 (+20.0)``); ``-`` marks a cell with no records.

- ``layout="sources"``: one table per answering model; a row per image source (noise,
  mismatch, each external generator, oracle, self), a column per paradigm (GtA, VCoT,
  VR) within each family.
- ``layout="models"``: the paper's own page layout: one table per family; Text-CoT, then
  per image source its paradigm rows; a column per answering model.

Fidelity tables share the layout with the image measures in place of accuracy.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Final

from vgau_data.diagnosis.collect import ALL, Accuracy, Diagnosis, Fidelity
from vgau_data.diagnosis.conditions import CONTEXTS, PARADIGM_TITLES, PARADIGMS, Condition, Source
from vgau_data.diagnosis.grid import Row, render_grid

LAYOUTS: Final[tuple[str, ...]] = ("sources", "models")
MISSING: Final = "-"


def signed(value: float) -> str:
    """A delta in points with its sign, as the paper prints it (never ``-0.0``).

    Example:
        >>> signed(0.2), signed(-0.05), signed(-0.0001)
        ('+20.0', '-5.0', '+0.0')
    """
    points = round(100.0 * value, 1)
    return f"{points + 0.0:+.1f}"


def accuracy_cell(value: Accuracy | None, reference: Accuracy | None, *, feasible: bool = False) -> str:
    """``45.0 (+20.0)``; without a reference the accuracy alone.

    Example:
        >>> accuracy_cell(Accuracy(0.45, 0.5, 20, 3), Accuracy(0.25, 0.3, 20, 1))
        '45.0 (+20.0)'
    """
    if value is None:
        return MISSING
    score = value.feasible if feasible else value.optimal
    text = f"{100.0 * score:.1f}"
    if reference is None:
        return text
    return f"{text} ({signed(score - (reference.feasible if feasible else reference.optimal))})"


@dataclass(frozen=True, slots=True)
class Measure:
    """A table's quantity: its title and how a cell reads (``None`` for the Text-CoT row:
    fidelity has no image there)."""

    title: str
    cell: Callable[[Diagnosis, Condition, str], str]
    reference_row: bool = False


def _accuracy(feasible: bool) -> Callable[[Diagnosis, Condition, str], str]:
    def cell(diagnosis: Diagnosis, condition: Condition, family: str) -> str:
        value = diagnosis.accuracy.get(condition, {}).get(family)
        reference = None if condition.is_reference else diagnosis.reference(condition.answerer, family)
        return accuracy_cell(value, reference, feasible=feasible)

    return cell


def _fidelity(read: Callable[[Fidelity], float | None], form: str) -> Callable[[Diagnosis, Condition, str], str]:
    def cell(diagnosis: Diagnosis, condition: Condition, family: str) -> str:
        summary = diagnosis.fidelity.get(condition, {}).get(family)
        value = read(summary) if summary is not None else None
        return MISSING if value is None else format(value, form)

    return cell


MEASURES: Final[Mapping[str, Measure]] = {
    "accuracy": Measure("optimal accuracy (%), (delta to Text-CoT)", _accuracy(False), reference_row=True),
    "feasible": Measure("feasible accuracy (%), (delta to Text-CoT)", _accuracy(True), reference_row=True),
    "cells": Measure("cell agreement of the images (mean fraction of cells shown right)",
                     _fidelity(lambda f: f.cell_agreement, ".2f")),
    "exact": Measure("images showing the exact state (%)", _fidelity(lambda f: None if f.exact is None else 100 * f.exact, ".1f")),
    "ssim": Measure("SSIM against the oracle image (mean)", _fidelity(lambda f: f.ssim, ".3f")),
    "lpips": Measure("LPIPS against the oracle image (mean; lower is closer)", _fidelity(lambda f: f.lpips, ".3f")),
}  # fmt: skip
"""Every quantity a diagnosis table can show, by its ``--measures`` name."""


def _family_title(family: str) -> str:
    return "all families" if family == ALL else family


def paradigms_of(conditions: Sequence[Condition]) -> list[str]:
    """The paradigms present, in table order."""
    present = {c.paradigm for c in conditions}
    return [p for p in PARADIGMS if p in present]


def _group_key(condition: Condition) -> tuple[Source, str]:
    return (condition.source, condition.context)


def _group_title(diagnosis: Diagnosis, source: Source, context: str) -> str:
    """The source's title, and its generation context when the diagnosis has several."""
    several = len({c.context for c in diagnosis.accuracy if c.context}) > 1
    return source.title + (f" [{context} context]" if several and context else "")


def sources_table(diagnosis: Diagnosis, answerer: str, measure: str, *, width: int = 160) -> str:
    """One answering model: a row per image source, columns family x paradigm (the brief's Table 3 view)."""
    spec = MEASURES[measure]
    conditions = [c for c in diagnosis.conditions() if c.answerer == answerer and not c.is_reference]
    paradigms = paradigms_of(conditions)
    families = [*diagnosis.families, ALL]
    groups = [(_family_title(f), [PARADIGM_TITLES[p] for p in paradigms]) for f in families]
    rows = []
    reference = next((c for c in diagnosis.accuracy if c.is_reference and c.answerer == answerer), None)
    if spec.reference_row and reference is not None:
        rows.append(Row("Text-CoT", [spec.cell(diagnosis, reference, f) for f in families for _ in paradigms]))
    by_group: dict[tuple[Source, str], dict[str, Condition]] = {}
    for condition in conditions:
        by_group.setdefault(_group_key(condition), {})[condition.paradigm] = condition
    for (source, context), by_paradigm in by_group.items():
        cells = [
            spec.cell(diagnosis, by_paradigm[p], f) if p in by_paradigm else MISSING
            for f in families
            for p in paradigms
        ]
        rows.append(Row(_group_title(diagnosis, source, context), cells))
    title = f"{answerer}: {spec.title}; {'/'.join(diagnosis.difficulties)} rows, mean over runs"
    return render_grid(title, rows, groups, corner="image source", width=width)


def models_table(diagnosis: Diagnosis, family: str, measure: str, *, width: int = 160) -> str:
    """One family: Text-CoT, then each image source's paradigm rows; a column per answering model (paper layout)."""
    spec = MEASURES[measure]
    answerers = diagnosis.answerers()
    rows: list[Row] = []
    if spec.reference_row:
        references = {c.answerer: c for c in diagnosis.accuracy if c.is_reference}
        if references:
            rows.append(Row("Text-CoT", [
                spec.cell(diagnosis, references[a], family) if a in references else MISSING for a in answerers
            ]))  # fmt: skip
    by_group: dict[tuple[Source, str], dict[str, dict[str, Condition]]] = {}
    for condition in diagnosis.conditions():
        if not condition.is_reference:
            by_group.setdefault(_group_key(condition), {}).setdefault(condition.paradigm, {})[condition.answerer] = (
                condition
            )
    for (source, context), by_paradigm in by_group.items():
        rows.append(Row(_group_title(diagnosis, source, context)))
        for paradigm in PARADIGMS:
            if paradigm in by_paradigm:
                by_answerer = by_paradigm[paradigm]
                label = "  " + next(iter(by_answerer.values())).row_title
                rows.append(Row(label, [
                    spec.cell(diagnosis, by_answerer[a], family) if a in by_answerer else MISSING for a in answerers
                ]))  # fmt: skip
    title = f"{_family_title(family)}: {spec.title}; {'/'.join(diagnosis.difficulties)} rows, mean over runs"
    return render_grid(title, rows, [("answering model", answerers)], corner="method", width=width)


def diagnosis_tables(
    diagnosis: Diagnosis, measures: Sequence[str], layout: str = "sources", *, width: int = 160
) -> str:
    """Every table of ``measures`` in ``layout``, blank-line separated; LPIPS without weights says so."""
    if layout not in LAYOUTS:
        raise ValueError(f"unknown layout {layout!r}; choose from {', '.join(LAYOUTS)}")
    parts: list[str] = []
    for measure in measures:
        if measure not in MEASURES:
            raise ValueError(f"unknown measure {measure!r}; choose from {', '.join(MEASURES)}")
        if measure == "lpips" and diagnosis.lpips is None:
            parts.append("LPIPS: not computed; pass --lpips-weights alexnet-owt-7be5be79.pth (see docs/unified.md)")
            continue
        if measure in ("accuracy", "feasible") or diagnosis.fidelity:
            if layout == "sources":
                parts.extend(sources_table(diagnosis, a, measure, width=width) for a in diagnosis.answerers())
            else:
                parts.extend(models_table(diagnosis, f, measure, width=width) for f in [*diagnosis.families, ALL])
        else:
            parts.append(f"{MEASURES[measure].title}: no generated or substituted images in these records")
    return "\n\n".join(parts)


def route_table(diagnosis: Diagnosis, *, width: int = 160) -> str | None:
    """Self-VR drawings read as routes (maze, sokoban, path): the share whose route replays
    to the goal, in the optimum's steps, beside the share of stated answers that are feasible.
    None when no VR drawing has a route."""
    conditions = [
        c for c in diagnosis.conditions()
        if c.paradigm == "vr" and any(summary.routes for summary in diagnosis.fidelity.get(c, {}).values())
    ]  # fmt: skip
    families = [f for f in [*diagnosis.families, ALL] if any(
        diagnosis.fidelity[c].get(f) is not None and diagnosis.fidelity[c][f].routes for c in conditions
    )]  # fmt: skip
    if not families:
        return None
    rows = []
    for condition in conditions:
        cells = []
        for family in families:
            summary = diagnosis.fidelity[condition].get(family)
            values = (
                (summary.route_feasible, summary.route_optimal, summary.answer_feasible) if summary else (None,) * 3
            )
            cells.extend(MISSING if v is None else f"{100 * v:.1f}" for v in values)
        rows.append(Row(f"{condition.answerer}: {_group_title(diagnosis, condition.source, condition.context)}", cells))
    groups = [(_family_title(f), ["route feas.", "route opt.", "answer feas."]) for f in families]
    title = (f"Self-VR drawings read as routes (%), replayed beside the stated answer; "
             f"{'/'.join(diagnosis.difficulties)} rows")  # fmt: skip
    return render_grid(title, rows, groups, corner="answerer: image source", width=width)


def context_table(diagnosis: Diagnosis, *, width: int = 160) -> str | None:
    """UReason's comparison of generation contexts (direct, reasoning-guided,
    de-contextualized): accuracy per context, in parentheses the gain over the previous
    context shown. None unless some condition was run in two contexts or more."""
    by_cell: dict[tuple[str, Source, str], dict[str, Condition]] = {}
    for condition in diagnosis.conditions():
        if not condition.is_reference:
            key = (condition.answerer, condition.source, condition.paradigm)
            by_cell.setdefault(key, {})[condition.context] = condition
    compared = {key: contexts for key, contexts in by_cell.items() if len(contexts) > 1}
    if not compared:
        return None
    contexts = [c for c in CONTEXTS if any(c in found for found in compared.values())]
    families = [*diagnosis.families, ALL]
    rows = []
    for (answerer, source, _), found in compared.items():
        cells = []
        for family in families:
            previous: Accuracy | None = None
            for context in contexts:
                value = diagnosis.accuracy.get(found[context], {}).get(family) if context in found else None
                cells.append(accuracy_cell(value, previous))
                previous = value if value is not None else previous
        label = f"{answerer}: {next(iter(found.values())).row_title}" + (
            "" if source.kind == "self" else f" ({source.title})"
        )
        rows.append(Row(label, cells))
    titles = {"direct": "direct", "reasoning": "reasoning", "decontextualized": "decontext."}
    groups = [(_family_title(f), [titles[c] for c in contexts]) for f in families]
    title = ("Generation context (UReason): optimal accuracy (%), (gain over the previous context); "
             f"{'/'.join(diagnosis.difficulties)} rows")  # fmt: skip
    return render_grid(title, rows, groups, corner="answerer: protocol", width=width)
