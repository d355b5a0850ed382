"""Records of one model -> a leaderboard submission, ``results.json`` and the printed table.

The submission holds one line per (instance, protocol variant, run) whose final record
has an output. ``write_report`` scores it against the whole dataset, exactly as
``vgau-data score submission.jsonl --dataset ...`` does: every dataset row counts in every
requested run, rows a ``--limit`` or ``--families`` run never asked for included (the
tables' ``answered`` column says how many rows were answered), so the printed numbers,
``results.json`` and the leaderboard agree. An episode that ended in a backend error, or
never ran (a killed run, a shard or protocol that never started), is a missing row
scored as failed, and the report says which protocols are incomplete and why.
``score_records`` without a dataset scores over the instances asked for instead (the
diagnosis compares protocols on one selection). Every variant's result
also counts how its episodes ended (``episode_ends``: goal, illegal, cap, ...), and
episodes stopped by the ``fixed`` budget's cap are named in a warning. Each variant is
scored by the reader its episodes were played under (``vgau_data.readers``: the
``_authors`` suffix); ``results.json`` names it per protocol and in ``META``.
"""

from __future__ import annotations

import logging
from collections import Counter, defaultdict
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from vgau_data import __version__, safe_io, safe_json
from vgau_data.errors import VgauError
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
from vgau_data.readers import reader_of_variant
from vgau_data.runners.records import (
    Expected,
    RecordsError,
    expected_work,
    final_records,
    parse_records_name,
    read_records,
    read_requests,
)

logger = logging.getLogger(__name__)

SUBMISSION_NAME = "submission.jsonl"
RESULTS_NAME = "results.json"
HARNESS = f"vgau_data.runners {__version__}"


@dataclass(slots=True)
class ModelRecords:
    """The final record per key of every (variant, run), the first header seen, and what was asked for."""

    model_dir: Path
    header: dict[str, Any]
    by_variant_run: dict[tuple[str, int], dict[str, dict[str, Any]]] = field(default_factory=dict)
    expected: dict[str, Expected] = field(default_factory=dict)
    """Per variant, from ``requested.jsonl`` (empty for records older than it)."""

    @property
    def records(self) -> list[dict[str, Any]]:
        return [record for group in self.by_variant_run.values() for record in group.values()]

    @property
    def errors(self) -> list[dict[str, Any]]:
        return [record for record in self.records if record.get("error") is not None]

    def variants(self) -> list[str]:
        """Every variant with records or requested, in table order."""
        return order_protocols({v for v, _ in self.by_variant_run} | set(self.expected))


def collect_records(model_dir: Path) -> ModelRecords:
    """Read every records file of a model folder (merged and shard files alike) and its requests."""
    root = model_dir / "records"
    grouped: dict[tuple[str, int], list[dict[str, Any]]] = defaultdict(list)
    header: dict[str, Any] | None = None
    for path in sorted(root.glob("*/run-*.jsonl")):
        name = parse_records_name(path)
        if name is None:
            continue
        file_header, episodes = read_records(path, inside=model_dir, drop=("turns",))
        if header is None:
            header = file_header
        elif file_header is not None and file_header.get("dataset_fingerprint") != header.get("dataset_fingerprint"):
            raise RecordsError(f"{path} was run on another dataset build than the other records in {model_dir}")
        grouped[(path.parent.name, name.run)].extend(episodes)
    if header is None:
        raise RecordsError(f"no records under {root}; run `vgau-data run` first")
    collected = ModelRecords(model_dir, header, expected=expected_work(read_requests(model_dir)))
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
        "protocols": collected.variants(),
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
    order = {variant: index for index, variant in enumerate(collected.variants())}
    for (variant, run), group in sorted(
        collected.by_variant_run.items(), key=lambda item: (order[item[0][0]], item[0][1])
    ):
        for record in sorted(group.values(), key=lambda r: r["id"]):
            if record.get("error") is None:
                meta = {"end": record.get("end"), "steps": record.get("steps")}
                lines.append(SubmissionRecord(record["id"], variant, run, record.get("output"), meta))
    return Submission(submission_header, tuple(lines))


