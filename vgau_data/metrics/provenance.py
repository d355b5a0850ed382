"""What a number was measured with, as short ``(key, value)`` lines: the leaderboard's details row.

The lines come from a ``results.json`` protocol entry and its ``META`` (harness, scorer,
runs, coverage) and from the submission header's ``settings``, flattened to dotted keys.
Harness tasks (``settings["tasks"]``, one per family for lmms-eval) are kept to the
protocol's own, and a value every one of them shares is shown once
(``tasks.generation_kwargs.until``); values that differ are shown per task. Everything is
text from a stranger's file: it is cut to ``MAX_LINES`` lines of ``MAX_VALUE`` characters,
and the page shows it as text only.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

MAX_LINES = 80
MAX_VALUE = 300
MAX_DEPTH = 6


def flatten(value: Any, prefix: str = "", depth: int = 0) -> list[tuple[str, str]]:
    """``{"a": {"b": 1}, "c": [1, 2]}`` -> ``[("a.b", "1"), ("c", "[1, 2]")]`` (lists as JSON, strings as is).

    Example:
        >>> flatten({"gen": {"temperature": 0.0, "until": []}, "backend": "hf"})
        [('gen.temperature', '0.0'), ('gen.until', '[]'), ('backend', 'hf')]
    """
    if isinstance(value, Mapping) and value and depth < MAX_DEPTH:
        lines: list[tuple[str, str]] = []
        for key, item in value.items():
            lines += flatten(item, f"{prefix}.{key}" if prefix else str(key), depth + 1)
        return lines
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)
    return [(prefix or "value", text[:MAX_VALUE])]


def settings_lines(settings: Mapping[str, Any], protocol: str) -> list[tuple[str, str]]:
    """The header settings that concern ``protocol`` (see the module docstring)."""
    lines: list[tuple[str, str]] = []
    for key, value in settings.items():
        if key != "tasks" or not isinstance(value, Mapping):
            lines += flatten(value, str(key))
            continue
        ours = {name: task for name, task in value.items() if isinstance(task, Mapping) and task.get("protocol") == protocol}
        per_task = {name: dict(flatten({k: v for k, v in task.items() if k != "protocol"})) for name, task in ours.items()}
        keys = list(dict.fromkeys(k for flat in per_task.values() for k in flat))
        for flat_key in keys:
            values = {name: flat.get(flat_key) for name, flat in per_task.items()}
            if len(set(values.values())) == 1:
                lines.append((f"tasks.{flat_key}", f"{next(iter(values.values()))} ({len(values)} tasks)"))
            else:
                lines += [(f"tasks.{name}.{flat_key}", str(text)) for name, text in values.items() if text is not None]
    return lines


def details_lines(meta: Mapping[str, Any], result: Mapping[str, Any], protocol: str) -> list[tuple[str, str]]:
    """The details row of one (model, protocol): scoring facts first, then the settings, at most ``MAX_LINES``."""
    lines: list[tuple[str, str]] = [("harness", str(meta.get("harness"))), ("scored by", str(meta.get("scorer")))]
    if meta.get("subset"):
        lines.append(("scope", "subset: only the rows each protocol answered count (not comparable)"))
    coverage = result.get("coverage")
    if isinstance(coverage, Mapping):
        lines.append(("rows answered per run", f"{coverage.get('answered')} of {coverage.get('rows')}"))
    per_run = result.get("per_run")
    if isinstance(per_run, list):
        rates = [
            f"{_percent(run.get('optimal_accuracy'))}/{_percent(run.get('feasible_accuracy'))}"
            for run in per_run[:MAX_LINES] if isinstance(run, Mapping)
        ]
        lines.append(("optimal/feasible % per run", ", ".join(rates)))
    settings = meta.get("settings")
    if isinstance(settings, Mapping):
        lines += settings_lines(settings, protocol)
    return [(key[:MAX_VALUE], value[:MAX_VALUE]) for key, value in lines[:MAX_LINES]]


def _percent(value: Any) -> str:
    return f"{100 * value:.1f}" if isinstance(value, (int, float)) and not isinstance(value, bool) else "?"
