"""Records of one model -> a leaderboard submission, ``results.json`` and the printed table.

The submission holds one line per (instance, protocol variant, run) whose final record
has an output. Episodes that ended in a backend error are left out of the submission
and out of the printed scores (each protocol is scored over the instances it has
outputs for); they are counted and reported so that a rerun retries them.
"""

from __future__ import annotations

import json
import logging
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from vgau_data import __version__
from vgau_data.metrics.references import DatasetRow, ReferenceSet
from vgau_data.metrics.results import score_submission
from vgau_data.metrics.scoring import read_reference
from vgau_data.metrics.submission import (
    Submission,
    SubmissionHeader,
    SubmissionRecord,
    order_protocols,
    write_submission,
)
from vgau_data.metrics.tables import format_report
from vgau_data.runners.records import RecordsError, final_records, parse_records_name, read_records

logger = logging.getLogger(__name__)

SUBMISSION_NAME = "submission.jsonl"
RESULTS_NAME = "results.json"
HARNESS = f"vgau_data.runners {__version__}"


@dataclass(slots=True)
class ModelRecords:
    """The final record per key of every (variant, run), plus the first header seen."""

    model_dir: Path
    header: dict[str, Any]
    by_variant_run: dict[tuple[str, int], dict[str, dict[str, Any]]] = field(default_factory=dict)

    @property
    def records(self) -> list[dict[str, Any]]:
        return [record for group in self.by_variant_run.values() for record in group.values()]

    @property
    def errors(self) -> list[dict[str, Any]]:
        return [record for record in self.records if record.get("error") is not None]


def collect_records(model_dir: Path) -> ModelRecords:
    """Read every records file of a model folder (merged and shard files alike)."""
    root = model_dir / "records"
    grouped: dict[tuple[str, int], list[dict[str, Any]]] = defaultdict(list)
    header: dict[str, Any] | None = None
    for path in sorted(root.glob("*/run-*.jsonl")):
        name = parse_records_name(path)
        if name is None:
            continue
        file_header, episodes = read_records(path)
        if header is None:
            header = file_header
        elif file_header is not None and file_header.get("dataset_fingerprint") != header.get("dataset_fingerprint"):
            raise RecordsError(f"{path} was run on another dataset build than the other records in {model_dir}")
        grouped[(path.parent.name, name.run)].extend(episodes)
    if header is None:
        raise RecordsError(f"no records under {root}; run `vgau-data run` first")
    collected = ModelRecords(model_dir, header)
    for group, episodes in grouped.items():
        collected.by_variant_run[group] = final_records(episodes)
    return collected


def build_submission(collected: ModelRecords) -> Submission:
    """The submission of a model's records (errored episodes left out)."""
    header = collected.header
    dataset = header.get("dataset") or {}
    settings = {
        "backend": header.get("backend"),
        "gen": header.get("gen"),
        "protocols": sorted({variant for variant, _ in collected.by_variant_run}),
    }
    submission_header = SubmissionHeader(
        model=str(header.get("model") or collected.model_dir.name),
        harness=HARNESS,
        dataset_source=str(dataset.get("source") or "unknown"),
        fingerprint=str(header.get("dataset_fingerprint")),
        dataset_revision=dataset.get("revision"),
        settings=settings,
    )
    lines = []
    order = {variant: index for index, variant in enumerate(order_protocols(v for v, _ in collected.by_variant_run))}
    for (variant, run), group in sorted(
        collected.by_variant_run.items(), key=lambda item: (order[item[0][0]], item[0][1])
    ):
        for record in sorted(group.values(), key=lambda r: r["id"]):
            if record.get("error") is None:
                meta = {"end": record.get("end"), "steps": record.get("steps")}
                lines.append(SubmissionRecord(record["id"], variant, run, record.get("output"), meta))
    return Submission(submission_header, tuple(lines))


def score_records(collected: ModelRecords) -> tuple[dict[str, Any], list[str]]:
    """``results.json`` of a model's records and the warnings to show.

    Each variant is scored over the instances that have an output in every one of its
    runs; instances with a backend error are excluded and named in a warning.
    """
    submission = build_submission(collected)
    header = submission.header
    references_by_id: dict[str, DatasetRow] = {}
    for record in collected.records:
        if record["id"] not in references_by_id:
            reference = read_reference(record["reference"])
            references_by_id[record["id"]] = DatasetRow(
                reference.id, reference.task, reference.difficulty, reference.optimal_length, reference.state, ""
            )
    warnings: list[str] = []
    model_result: dict[str, Any] = {}
    meta: dict[str, Any] | None = None
    for variant in order_protocols(v for v, _ in collected.by_variant_run):
        groups = {run: group for (v, run), group in collected.by_variant_run.items() if v == variant}
        errored = {r["id"] for group in groups.values() for r in group.values() if r.get("error") is not None}
        ids = {r["id"] for group in groups.values() for r in group.values()} - errored
        if errored:
            warnings.append(
                f"{variant}: {len(errored)} instance(s) had backend errors and are not scored; rerun the same "
                f"command to retry them (e.g. {min(errored)})"
            )
        if not ids:
            continue
        references = ReferenceSet(
            header.dataset_source,
            header.fingerprint,
            tuple(references_by_id[i] for i in sorted(ids)),
            header.dataset_revision,
        )
        records = tuple(r for r in submission.records if r.protocol == variant and r.id in ids)
        scored = score_submission(Submission(header, records), references)
        (body,) = scored.values()
        meta = meta or body["META"]
        warnings.extend(body["META"]["warnings"])
        model_result[variant] = body[variant]
        model_result[variant]["n_error"] = len(errored)
    if meta is None:
        raise RecordsError(f"no finished episodes under {collected.model_dir}; every episode ended in a backend error")
    meta = {**meta, "protocols": list(model_result), "warnings": warnings, "n_rows": len(references_by_id)}
    return {header.model: {"META": meta, **model_result}}, warnings


@dataclass(frozen=True, slots=True)
class Report:
    """What ``write_report`` produced."""

    submission_path: Path
    results_path: Path
    text: str
    n_errors: int
    results: dict[str, Any]


def write_report(model_dir: Path) -> Report:
    """Write ``submission.jsonl`` and ``results.json`` for a model folder; return the table text."""
    collected = collect_records(model_dir)
    submission = build_submission(collected)
    submission_path = write_submission(model_dir / SUBMISSION_NAME, submission)
    results, warnings = score_records(collected)
    results_path = model_dir / RESULTS_NAME
    results_path.write_text(json.dumps(results, indent=2, sort_keys=False) + "\n", encoding="utf-8")
    ((model, body),) = results.items()
    protocols = {k: v for k, v in body.items() if k != "META"}
    return Report(
        submission_path, results_path, format_report(model, protocols, warnings), len(collected.errors), results
    )


def model_dirs(out_dir: Path) -> list[Path]:
    """Model folders under a run's ``--out`` folder."""
    return sorted(p for p in Path(out_dir).iterdir() if (p / "records").is_dir()) if Path(out_dir).is_dir() else []