def _unplayed_row(row_id: str, task: str, difficulty: str) -> DatasetRow:
    """A row no record reached (known from the requests log): it only ever scores as missing, never replayed."""
    return DatasetRow(row_id, task, difficulty, 0, "", "")


def score_records(
    collected: ModelRecords, references: ReferenceSet | None = None
) -> tuple[dict[str, Any], list[str], list[str]]:
    """``results.json`` of a model's records, the warnings to show, and why it is incomplete.

    Each variant is scored in every run asked for over every row of ``references`` (the
    dataset, as ``vgau-data score`` scores the submission), or, without ``references``,
    over every instance it was asked for (or has records of): absent rows score as
    failed either way. The third item names each variant whose requested work is
    unfinished (empty when all is done).

    Raises:
        FingerprintMismatchError: ``references`` is another build than the records'.
    """
    submission = build_submission(collected)
    header = submission.header
    rows: dict[str, DatasetRow] = {}
    for record in collected.records if references is None else ():
        if record["id"] not in rows:
            reference = read_reference(record["reference"])
            rows[record["id"]] = DatasetRow(
                reference.id, reference.task, reference.difficulty, reference.optimal_length, reference.state, ""
            )
    warnings: list[str] = []
    incomplete: list[str] = []
    if not collected.expected:
        warnings.append(
            f"{collected.model_dir} has no requested.jsonl (records from an older vgau_data): rows that never ran "
            "cannot be counted as missing"
        )
    model_result: dict[str, Any] = {}
    meta: dict[str, Any] | None = None
    all_ids: set[str] = set()
    for variant in collected.variants():
        groups = {run: group for (v, run), group in collected.by_variant_run.items() if v == variant}
        expected = collected.expected.get(variant, Expected({}, 0))
        ids = set(expected.rows) | {r["id"] for group in groups.values() for r in group.values()}
        all_ids |= ids
        runs = max([expected.runs, *(run + 1 for run in groups)])
        errored = {r["id"] for group in groups.values() for r in group.values() if r.get("error") is not None}
        scope = references or ReferenceSet(
            header.dataset_source,
            header.fingerprint,
            tuple(rows.get(i) or _unplayed_row(i, *expected.rows[i]) for i in sorted(ids)),
            header.dataset_revision,
        )
        records = tuple(r for r in submission.records if r.protocol == variant)
        scored = score_submission(
            Submission(header, records), scope, expected_runs={variant: runs}, reader=reader_of_variant(variant)
        )
        (body,) = scored.values()
        meta = meta or body["META"]
        result = body[variant]
        result["n_error"] = len(errored)
        model_result[variant] = result
        warnings.extend(body["META"]["warnings"])
        done = [{r["id"] for r in groups.get(run, {}).values() if r.get("error") is None} for run in range(runs)]
        unfinished = [len(ids - finished) for finished in done]
        if sum(unfinished) or expected.missing_shards:
            incomplete.append(
                _incompleteness(variant, unfinished, len(errored), expected.missing_shards, counted=bool(references))
            )
        ends = Counter(r.get("end") for group in groups.values() for r in group.values() if r.get("error") is None)
        result["episode_ends"] = dict(sorted(ends.items()))
        if ends["cap"]:
            warnings.append(
                f"{variant}: {ends['cap']} episode(s) reached the step cap without the model saying it was done; "
                "they are scored as failures (end == 'cap' in the records)"
            )
    if meta is None:
        raise RecordsError(f"nothing was run under {collected.model_dir}")
    n_rows = len(references.rows) if references is not None else len(all_ids)
    readers = sorted({result["reader"] for result in model_result.values()})
    meta = {
        **meta,
        "protocols": list(model_result),
        "reader": readers[0] if len(readers) == 1 else "mixed",
        "warnings": warnings + incomplete,
        "n_rows": n_rows,
    }
    return {header.model: {"META": meta, **model_result}}, warnings + incomplete, incomplete


