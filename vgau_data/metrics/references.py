"""The scoring columns of a built dataset: what a submission is scored against.

``load_references(DIR_OR_REPO)`` reads only ``id, task, difficulty, optimal_length,
state, solution`` from each config's Parquet file (no image bytes are decoded), in SPEC
family order and file order, and records where they came from: the source, the Hub
revision (for a repo id) and the dataset fingerprint a submission must match.
A local folder is read directly; a Hub repo id is first downloaded with
``huggingface_hub.snapshot_download`` (Parquet files and card only).
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

from vgau_data.builders.load import read_config_columns
from vgau_data.errors import MissingDependencyError, SubmissionError, VgauError
from vgau_data.metrics.scoring import Reference, make_reference
from vgau_data.puzzles.base import DIFFICULTIES
from vgau_data.registry import FAMILIES, get_family

logger = logging.getLogger(__name__)

SCORING_COLUMNS: tuple[str, ...] = ("id", "task", "difficulty", "optimal_length", "state", "solution")


class DatasetNotFoundError(VgauError, FileNotFoundError):
    """The dataset to score against is not a built folder and could not be downloaded."""


@dataclass(frozen=True, slots=True)
class DatasetRow:
    """The scoring subset of one dataset row (docs/contract/records.md, References)."""

    id: str
    task: str
    difficulty: str
    optimal_length: int
    state: str
    solution: str

    @property
    def reference(self) -> Reference:
        """The parsed reference (what ``score_answer`` takes without re-reading JSON)."""
        return Reference(self.id, self.task, self.difficulty, self.optimal_length, self.state)

    def reference_json(self) -> str:
        """The reference string (docs/contract/records.md), as the ``evaluate`` module takes it."""
        return make_reference(
            {"id": self.id, "task": self.task, "difficulty": self.difficulty,
             "optimal_length": self.optimal_length, "state": self.state}
        )


@dataclass(frozen=True)
class ReferenceSet:
    """Rows of one dataset build, with its provenance."""

    source: str
    fingerprint: str
    rows: tuple[DatasetRow, ...]
    revision: str | None = None
    local_dir: str | None = field(default=None, compare=False)

    @cached_property
    def by_id(self) -> dict[str, DatasetRow]:
        return {row.id: row for row in self.rows}

    @property
    def ids(self) -> Mapping[str, DatasetRow]:
        return self.by_id

    @property
    def families(self) -> list[str]:
        present = {row.task for row in self.rows}
        return [name for name in FAMILIES if name in present]

    def subset(self, families: Iterable[str]) -> ReferenceSet:
        """Only the rows of ``families`` (same provenance)."""
        wanted = {get_family(name).name for name in families}
        rows = tuple(r for r in self.rows if r.task in wanted)
        return ReferenceSet(self.source, self.fingerprint, rows, self.revision, self.local_dir)


def rows_from_records(records: Iterable[Mapping[str, Any]]) -> tuple[DatasetRow, ...]:
    """Check and convert dataset rows (dicts with at least ``SCORING_COLUMNS``).

    Raises:
        SubmissionError: a missing column, an unknown family or difficulty, a repeated id.
    """
    rows: list[DatasetRow] = []
    seen: set[str] = set()
    for record in records:
        missing = [key for key in SCORING_COLUMNS if key not in record]
        if missing:
            raise SubmissionError(f"dataset row lacks columns {missing}; has {sorted(record)}")
        task = get_family(str(record["task"])).name
        difficulty = str(record["difficulty"])
        if difficulty not in DIFFICULTIES:
            raise SubmissionError(
                f"dataset row {record['id']!r} has difficulty {difficulty!r}; expected one of {DIFFICULTIES}"
            )
        row_id = str(record["id"])
        if row_id in seen:
            raise SubmissionError(f"dataset has the id {row_id!r} twice; rebuild it")
        seen.add(row_id)
        optimal_length = int(record["optimal_length"])
        rows.append(DatasetRow(row_id, task, difficulty, optimal_length, str(record["state"]), str(record["solution"])))
    return tuple(rows)


def fingerprint_of(folder: str | Path) -> str:
    """The dataset fingerprint of a built folder (``vgau_data.builders.dataset_fingerprint``)."""
    from vgau_data.builders import dataset_fingerprint

    return str(dataset_fingerprint(folder))


def load_local_references(
    folder: str | Path, *, source: str | None = None, revision: str | None = None
) -> ReferenceSet:
    """Rows of every family present in a built dataset folder.

    Raises:
        DatasetNotFoundError: no ``<family>/test-*.parquet`` file under ``folder``.
        SubmissionError: a row without the scoring columns, or a repeated id.
    """
    root = Path(folder)
    records: list[dict[str, Any]] = []
    for family in FAMILIES:
        records.extend(read_config_columns(root, family, SCORING_COLUMNS))
    if not records:
        raise DatasetNotFoundError(
            f"no <family>/test-*.parquet files under {str(root)!r}; build the dataset first (vgau-data build --out DIR)"
        )
    rows = rows_from_records(records)
    return ReferenceSet(source or str(root), fingerprint_of(root), rows, revision, str(root))


def load_references(dataset: str | Path, *, revision: str | None = None) -> ReferenceSet:
    """Rows of a built dataset: a local folder, or a Hub dataset repo id (downloaded).

    For a repo id the recorded revision is the commit actually downloaded, and the
    fingerprint is computed over the downloaded Parquet files, so it equals the one of
    the folder that was pushed.

    Raises:
        DatasetNotFoundError: neither a built folder nor a downloadable repo.
    """
    path = Path(dataset)
    if path.is_dir():
        return load_local_references(path, revision=revision)
    if path.suffix or str(dataset).startswith((".", "/")) or str(dataset).count("/") != 1:
        raise DatasetNotFoundError(
            f"dataset {str(dataset)!r} is neither a built folder nor a Hub repo id like 'vgau/puzzles'"
        )
    try:
        from huggingface_hub import snapshot_download
    except ImportError as error:
        raise MissingDependencyError("huggingface_hub missing: pip install huggingface_hub") from error
    patterns = ["*/test-*.parquet", "README.md"]
    try:
        downloaded = snapshot_download(
            repo_id=str(dataset), repo_type="dataset", revision=revision, allow_patterns=patterns
        )
    except OSError as error:
        raise DatasetNotFoundError(
            f"could not get the dataset repo {str(dataset)!r} (revision {revision or 'main'}) "
            "from the Hub or its cache: "
            f"{str(error).splitlines()[0][:200]}; pass a built folder instead (vgau-data build --out DIR)"
        ) from error
    local = Path(downloaded)
    commit = local.name if local.parent.name == "snapshots" else revision
    return load_local_references(local, source=str(dataset), revision=commit)
