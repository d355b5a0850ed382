"""Turn other harnesses' per-sample logs into our submission format.

Assumed formats (hand-checked against lmms-eval 0.7.3 and VLMEvalKit e8e78f05):

lmms-eval ``--log_samples`` (``samples_<task>.jsonl``, one JSON object per line; a JSON
list of the same objects is accepted too)::

    {"doc_id": 3, "doc": {"id": "maze-easy-0003", "task": "maze", ...}, "target": "...",
     "resps": [["<raw output>"]], "filtered_resps": ["<filtered output>"], ...}

The output is ``filtered_resps[0]`` when present (what lmms-eval scored), else
``resps[0][0]``; nested lists are unwrapped to the first string. The row is
``doc["id"]``; without it, ``doc_id`` is the row's position in its family's test split
(the family from ``doc["task"]`` or ``family=``).

VLMEvalKit predictions (``<model>_<dataset>.xlsx``, ``.tsv`` or ``.csv``), one row per
sample with an ``index`` and a ``prediction`` column plus the dataset TSV's columns. The
row is the ``id`` column when present, else ``index`` when it is a row id, else
``index`` as an integer position in the dataset (in the family given by ``family=``, or
over all rows in SPEC family order, which is how ``vgau_data``'s TSV export numbers
them). ``.xlsx`` needs ``openpyxl`` (through pandas).
"""

from __future__ import annotations

import csv
import importlib.util
import json
import sys
import zipfile
from collections.abc import Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any, Literal

from vgau_data import __version__
from vgau_data.errors import MissingDependencyError, SubmissionError
from vgau_data.metrics.references import ReferenceSet
from vgau_data.metrics.submission import Submission, SubmissionHeader, SubmissionRecord

Harness = Literal["lmms-eval", "vlmevalkit"]
HARNESSES: tuple[str, ...] = ("lmms-eval", "vlmevalkit")


def _first_string(value: object) -> str | None:
    """Unwrap ``[["text"]]``-style nesting to the first string (None if there is none)."""
    for _ in range(8):
        if isinstance(value, str) or value is None:
            return value
        if isinstance(value, (list, tuple)) and value:
            value = value[0]
        else:
            return None
    return None


class _RowLocator:
    """Maps a harness's row reference (id, or position) to a dataset row id."""

    def __init__(self, references: ReferenceSet, family: str | None) -> None:
        self.references = references
        self.family = family
        self.ids = references.ids

    def by_position(self, position: object, family: str | None) -> str:
        family = family or self.family
        rows = [r for r in self.references.rows if family is None or r.task == family]
        try:
            index = int(position)  # type: ignore[call-overload]
        except (TypeError, ValueError):
            raise SubmissionError(
                f"row reference {position!r:.60} is neither a dataset id nor an integer position"
            ) from None
        if not 0 <= index < len(rows):
            scope = f"family {family!r}" if family else "the dataset"
            raise SubmissionError(f"position {index} is outside {scope} ({len(rows)} rows)")
        return rows[index].id

    def resolve(self, candidate_id: object, position: object, family: str | None) -> str:
        if isinstance(candidate_id, str) and candidate_id in self.ids:
            return candidate_id
        if isinstance(candidate_id, str) and candidate_id:
            raise SubmissionError(f"id {candidate_id!r:.60} is not a row of the dataset {self.references.source!r}")
        return self.by_position(position, family)


def _lmms_samples(path: Path) -> Iterator[tuple[int, Mapping[str, Any]]]:
    text = path.read_text(encoding="utf-8")
    if text.lstrip().startswith("["):
        samples = json.loads(text)
        if not isinstance(samples, list):
            raise SubmissionError(f"{path}: expected a JSON list of samples")
        yield from enumerate(samples, start=1)
        return
    for number, line in enumerate(text.splitlines(), start=1):
        if line.strip():
            try:
                yield number, json.loads(line)
            except ValueError as error:
                raise SubmissionError(f"{path} line {number}: not JSON ({error})") from None


