"""A whole submission -> the ``results.json`` structure.

::

    {model: {"META": {...provenance, counts, subset, warnings...},
             protocol: {optimal_accuracy, feasible_accuracy, parse_rate, n,
                        optimal_accuracy_std, feasible_accuracy_std, parse_rate_std,
                        runs, per_run, per_family, per_family_difficulty, errors, missing,
                        coverage, reader}}}

``reader`` (in ``META`` and in every protocol) names the answer reader that scored it
(``vgau_data.readers``).

Every dataset row counts in every run of every protocol: a row the submission leaves
out is a failed verdict with error ``missing``, so leaving out hard rows can never raise
a score. A protocol's numbers are ``mean_over_runs`` of its runs' aggregates (runs are
``0..k-1``; a run index that never appears for a protocol counts all its rows missing).

``coverage`` says how much of the dataset the numbers rest on, whatever the scoring:
``{"answered": [rows with a record, per run], "rows": rows in the dataset, "complete":
every run answered every row}``; a failed record (a request the harness gave up on) is a
missing row there. With ``subset=True`` (``vgau-data score --subset``) a
protocol is scored on the rows it was asked in any run only (answered or failed, as
lmms-eval counts them); ``META["subset"]`` is then
true and the numbers are not comparable with full-dataset ones (nor with each other,
when protocols answered different rows).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from vgau_data import __version__
from vgau_data.metrics.references import ReferenceSet
from vgau_data.metrics.scoring import Verdict, aggregate, mean_over_runs, score_answer
from vgau_data.metrics.submission import Submission, check_against, order_protocols
from vgau_data.readers import DEFAULT_READER, get_reader, reader_of_variant
from vgau_data.schema import Int, MapOf, Num, Obj, Shape

META_KEY = "META"
_CELL = Obj(optional={"n": Int(0, 10**9), "optimal_accuracy": Num(0, 1), "feasible_accuracy": Num(0, 1)})
RESULT_SHAPE: Shape = Obj(optional={
    "runs": Int(0, 10**6), "n": Int(0, 10**9), "optimal_accuracy": Num(0, 1), "feasible_accuracy": Num(0, 1),
    "per_family": MapOf(_CELL, max_len=64), "per_family_difficulty": MapOf(MapOf(_CELL, max_len=16), max_len=64),
})  # fmt: skip
"""What readers of a ``results.json`` use of one protocol's result (other fields are kept as they are)."""
MISSING = "missing"
"""Error code of a row the submission leaves out: the scorer adds it, as nothing was parsed (docs/contract)."""


def missing_verdict(row_id: str, task: str, difficulty: str) -> Verdict:
    return Verdict(row_id, task, difficulty, False, False, False, 0, MISSING, None)


def score_run(
    outputs: dict[str, str | None], references: ReferenceSet, reader: str = DEFAULT_READER
) -> list[Verdict]:
    """Verdicts for every dataset row, in dataset order; absent ids are ``missing``."""
    verdicts = []
    for row in references.rows:
        if row.id in outputs:
            verdicts.append(score_answer(outputs[row.id], row.reference, reader))
        else:
            verdicts.append(missing_verdict(row.id, row.task, row.difficulty))
    return verdicts


