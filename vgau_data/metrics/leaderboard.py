"""A static leaderboard Space built from ``vgau-data score`` results files.

``build_leaderboard(results_paths, out_dir)`` writes a self-contained page (``index.html``:
inline CSS and JavaScript, no network access, so it renders offline and on a static Hub
Space), the Space card (``README.md`` with ``sdk: static``) and the data it shows
(``leaderboard.json``). The page lays out the paper's Table 1 for every model and
protocol: rows are (model, protocol), columns are family x easy/medium/hard then the
family and overall accuracy, for optimal or feasible accuracy (a toggle). Every row names
the dataset source, revision and fingerprint it was scored on. Columns sort on click (the
sort is kept in the URL hash, ``#sort=<column>&dir=asc|desc&metric=optimal|feasible``),
and one bar chart per protocol compares the models by family. Each row also shows its
runs and the std over them, and how many dataset rows it answered (``coverage``): a row
whose runs left rows out is marked incomplete (the missing rows count as failed), one
scored with ``--subset`` is marked as a subset (not comparable); a details row lists what
the number was measured with (``provenance.details_lines``: harness, per-run numbers,
the submission's settings for that protocol).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from importlib import resources
from pathlib import Path
from typing import Any

import yaml

from vgau_data import __version__
from vgau_data.errors import SubmissionError
from vgau_data.metrics.results import META_KEY
from vgau_data.metrics.submission import order_protocols
from vgau_data.puzzles.base import DIFFICULTIES
from vgau_data.registry import FAMILIES

DATA_MARKER = "/*LEADERBOARD_DATA*/null"
MAX_RESULTS_BYTES = 64 << 20
LEADERBOARD_FILES: tuple[str, ...] = ("index.html", "README.md", "leaderboard.json")
METRICS: tuple[str, ...] = ("optimal", "feasible")


def _rate(cell: Mapping[str, Any] | None, metric: str) -> float | None:
    if not isinstance(cell, Mapping):
        return None
    value = cell.get(f"{metric}_accuracy")
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def leaderboard_rows(results: Mapping[str, Any], source: str) -> list[dict[str, Any]]:
    """One row per (model, protocol) of a ``results.json`` structure.

    Each row: ``model``, ``protocol``, ``runs``, ``n``, ``dataset`` (source, revision,
    fingerprint), ``source_file``, per metric ``cells``: ``"<family>/<difficulty>"``,
    ``"<family>"`` and ``"overall"`` -> accuracy (None where the results have no such cell)
    and ``std`` (over runs), then ``coverage`` (``answered`` per run, ``rows``; None when
    not recorded), ``status`` (one of ``STATUSES``) and ``details`` (``[key, value]`` lines).

    Raises:
        SubmissionError: ``results`` is not the structure ``vgau-data score`` writes.
    """
    if not isinstance(results, Mapping) or not results:
        raise SubmissionError(f"{source}: expected a results.json object {{model: {{META, protocol: ...}}}}")
    rows = []
    for model, body in results.items():
        if not isinstance(body, Mapping) or not isinstance(body.get(META_KEY), Mapping):
            raise SubmissionError(f"{source}: model {model!r:.60} has no {META_KEY} section; is this a results.json?")
        dataset = body[META_KEY].get("dataset") if isinstance(body[META_KEY].get("dataset"), Mapping) else {}
        for protocol in order_protocols(p for p in body if p != META_KEY):
            result = body[protocol]
            if not isinstance(result, Mapping):
                raise SubmissionError(f"{source}: {model!r:.60}/{protocol!r:.40} is not a result object")
            per_family = result.get("per_family") if isinstance(result.get("per_family"), Mapping) else {}
            per_cell = result.get("per_family_difficulty") if isinstance(result.get("per_family_difficulty"), Mapping) else {}
            cells: dict[str, dict[str, float | None]] = {}
            for metric in METRICS:
                values: dict[str, float | None] = {}
                for family in FAMILIES:
                    levels = per_cell.get(family) if isinstance(per_cell.get(family), Mapping) else {}
                    for level in DIFFICULTIES:
                        values[f"{family}/{level}"] = _rate(levels.get(level), metric)
                    values[family] = _rate(per_family.get(family), metric)
                values["overall"] = _rate(result, metric)
                cells[metric] = values
            rows.append({
                "model": str(model),
                "protocol": str(protocol),
                "runs": int(result.get("runs", 1)) if isinstance(result.get("runs", 1), int) else 1,
                "n": result.get("n") if isinstance(result.get("n"), int) else None,
                "dataset": {key: (str(dataset[key]) if dataset.get(key) is not None else None)
                            for key in ("source", "revision", "fingerprint")},
                "source_file": source,
                "cells": cells,
                **_scope(body[META_KEY], result, str(protocol)),
            })
    return rows


STATUSES: tuple[str, ...] = ("complete", "incomplete", "subset", "unknown")
"""A row's scope: every row answered in every run; rows left out (scored as failed); scored on
answered rows only (``score --subset``, not comparable); no coverage recorded (older results)."""


def _scope(meta: Mapping[str, Any], result: Mapping[str, Any], protocol: str) -> dict[str, Any]:
    """A row's ``std`` per metric, ``coverage`` (answered per run, rows), ``status`` and ``details`` lines."""
    from vgau_data.metrics.provenance import details_lines

    cover = result.get("coverage") if isinstance(result.get("coverage"), Mapping) else {}
    answered = cover.get("answered")
    rows = cover.get("rows")
    coverage = None
    if isinstance(answered, list) and answered and all(_count(a) for a in answered) and _count(rows):
        coverage = {"answered": [int(a) for a in answered[:1000]], "rows": int(rows)}
    if meta.get("subset") is True:
        status = "subset"
    elif coverage is None:
        status = "unknown"
    else:
        status = "complete" if min(coverage["answered"]) >= coverage["rows"] else "incomplete"
    std = {metric: _number(result.get(f"{metric}_accuracy_std")) for metric in METRICS}
    return {"std": std, "coverage": coverage, "status": status,
            "details": [list(line) for line in details_lines(meta, result, protocol)]}