def records_from_lmms_eval(
    path: str | Path, references: ReferenceSet, *, protocol: str, run: int = 0, family: str | None = None
) -> list[SubmissionRecord]:
    """Submission records from one lmms-eval ``samples_<task>.jsonl`` file."""
    path = Path(path)
    locator = _RowLocator(references, family)
    records = []
    for number, sample in _lmms_samples(path):
        if not isinstance(sample, Mapping):
            raise SubmissionError(f"{path} sample {number}: expected an object, got {type(sample).__name__}")
        doc = sample.get("doc") if isinstance(sample.get("doc"), Mapping) else {}
        output = _first_string(sample.get("filtered_resps"))
        if output is None:
            output = _first_string(sample.get("resps"))
        try:
            row_id = locator.resolve(doc.get("id"), sample.get("doc_id"), doc.get("task"))
        except SubmissionError as error:
            raise SubmissionError(f"{path} sample {number}: {error}") from None
        records.append(SubmissionRecord(row_id, protocol, run, output))
    return records


def _table_rows(path: Path) -> list[dict[str, Any]]:
    suffix = path.suffix.lower()
    if suffix in (".tsv", ".csv"):
        csv.field_size_limit(min(sys.maxsize, 2**31 - 1))
        with path.open(newline="", encoding="utf-8") as handle:
            return list(csv.DictReader(handle, delimiter="\t" if suffix == ".tsv" else ","))
    if suffix == ".xlsx":
        if importlib.util.find_spec("openpyxl") is None or importlib.util.find_spec("pandas") is None:
            raise MissingDependencyError(
                "reading .xlsx needs pandas and openpyxl: pip install openpyxl (or save the file as .tsv)"
            )
        import pandas as pd

        try:
            frame = pd.read_excel(path)
        except (ValueError, OSError, zipfile.BadZipFile) as error:
            raise SubmissionError(f"{path}: not a readable .xlsx file ({error})") from None
        return [{k: (None if _is_nan(v) else v) for k, v in row.items()} for row in frame.to_dict("records")]
    raise SubmissionError(f"{path}: expected a VLMEvalKit prediction file (.xlsx, .tsv or .csv)")


def _is_nan(value: object) -> bool:
    return isinstance(value, float) and value != value


def records_from_vlmevalkit(
    path: str | Path, references: ReferenceSet, *, protocol: str, run: int = 0, family: str | None = None
) -> list[SubmissionRecord]:
    """Submission records from one VLMEvalKit prediction file."""
    path = Path(path)
    rows = _table_rows(path)
    if rows and "prediction" not in rows[0]:
        raise SubmissionError(f"{path}: no 'prediction' column; columns are {sorted(rows[0])}")
    locator = _RowLocator(references, family)
    records = []
    for number, row in enumerate(rows, start=2):  # line 1 is the column header
        index = row.get("index")
        candidate = row.get("id") or (index if isinstance(index, str) and index in locator.ids else None)
        try:
            row_id = locator.resolve(candidate, index, row.get("task") or None)
        except SubmissionError as error:
            raise SubmissionError(f"{path} row {number}: {error}") from None
        prediction = row.get("prediction")
        records.append(SubmissionRecord(row_id, protocol, run, None if prediction is None else str(prediction)))
    return records


def convert(
    harness: str,
    paths: Sequence[str | Path],
    references: ReferenceSet,
    *,
    model: str,
    protocol: str = "direct",
    run: int = 0,
    family: str | None = None,
    settings: Mapping[str, Any] | None = None,
) -> Submission:
    """A submission from one or more harness files (e.g. one lmms-eval file per task).

    Raises:
        SubmissionError: an unreadable file, a row that is not in the dataset, or the same
            row twice (named).
    """
    readers = {"lmms-eval": records_from_lmms_eval, "vlmevalkit": records_from_vlmevalkit}
    if harness not in readers:
        raise ValueError(f"unknown harness {harness!r}; choose from {', '.join(HARNESSES)}")
    records: list[SubmissionRecord] = []
    for path in paths:
        records.extend(readers[harness](path, references, protocol=protocol, run=run, family=family))
    _reject_duplicates(records)
    header = SubmissionHeader(
        model=model,
        harness=f"{harness} (converted by vgau-data {__version__})",
        dataset_source=references.source,
        dataset_revision=references.revision,
        fingerprint=references.fingerprint,
        settings=dict(settings or {}),
    )
    return Submission(header, tuple(records))


def _reject_duplicates(records: Iterable[SubmissionRecord]) -> None:
    seen: set[tuple[str, str, int]] = set()
    duplicates = []
    for record in records:
        if record.key in seen:
            duplicates.append(record.id)
        seen.add(record.key)
    if duplicates:
        raise SubmissionError(f"{len(duplicates)} row(s) appear twice in the input: {', '.join(duplicates[:20])}")