def score_submission(
    submission: Submission,
    references: ReferenceSet,
    *,
    allow_fingerprint_mismatch: bool = False,
    details: dict[str, list[list[dict[str, Any]]]] | None = None,
    expected_runs: Mapping[str, int] | None = None,
    subset: bool = False,
    reader: str = DEFAULT_READER,
) -> dict[str, Any]:
    """Check ``submission`` against ``references`` and score every protocol and run with ``reader``.

    Args:
        details: when given, filled with ``{protocol: [run -> [verdict dict per row]]}``.
        expected_runs: protocols, and their run counts, that were asked for: one with
            fewer runs in the submission (or none at all) scores the absent runs' rows
            as missing, so an unfinished run never looks complete.
        subset: score each protocol on the rows it answered only (labelled in META and
            the warnings as not comparable); by default every dataset row counts.
        reader: the answer reader (``vgau_data.readers``); a protocol whose episodes were
            played under another reader (its variant's suffix) gets a warning.

    Raises:
        SubmissionError / FingerprintMismatchError: see ``submission.check_against``.
    """
    get_reader(reader)
    warnings = check_against(submission, references, allow_fingerprint_mismatch=allow_fingerprint_mismatch)
    wanted = set(references.ids)
    outputs: dict[tuple[str, int], dict[str, str | None]] = defaultdict(dict)
    asked: dict[str, set[str]] = defaultdict(set)
    for record in submission.records:
        if record.id in wanted:
            asked[record.protocol].add(record.id)
            if not record.failed:
                outputs[(record.protocol, record.run)][record.id] = record.output
    model_result: dict[str, Any] = {}
    n_rows = len(references.rows)
    if not submission.records:
        warnings.append("the submission has no records: nothing to score")
    run_counts = {protocol: len(submission.runs(protocol)) for protocol in submission.protocols()}
    for protocol, count in (expected_runs or {}).items():
        run_counts[protocol] = max(run_counts.get(protocol, 0), count)
    for protocol in order_protocols(run_counts):
        scored = references
        if subset:
            scored = replace(references, rows=tuple(row for row in references.rows if row.id in asked[protocol]))
        runs: list[dict[str, Any]] = []
        missing_per_run: list[int] = []
        answered_per_run: list[int] = []
        for run in range(run_counts[protocol]):
            verdicts = score_run(outputs.get((protocol, run), {}), scored, reader)
            runs.append(aggregate(verdicts))
            answered_per_run.append(len(outputs.get((protocol, run), {})))
            missing_per_run.append(len(scored.rows) - answered_per_run[-1])
            if details is not None:
                details.setdefault(protocol, []).append([v.to_dict() for v in verdicts])
        result = mean_over_runs(runs)
        result["missing"] = missing_per_run
        result["coverage"] = coverage(answered_per_run, n_rows)
        result["reader"] = reader
        if reader_of_variant(protocol) != reader:
            warnings.append(
                f"{protocol}: its episodes were played under the {reader_of_variant(protocol)!r} reader; the "
                f"{reader!r} reader re-reads its answers, not where its episodes ended"
            )
        if any(missing_per_run):
            warnings.append(
                f"{protocol}: {sum(missing_per_run)} missing row(s) over {len(runs)} run(s) scored as failed "
                f"(per run: {missing_per_run})"
            )
        model_result[protocol] = result
    if subset:
        warnings.append(
            "subset: each protocol is scored on the rows it answered only; these numbers are not comparable "
            "with full-dataset scores (score without --subset for those)"
        )
    header = submission.header
    meta = {
        "model": header.model,
        "harness": header.harness,
        "dataset": {
            "source": references.source,
            "revision": references.revision,
            "fingerprint": references.fingerprint,
            "submitted_source": header.dataset_source,
            "submitted_revision": header.dataset_revision,
            "submitted_fingerprint": header.fingerprint,
        },
        "settings": dict(header.settings),
        "n_rows": n_rows,
        "subset": subset,
        "families": references.families,
        "protocols": list(model_result),
        "scorer": f"vgau_data {__version__}",
        "reader": reader,
        "warnings": warnings,
    }
    return {header.model: {META_KEY: meta, **model_result}}


def coverage(answered_per_run: Sequence[int], rows: int) -> dict[str, Any]:
    """``{"answered": per run, "rows": rows, "complete": ...}``: how much of the dataset a protocol's runs answered.

    Example:
        >>> coverage([12, 11], 600)
        {'answered': [12, 11], 'rows': 600, 'complete': False}
    """
    answered = [int(n) for n in answered_per_run]
    return {"answered": answered, "rows": int(rows), "complete": bool(answered) and min(answered) >= rows}


def protocol_results(results: dict[str, Any]) -> tuple[str, dict[str, Any], dict[str, dict[str, Any]]]:
    """Unpack a one-model ``results.json``: ``(model, meta, {protocol: result})``."""
    if len(results) != 1:
        raise ValueError(f"expected the results of one model, got {len(results)}: {sorted(results)}")
    (model, body), = results.items()
    return model, body[META_KEY], {k: v for k, v in body.items() if k != META_KEY}


def verdict_counts(verdicts: Sequence[Verdict]) -> dict[str, int]:
    """``optimal``, ``feasible``, ``parsed`` and ``n`` counts (for exact comparisons in tests)."""
    return {
        "n": len(verdicts),
        "optimal": sum(v.optimal for v in verdicts),
        "feasible": sum(v.feasible for v in verdicts),
        "parsed": sum(v.parsed for v in verdicts),
    }
