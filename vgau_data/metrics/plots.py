"""Bar charts of scored results: one PNG per protocol, bars by family and difficulty.

matplotlib is the optional extra ``plot``; it is imported here only, with the Agg
backend, so nothing opens a window and servers without a display work.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from vgau_data import safe_io
from vgau_data.errors import MissingDependencyError
from vgau_data.puzzles.base import DIFFICULTIES

DIFFICULTY_COLOURS: Mapping[str, str] = {"easy": "#4daf4a", "medium": "#ff7f00", "hard": "#e41a1c"}


def pyplot() -> Any:
    """matplotlib.pyplot on the Agg backend (MissingDependencyError without the plot extra)."""
    try:
        import matplotlib
    except ImportError as error:
        raise MissingDependencyError("matplotlib missing: pip install 'vgau_data[plot]'") from error
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def safe_name(text: str) -> str:
    """A file-name-safe form of a model or protocol name.

    Example:
        >>> safe_name("Qwen/Qwen2.5-VL 7B")
        'Qwen_Qwen2.5-VL_7B'
    """
    return re.sub(r"[^A-Za-z0-9._-]+", "_", text).strip("_") or "model"


def headline(result: Mapping[str, Any]) -> str:
    """A protocol's optimal accuracy, its spread over runs and the rows it rests on, for titles.

    Example:
        >>> headline({"optimal_accuracy": 0.333, "runs": 1, "coverage": {"answered": [23], "rows": 36}})
        '33.3% optimal, 23/36 rows answered'
        >>> headline({"optimal_accuracy": 0.5, "optimal_accuracy_std": 0.1, "runs": 3,
        ...           "coverage": {"answered": [36, 36, 36], "rows": 36}})
        '50.0 ± 10.0% optimal (3 runs), 36/36 rows answered'
    """
    from vgau_data.metrics.tables import coverage_text

    runs = int(result.get("runs", 1))
    overall = 100 * float(result.get("optimal_accuracy", 0.0))
    spread = f" ± {100 * float(result.get('optimal_accuracy_std', 0.0)):.1f}" if runs > 1 else ""
    text = f"{overall:.1f}{spread}% optimal" + (f" ({runs} runs)" if runs > 1 else "")
    return f"{text}, {coverage_text(result)} rows answered"


def plot_protocol(
    model: str, protocol: str, result: Mapping[str, Any], out_path: str | Path, *, families: Sequence[str] | None = None
) -> Path:
    """One grouped bar chart: x = family, bars = easy/medium/hard optimal accuracy; feasible as outlines.

    Over several runs each bar carries its cell's spread (``optimal_accuracy_std``) as an error bar.
    """
    plt = pyplot()
    per_cell = result.get("per_family_difficulty", {})
    names = list(families) if families is not None else list(per_cell)
    width = 0.26
    runs = int(result.get("runs", 1))
    fig, ax = plt.subplots(figsize=(max(6.0, 1.3 * len(names) + 2), 3.6), dpi=100)
    for offset, difficulty in enumerate(DIFFICULTIES):
        asked = [(i + (offset - 1) * width, per_cell[n][difficulty]) for i, n in enumerate(names)
                 if difficulty in per_cell.get(n, {})]
        xs = [x for x, _ in asked]
        colour = DIFFICULTY_COLOURS[difficulty]
        ax.bar(xs, [100 * cell.get("feasible_accuracy", 0.0) for _, cell in asked], width, fill=False,
               edgecolor=colour, linestyle="--", linewidth=0.8)
        spread = [100 * cell.get("optimal_accuracy_std", 0.0) for _, cell in asked] if runs > 1 else None
        ax.bar(xs, [100 * cell.get("optimal_accuracy", 0.0) for _, cell in asked], width, color=colour,
               label=difficulty, yerr=spread, capsize=2, error_kw={"linewidth": 0.8})
        for i, name in enumerate(names):  # a difficulty never asked is "-", not a 0 bar
            if difficulty not in per_cell.get(name, {}):
                ax.text(i + (offset - 1) * width, 1, "-", ha="center", va="bottom", color=colour, fontsize=9)
    ax.set_xticks(range(len(names)), names)
    ax.set_ylim(0, 118)
    ax.set_ylabel("optimal accuracy (%)\n(dashed: feasible)" + (f"\nbars: ± std over {runs} runs" if runs > 1 else ""))
    ax.set_title(f"{model} / {protocol}: {headline(result)}", fontsize=10)
    ax.legend(loc="upper right", fontsize=8, ncols=3)
    fig.tight_layout()
    out_path = Path(out_path)
    with safe_io.atomic_writer(out_path) as handle:
        fig.savefig(handle, format=out_path.suffix.lstrip(".") or "png")
    plt.close(fig)
    return out_path


def plot_results(
    model: str, results: Mapping[str, Mapping[str, Any]], out_dir: str | Path, *, families: Sequence[str] | None = None
) -> list[Path]:
    """``plot_protocol`` for every protocol; files are ``<model>_<protocol>.png`` in ``out_dir``."""
    out_dir = Path(out_dir)
    paths = []
    for protocol, result in results.items():
        path = out_dir / f"{safe_name(model)}_{safe_name(protocol)}.png"
        paths.append(plot_protocol(model, protocol, result, path, families=families))
    return paths
