"""Figure 3 of the paper: accuracy against the fidelity of the images it was reached with.

One panel per paradigm (Self-GtA, Self-VCoT-fixed, Self-VR, as the paper's caption; plain
Self-VCoT where no fixed-budget runs exist), one row of panels per fidelity measure: mean
LPIPS against the oracle image (the paper's axis; lower is closer) and mean cell
agreement (ours; higher is closer). A point is one image source for one answering model;
each model's points are joined in order of fidelity, and its Text-CoT accuracy is the
dashed line of its colour. matplotlib (the ``plot`` extra) is imported through ``metrics.plots.pyplot`` only.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Final

from vgau_data import safe_io
from vgau_data.diagnosis.collect import ALL, Diagnosis
from vgau_data.diagnosis.conditions import PARADIGM_TITLES, Condition
from vgau_data.metrics.plots import pyplot, safe_name

AXES: Final = {
    "lpips": ("mean LPIPS against the oracle image (lower is closer)", lambda f: f.lpips),
    "cells": ("mean cell agreement (higher is closer)", lambda f: f.cell_agreement),
}
MARKERS: Final = {"noise": "x", "mismatch": "v", "perturbed": "D", "external": "s", "oracle": "*", "self": "o"}
COLOURS: Final = ("#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf")


def figure_paradigms(diagnosis: Diagnosis) -> list[str]:
    """The paradigms plotted: GtA, the fixed-budget VCoT (else VCoT), VR; those present only."""
    present = {c.paradigm for c in diagnosis.fidelity if not c.is_reference}
    vcot = "vcot_fixed" if "vcot_fixed" in present else "vcot"
    return [p for p in ("gta", vcot, "vr") if p in present]


def _points(
    diagnosis: Diagnosis, paradigm: str, family: str, axis: str
) -> dict[str, list[tuple[float, float, Condition]]]:
    """Per answering model: ``(fidelity, accuracy %, condition)`` of each measured source."""
    read = AXES[axis][1]
    points: dict[str, list[tuple[float, float, Condition]]] = {}
    for condition, by_family in diagnosis.fidelity.items():
        if condition.paradigm != paradigm:
            continue
        fidelity, accuracy = by_family.get(family), diagnosis.accuracy.get(condition, {}).get(family)
        x = read(fidelity) if fidelity is not None else None
        if x is not None and accuracy is not None:
            points.setdefault(condition.answerer, []).append((float(x), 100.0 * accuracy.optimal, condition))
    return {answerer: sorted(found, key=lambda p: p[0]) for answerer, found in points.items()}


def plot_figure3(diagnosis: Diagnosis, out_path: str | Path, *, family: str = ALL) -> Path | None:
    """Draw Figure 3 for ``family`` (default: all families pooled) into ``out_path``.

    Returns None (and writes nothing) when no condition has measured images.
    """
    paradigms = figure_paradigms(diagnosis)
    if not paradigms:
        return None
    axes_shown = ["lpips", "cells"] if diagnosis.lpips is not None else ["cells"]
    plt = pyplot()
    answerers = diagnosis.answerers()
    colour = {a: COLOURS[i % len(COLOURS)] for i, a in enumerate(answerers)}
    fig, grid = plt.subplots(len(axes_shown), len(paradigms), figsize=(4.2 * len(paradigms), 3.6 * len(axes_shown)),
                             dpi=100, squeeze=False)  # fmt: skip
    for row, axis in enumerate(axes_shown):
        for col, paradigm in enumerate(paradigms):
            ax = grid[row][col]
            _panel(ax, diagnosis, paradigm, family, axis, colour)
            ax.set_title(f"Self-{PARADIGM_TITLES[paradigm]}", fontsize=10)
            ax.set_xlabel(AXES[axis][0], fontsize=8)
            ax.set_ylabel("optimal accuracy (%)" if col == 0 else "", fontsize=8)
    handles = [plt.Line2D([], [], color=colour[a], label=a) for a in answerers]
    kinds = sorted({c.source.kind for c in diagnosis.fidelity if not c.is_reference}, key=list(MARKERS).index)
    handles += [plt.Line2D([], [], color="grey", marker=MARKERS[k], linestyle="", label=f"image: {k}") for k in kinds]
    handles.append(plt.Line2D([], [], color="grey", linestyle="--", label="Text-CoT"))
    fig.legend(handles=handles, loc="lower center", ncols=min(len(handles), 6), fontsize=8, frameon=False)
    where = "all families" if family == ALL else family
    note = "" if diagnosis.lpips is not None else " (LPIPS: pass --lpips-weights)"
    fig.suptitle(f"Accuracy against generation fidelity: {where}, {'/'.join(diagnosis.difficulties)} rows, "
                 f"{_coverage(diagnosis, paradigms, family)}{note}", fontsize=11)  # fmt: skip
    fig.tight_layout(rect=(0, 0.08, 1, 0.95))
    out_path = Path(out_path)
    with safe_io.atomic_writer(out_path) as handle:
        fig.savefig(handle, format=out_path.suffix.lstrip(".") or "png")
    plt.close(fig)
    return out_path


def _coverage(diagnosis: Diagnosis, paradigms: list[str], family: str) -> str:
    """What a point rests on: its rows and runs (ranges where points differ), e.g. ``"23-36 rows a point, 3 runs"``."""
    cells = [by_family[family] for condition, by_family in diagnosis.accuracy.items()
             if condition.paradigm in paradigms and family in by_family]  # fmt: skip

    def span(values: set[int]) -> str:
        return f"{min(values)}-{max(values)}" if len(values) > 1 else f"{min(values)}"

    if not cells:
        return "no rows scored"
    runs = {cell.runs for cell in cells}
    return f"{span({cell.n for cell in cells})} rows a point, {span(runs)} run{'s' if max(runs) > 1 else ''}"


def _panel(ax: Any, diagnosis: Diagnosis, paradigm: str, family: str, axis: str, colour: dict[str, str]) -> None:
    for answerer, points in _points(diagnosis, paradigm, family, axis).items():
        ax.plot([p[0] for p in points], [p[1] for p in points], color=colour[answerer], linewidth=1, alpha=0.6)
        for x, y, condition in points:
            ax.scatter([x], [y], color=colour[answerer], marker=MARKERS[condition.source.kind], s=36, zorder=3)
            label = {"external": condition.source.name, "perturbed": f"{condition.source.name} cells"}
            if condition.source.kind in label:
                ax.annotate(label[condition.source.kind], (x, y), fontsize=6, xytext=(3, 3), textcoords="offset points")
    for answerer in diagnosis.answerers():
        reference = diagnosis.reference(answerer, family)
        if reference is not None:
            ax.axhline(100.0 * reference.optimal, color=colour[answerer], linestyle="--", linewidth=0.8)
    ax.set_ylim(-3, 103)
    ax.grid(alpha=0.3)


def plot_figures(diagnosis: Diagnosis, out_dir: str | Path) -> list[Path]:
    """Figure 3 over all families, then one per family: ``figure3_<family>.png`` in ``out_dir``."""
    written = []
    for family in [ALL, *diagnosis.families]:
        path = plot_figure3(diagnosis, Path(out_dir) / f"figure3_{safe_name(family)}.png", family=family)
        if path is not None:
            written.append(path)
    return written
