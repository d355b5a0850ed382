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

Everything on the page comes from strangers' results files, so it is shown as text and
never interpreted: ``fill_page`` is the one way a value reaches the HTML (text through
``html.escape``, data as JSON with ``<``, ``>``, ``&`` and U+2028/2029 escaped, so nothing
in it can close the data block or open a comment), numbers that are not finite rates
become ``null``, the script builds the table with ``textContent`` only, and the page's
Content-Security-Policy lets no script run but its own (by hash).
"""

from __future__ import annotations

import base64
import hashlib
import html
import math
import re
from collections.abc import Iterable, Mapping, Sequence
from importlib import resources
from pathlib import Path
from typing import Any

import yaml

from vgau_data import __version__, safe_io, safe_json
from vgau_data.errors import SubmissionError
from vgau_data.metrics.results import META_KEY
from vgau_data.metrics.submission import order_protocols
from vgau_data.puzzles.base import DIFFICULTIES
from vgau_data.registry import FAMILIES

DATA_MARKER = "/*LEADERBOARD_DATA*/null"
CSP_MARKER = "{{script_hash}}"
MAX_RESULTS_BYTES = 64 << 20
MAX_RUNS_SHOWN = 10**6
"""Largest ``runs`` or ``n`` shown; a larger (or non-integer) count is shown as unknown."""
MAX_TITLE_CHARS = 200
_SCRIPT_JSON_ESCAPES = {"<": "\\u003c", ">": "\\u003e", "&": "\\u0026", "\u2028": "\\u2028", "\u2029": "\\u2029"}
_INLINE_SCRIPT = re.compile(r"<script>(.*?)</script>", re.DOTALL)
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]+")
LEADERBOARD_FILES: tuple[str, ...] = ("index.html", "README.md", "leaderboard.json")
METRICS: tuple[str, ...] = ("optimal", "feasible")


def _rate(cell: Mapping[str, Any] | None, metric: str, suffix: str = "") -> float | None:
    """The cell's accuracy (``suffix="_std"``: its spread over runs) when it is a finite number in [0, 1]
    (anything else is shown as unknown)."""
    if not isinstance(cell, Mapping):
        return None
    value = cell.get(f"{metric}_accuracy{suffix}")
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    if isinstance(value, int) and not 0 <= value <= 1:  # also keeps a 400-digit integer out of float()
        return None
    rate = float(value)
    return rate if math.isfinite(rate) and 0.0 <= rate <= 1.0 else None


def _shown_count(value: Any, default: int | None) -> int | None:
    """A non-negative integer count up to ``MAX_RUNS_SHOWN``, else ``default``."""
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= MAX_RUNS_SHOWN:
        return default
    return value


def leaderboard_rows(results: Mapping[str, Any], source: str) -> list[dict[str, Any]]:
    """One row per (model, protocol) of a ``results.json`` structure.

    Each row: ``model``, ``protocol``, ``runs``, ``n``, ``dataset`` (source, revision,
    fingerprint), ``source_file``, per metric ``cells``: ``"<family>/<difficulty>"``,
    ``"<family>"`` and ``"overall"`` -> accuracy (None where the results have no such cell),
    ``spread`` (the same keys -> std over runs, None where not recorded) and ``std`` (the
    overall one), then ``coverage`` (``answered`` per run, ``rows``; None when
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
            spread: dict[str, dict[str, float | None]] = {}
            for metric in METRICS:
                for table, suffix in ((cells, ""), (spread, "_std")):
                    values: dict[str, float | None] = {}
                    for family in FAMILIES:
                        levels = per_cell.get(family) if isinstance(per_cell.get(family), Mapping) else {}
                        for level in DIFFICULTIES:
                            values[f"{family}/{level}"] = _rate(levels.get(level), metric, suffix)
                        values[family] = _rate(per_family.get(family), metric, suffix)
                    values["overall"] = _rate(result, metric, suffix)
                    table[metric] = values
            rows.append({
                "model": str(model),
                "protocol": str(protocol),
                "runs": _shown_count(result.get("runs", 1), None),
                "n": _shown_count(result.get("n"), None),
                "dataset": {key: (str(dataset[key]) if dataset.get(key) is not None else None)
                            for key in ("source", "revision", "fingerprint")},
                "source_file": source,
                "cells": cells,
                "spread": spread,
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
    return _shown_count(value, None) is not None


def _number(value: object) -> float | None:
    """A finite number as a float, else None (a 400-digit integer, NaN and Infinity included)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or (isinstance(value, int) and abs(value) > 1 << 64):
        return None
    return float(value) if math.isfinite(value) else None


def read_results(paths: Iterable[str | Path]) -> list[dict[str, Any]]:
    """Leaderboard rows of several results files; the same (model, protocol) twice is refused."""
    rows: list[dict[str, Any]] = []
    seen: dict[tuple[str, str], str] = {}
    for path in map(Path, paths):
        data = safe_io.read_bytes(path, limit=MAX_RESULTS_BYTES, what="results file")
        try:
            results = safe_json.loads(data, str(path), nan_as_null=True)
        except safe_json.JsonInputError as error:
            raise SubmissionError(f"{error}; is this a results.json?") from None
        for row in leaderboard_rows(results, path.name):
            key = (row["model"], row["protocol"])
            if key in seen:
                raise SubmissionError(f"{key[0]!r} / {key[1]} appears in both {seen[key]} and {path.name}")
            seen[key] = path.name
            rows.append(row)
    return rows


def script_json(data: Any) -> str:
    """``data`` as JSON that is inert inside an HTML ``<script>`` block.

    No ``<``, ``>`` or ``&`` survives (so neither ``</script>`` nor ``<!--`` can appear),
    U+2028/2029 are escaped, and non-finite numbers are ``null``: ``JSON.parse`` of the
    block's text gives back exactly the strings given.

    Example:
        >>> script_json({"model": "</script><!--x"})
        '{"model": "\\\\u003c/script\\\\u003e\\\\u003c!--x"}'
    """
    text = safe_json.dumps(data, ensure_ascii=True, sort_keys=True)
    return re.sub("[<>&\u2028\u2029]", lambda match: _SCRIPT_JSON_ESCAPES[match.group()], text)


def plain_title(title: str) -> str:
    """The title on one line (control characters and line breaks as spaces), at most ``MAX_TITLE_CHARS``."""
    return _CONTROL.sub(" ", str(title)).strip()[:MAX_TITLE_CHARS] or "leaderboard"


def fill_page(template: str, *, texts: Mapping[str, str], data: Any) -> str:
    """The one path from values to HTML, in a single pass over ``template``: each ``{{name}}``
    of ``texts`` HTML-escaped, ``DATA_MARKER`` as ``script_json(data)``, and ``CSP_MARKER`` as the
    sha256 of the template's own inline scripts (the only ones the page's policy lets run)."""
    hashes = " ".join(
        "'sha256-" + base64.b64encode(hashlib.sha256(code.encode("utf-8")).digest()).decode("ascii") + "'"
        for code in _INLINE_SCRIPT.findall(template)
    )
    values = {DATA_MARKER: script_json(data), CSP_MARKER: hashes}
    values.update({"{{" + name + "}}": html.escape(value, quote=True) for name, value in texts.items()})
    markers = re.compile("|".join(re.escape(marker) for marker in values))
    return markers.sub(lambda match: values[match.group()], template)


def page_html(rows: Sequence[Mapping[str, Any]], *, title: str = "VGAU-Diag leaderboard") -> str:
    """The self-contained page with ``rows`` embedded."""
    template = resources.files("vgau_data.metrics").joinpath("leaderboard.html").read_text(encoding="utf-8")
    title = plain_title(title)
    data = {
        "title": title,
        "families": list(FAMILIES),
        "difficulties": list(DIFFICULTIES),
        "rows": list(rows),
        "generator": f"vgau_data {__version__}",
    }
    return fill_page(template, texts={"title": title}, data=data)


def space_card(title: str) -> str:
    """The Space's README: its YAML header and a short description (the title escaped for Markdown's HTML)."""
    title = plain_title(title)
    meta = {"title": title, "emoji": "🧩", "colorFrom": "indigo", "colorTo": "green", "sdk": "static",
            "app_file": "index.html", "pinned": False, "tags": ["leaderboard", "evaluate"]}
    return (
        f"---\n{yaml.safe_dump(meta, sort_keys=False, allow_unicode=True)}---\n\n# {html.escape(title)}\n\n"
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
    safe_io.write_text(out / "index.html", page_html(rows, title=title))
    safe_io.write_text(out / "README.md", space_card(title))
    safe_io.write_text(out / "leaderboard.json", safe_json.dumps(rows, indent=1, sort_keys=True) + "\n")
    return [out / name for name in LEADERBOARD_FILES]
