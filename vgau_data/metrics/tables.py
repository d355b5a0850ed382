"""Paper-style plain-text tables (Table 1 shape) from scored results; no extra dependencies.

One row per protocol, columns family x E/M/H then overall (mean over runs, with the
population std over runs when a protocol has several), as percentages with one decimal,
the number of runs, and the coverage: rows answered / rows in the dataset (``a-b/N`` when
runs answered different numbers of rows).

Example:
    >>> cell = {"optimal_accuracy": 0.5, "feasible_accuracy": 1.0, "parse_rate": 1.0, "n": 2}
    >>> result = {"optimal_accuracy": 0.5, "optimal_accuracy_std": 0.0, "runs": 1,
    ...           "per_family_difficulty": {"maze": {"easy": cell}},
    ...           "coverage": {"answered": [2], "rows": 600, "complete": False}}
    >>> print(format_table({"direct": result}, "optimal_accuracy", families=["maze"]))
    Optimal accuracy (%)
    protocol |       maze        |   overall   | runs | answered
             |     E     M     H |             |      |
    ---------+-------------------+-------------+------+---------
    direct   |  50.0     -     - |    50.0     |    1 |    2/600
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from vgau_data.puzzles.base import DIFFICULTIES
from vgau_data.terminal import terminal_safe

METRIC_TITLES: Mapping[str, str] = {
    "optimal_accuracy": "Optimal accuracy (%)",
    "feasible_accuracy": "Feasible accuracy (%)",
    "parse_rate": "Parse rate (%)",
}
_CELL = 5
_OVERALL = 11
_SHORT = {"easy": "E", "medium": "M", "hard": "H"}


def percent(value: float | None) -> str:
    """``0.4567 -> '45.7'``; None -> ``'-'``.

    Example:
        >>> percent(1.0), percent(None)
        ('100.0', '-')
    """
    return "-" if value is None else f"{100.0 * value:.1f}"


def coverage_text(result: Mapping[str, Any]) -> str:
    """Rows answered / rows in the dataset of a ``results.json`` protocol entry (``'-'`` if not recorded).

    Example:
        >>> coverage_text({"coverage": {"answered": [598, 600], "rows": 600}})
        '598-600/600'
    """
    cover = result.get("coverage")
    if not isinstance(cover, Mapping) or not cover.get("answered"):
        return "-"
    low, high = min(cover["answered"]), max(cover["answered"])
    return f"{low if low == high else f'{low}-{high}'}/{cover['rows']}"


def _families_of(results: Mapping[str, Mapping[str, Any]]) -> list[str]:
    from vgau_data.registry import FAMILIES

    present = {f for r in results.values() for f in r.get("per_family_difficulty", {})}
    return [f for f in FAMILIES if f in present] + sorted(present - set(FAMILIES))


def format_table(
    results: Mapping[str, Mapping[str, Any]],
    metric: str = "optimal_accuracy",
    *,
    families: Sequence[str] | None = None,
    title: str | None = None,
) -> str:
    """A plain-text table of ``metric`` for ``{protocol: result}`` (``results.json`` per model).

    Args:
        results: protocol -> a ``mean_over_runs`` / ``aggregate`` result.
        metric: ``optimal_accuracy``, ``feasible_accuracy`` or ``parse_rate``.
        families: columns to show (default: those present, in registry order).
        title: first line (default: the metric's name).
    """
    if metric not in METRIC_TITLES:
        raise ValueError(f"unknown metric {metric!r}; choose from {list(METRIC_TITLES)}")
    families = list(families) if families is not None else _families_of(results)
    protocol_width = max([len("protocol"), *(len(p) for p in results)])
    group_width = 3 * (_CELL + 1) - 1
    top = [f"{'protocol':<{protocol_width}} "] + [f" {name:^{group_width}} " for name in families]
    covered = {protocol: coverage_text(result) for protocol, result in results.items()}
    cover_width = max([len("answered"), *(len(text) for text in covered.values())])
    top += [f" {'overall':^{_OVERALL}} ", " runs ", f" {'answered':>{cover_width}}"]
    letters = " " + " ".join(f"{_SHORT[d]:>{_CELL}}" for d in DIFFICULTIES) + " "
    sub = [" " * (protocol_width + 1)] + [letters for _ in families]
    sub += [" " * (_OVERALL + 2), " " * 6, ""]
    lines = [title or METRIC_TITLES[metric], "|".join(top), "|".join(sub).rstrip()]
    lines.append("+".join("-" * len(part) for part in top))
    for protocol, result in results.items():
        cells = [f"{protocol:<{protocol_width}} "]
        per_cell = result.get("per_family_difficulty", {})
        for name in families:
            values = [per_cell.get(name, {}).get(d, {}).get(metric) for d in DIFFICULTIES]
            cells.append(" " + " ".join(f"{percent(v):>{_CELL}}" for v in values) + " ")
        runs = int(result.get("runs", 1))
        overall = percent(result.get(metric))
        if runs > 1 and f"{metric}_std" in result:
            overall += f"±{percent(result[f'{metric}_std'])}"
        cells.append(f" {overall:^{_OVERALL}} ")
        cells.append(f" {runs:>4} ")
        cells.append(f" {covered[protocol]:>{cover_width}}")
        lines.append("|".join(cells))
    return "\n".join(lines)


SUBSET_LABEL = "subset: answered rows only, not comparable"


def format_report(
    model: str, results: Mapping[str, Mapping[str, Any]], warnings: Sequence[str] = (), *, subset: bool = False
) -> str:
    """The ``vgau-data score`` printout: optimal table, feasible table, warnings (safe to print:
    the model name and warnings come from submission files). ``subset``: the results were
    scored on answered rows only (``score --subset``), which the titles say."""
    scope = f" [{SUBSET_LABEL}]" if subset else ""
    parts = [
        format_table(results, "optimal_accuracy", title=f"{model}: optimal accuracy (%){scope}"),
        "",
        format_table(results, "feasible_accuracy", title=f"{model}: feasible accuracy (%){scope}"),
    ]
    if warnings:
        parts += ["", *(f"warning: {w}" for w in warnings)]
    return terminal_safe("\n".join(parts))


def difference(first: Mapping[str, Any], second: Mapping[str, Any]) -> dict[str, Any]:
    """A result-shaped dict of ``second - first`` for every accuracy (cells present in both).

    Example:
        >>> a = {"optimal_accuracy": 0.5, "per_family_difficulty": {"maze": {"easy": {"optimal_accuracy": 0.5}}}}
        >>> b = {"optimal_accuracy": 0.25, "per_family_difficulty": {"maze": {"easy": {"optimal_accuracy": 0.25}}}}
        >>> difference(a, b)["per_family_difficulty"]["maze"]["easy"]["optimal_accuracy"]
        -0.25
    """

    def minus(x: Mapping[str, Any], y: Mapping[str, Any]) -> dict[str, Any]:
        def number(value: Any) -> bool:
            return isinstance(value, (int, float))

        return {m: y[m] - x[m] for m in METRIC_TITLES if number(x.get(m)) and number(y.get(m))}

    cells: dict[str, dict[str, Any]] = {}
    for family, levels in first.get("per_family_difficulty", {}).items():
        for level, cell in levels.items():
            other = second.get("per_family_difficulty", {}).get(family, {}).get(level)
            if other is not None:
                cells.setdefault(family, {})[level] = minus(cell, other)
    return {**minus(first, second), "runs": 1, "per_family_difficulty": cells}


def format_reader_report(
    model: str,
    by_reader: Mapping[str, Mapping[str, Mapping[str, Any]]],
    warnings: Sequence[str] = (),
    *,
    subset: bool = False,
) -> str:
    """``vgau-data score --reader both``: each protocol's row under each reader, then their
    difference per cell (the second reader minus the first, in percentage points)."""
    first, second = list(by_reader)
    rows: dict[str, Mapping[str, Any]] = {}
    for protocol, result in by_reader[first].items():
        rows[f"{protocol} [{first}]"] = result
        if protocol in by_reader[second]:
            rows[f"{protocol} [{second}]"] = by_reader[second][protocol]
            rows[f"{protocol} [{second}-{first}]"] = difference(result, by_reader[second][protocol])
    parts = []
    for metric in ("optimal_accuracy", "feasible_accuracy"):
        name = METRIC_TITLES[metric].removesuffix(" (%)").lower()
        scope = f" [{SUBSET_LABEL}]" if subset else ""
        title = f"{model}: {name} (%) read by {first} and by {second}, then {second}-{first} (points){scope}"
        parts += [format_table(rows, metric, title=title), ""]
    parts.pop()
    if warnings:
        parts += ["", *(f"warning: {w}" for w in warnings)]
    return terminal_safe("\n".join(parts))