def _incompleteness(
    variant: str, missing: list[int], n_errored: int, shards: tuple[tuple[int, int], ...], *, counted: bool
) -> str:
    parts = [f"{sum(missing)} requested row(s) unfinished over {len(missing)} run(s) (per run: {missing})"]
    if n_errored:
        parts.append(f"{n_errored} instance(s) ended in backend errors: rerun the same command to retry them")
    if shards:
        fate = "their rows score as failed" if counted else "their rows are not counted"
        parts.append("shard(s) " + ", ".join(f"{i}/{n}" for i, n in shards) + f" never started: {fate}")
    return f"incomplete: {variant}: " + "; ".join(parts)


@dataclass(frozen=True, slots=True)
class Report:
    """What ``write_report`` produced; ``incomplete`` names each variant with missing rows."""

    submission_path: Path
    results_path: Path
    text: str
    n_errors: int
    results: dict[str, Any]
    incomplete: tuple[str, ...] = ()


def dataset_references(header: Mapping[str, Any], dataset: str | ReferenceSet | None = None) -> ReferenceSet:
    """The dataset records were run on: ``dataset`` (a loaded set, a folder or repo id), else the source they name.

    Raises:
        RecordsError: the dataset cannot be found (pass it, e.g. ``merge --dataset``).
    """
    from vgau_data.metrics.references import load_references

    if isinstance(dataset, ReferenceSet):
        return dataset
    recorded = header.get("dataset") or {}
    source = dataset or str(recorded.get("source") or "")
    try:
        return load_references(source, revision=None if dataset else recorded.get("revision"))
    except VgauError as error:
        raise RecordsError(
            f"cannot load the dataset {source!r} the records were run on ({error}); pass it with --dataset"
        ) from None


def write_report(model_dir: Path, dataset: str | ReferenceSet | None = None) -> Report:
    """Write ``submission.jsonl`` and ``results.json`` for a model folder; return the table text.

    Scores count every row of the dataset the records were run on (``dataset``, default
    the source their header names), as ``vgau-data score`` does. Each file is written
    beside itself and renamed into place, so a reader (or a killed writer) never leaves a
    half-written report.

    Raises:
        RecordsError: the dataset cannot be loaded. FingerprintMismatchError: it is
            another build than the records'.
    """
    collected = collect_records(model_dir)
    references = dataset_references(collected.header, dataset)
    submission = build_submission(collected)
    submission_path = write_submission(model_dir / SUBMISSION_NAME, submission)
    results, warnings, incomplete = score_records(collected, references)
    results_path = safe_io.write_text(model_dir / RESULTS_NAME, safe_json.dumps(results, indent=2) + "\n")
    ((model, body),) = results.items()
    protocols = {k: v for k, v in body.items() if k != "META"}
    return Report(
        submission_path,
        results_path,
        format_report(model, protocols, warnings),
        len(collected.errors),
        results,
        tuple(incomplete),
    )


def model_dirs(out_dir: Path) -> list[Path]:
    """Model folders under a run's ``--out`` folder; a link to a folder elsewhere is left out (with a warning):
    reports are written into these folders, and nothing may be written outside ``out_dir``."""
    if not Path(out_dir).is_dir():
        return []
    found = []
    for path in sorted(Path(out_dir).iterdir()):
        if not (path / "records").is_dir():
            continue
        if inside_out_dir(out_dir, path.name) is None:
            logger.warning("%s leads outside %s; it is left out", path, out_dir)
            continue
        found.append(path)
    return found


def inside_out_dir(out_dir: Path, name: str) -> Path | None:
    """``out_dir / name`` when ``name`` is one folder name and the folder really lies in ``out_dir``, else None."""
    if Path(name).name != name or name in ("", ".", ".."):
        return None
    folder = Path(out_dir) / name
    return folder if folder.resolve().parent == Path(out_dir).resolve() else None