def _count(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def _number(value: object) -> float | None:
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def read_results(paths: Iterable[str | Path]) -> list[dict[str, Any]]:
    """Leaderboard rows of several results files; the same (model, protocol) twice is refused."""
    rows: list[dict[str, Any]] = []
    seen: dict[tuple[str, str], str] = {}
    for path in map(Path, paths):
        if path.stat().st_size > MAX_RESULTS_BYTES:
            raise SubmissionError(f"{path}: over {MAX_RESULTS_BYTES} bytes; is this a results.json?")
        try:
            results = json.loads(path.read_bytes().decode("utf-8"))
        except (UnicodeDecodeError, ValueError) as error:
            raise SubmissionError(f"{path}: not a JSON results file ({str(error)[:120]})") from None
        for row in leaderboard_rows(results, path.name):
            key = (row["model"], row["protocol"])
            if key in seen:
                raise SubmissionError(f"{key[0]!r} / {key[1]} appears in both {seen[key]} and {path.name}")
            seen[key] = path.name
            rows.append(row)
    return rows


def page_html(rows: Sequence[Mapping[str, Any]], *, title: str = "VGAU-Diag leaderboard") -> str:
    """The self-contained page with ``rows`` embedded."""
    template = resources.files("vgau_data.metrics").joinpath("leaderboard.html").read_text(encoding="utf-8")
    data = {
        "title": title,
        "families": list(FAMILIES),
        "difficulties": list(DIFFICULTIES),
        "rows": list(rows),
        "generator": f"vgau_data {__version__}",
    }
    payload = json.dumps(data, ensure_ascii=True, sort_keys=True).replace("</", "<\\/")
    return template.replace(DATA_MARKER, payload).replace("{{title}}", title)


def space_card(title: str) -> str:
    meta = {"title": title, "emoji": "🧩", "colorFrom": "indigo", "colorTo": "green", "sdk": "static",
            "app_file": "index.html", "pinned": False, "tags": ["leaderboard", "evaluate"]}
    return (
        f"---\n{yaml.safe_dump(meta, sort_keys=False, allow_unicode=True)}---\n\n# {title}\n\n"
        "Scores of models on the [VGAU-Diag puzzles](https://huggingface.co/datasets/vgau/puzzles), laid out like "
        "Table 1 of arXiv 2608.22174 (rows: model x protocol; columns: family x difficulty). Built by "
        "`vgau-data leaderboard` from `vgau-data score` results files; `leaderboard.json` holds the numbers shown.\n"
    )


def build_leaderboard(
    results_paths: Sequence[str | Path], out_dir: str | Path, *, title: str = "VGAU-Diag leaderboard"
) -> list[Path]:
    """Write the Space folder (``LEADERBOARD_FILES``) and return the written paths."""
    rows = read_results(results_paths)
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    (out / "index.html").write_text(page_html(rows, title=title), encoding="utf-8")
    (out / "README.md").write_text(space_card(title), encoding="utf-8")
    (out / "leaderboard.json").write_text(json.dumps(rows, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    return [out / name for name in LEADERBOARD_FILES]
