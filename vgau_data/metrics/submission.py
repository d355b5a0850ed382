"""The leaderboard submission format: a JSONL file of raw model outputs.

Line 1 is the header; every other line is one record (one row x protocol x run)::

    {"vgau_submission": 1, "model": "Qwen2.5-VL-7B", "harness": "lmms-eval 0.7.3",
     "dataset": {"source": "vgau/puzzles", "revision": "3f2c...", "fingerprint": "9ab1..."},
     "settings": {"temperature": 0.0, "max_new_tokens": 2048}}
    {"id": "maze-easy-0000", "protocol": "direct", "run": 0, "output": "<ANSWER_JSON>[...]</ANSWER_JSON>"}
    {"id": "maze-easy-0000", "protocol": "text_cot", "run": 0, "output": "...", "meta": {"tokens": 812}}

``submission.schema.json`` (``vgau_data.metrics.submission_schema_path()``) is the JSON
Schema of one line; the reader here applies the same rules without needing
``jsonschema`` (a test keeps the two in step) and adds the file-level ones: the header
comes first and once, ``(id, protocol, run)`` is unique. A file ending in ``.gz`` is read
and written gzipped.

Reading is bounded (``SubmissionLimits``, each overridable by a ``vgau-data score``
flag): the file size, the bytes after decompression, the length and number of lines,
the protocols and the runs per protocol. Past a limit, reading stops with a
``SubmissionError`` naming the line, so a hostile file costs at most the limits.

Checks against a dataset (``check_against``): every id must be a dataset row, and the
header's fingerprint must equal the dataset's. Rows a ``(protocol, run)`` leaves out are
not an error here: scoring counts them as failed (``results.score_submission``).
"""

from __future__ import annotations

import contextlib
import functools
import gzip
import json
import logging
import os
import re
import zlib
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from vgau_data import safe_io, safe_json
from vgau_data.errors import InputFileError, SubmissionError
from vgau_data.protocols import budget_variants
from vgau_data.types import ROW_ID_PATTERN

if TYPE_CHECKING:
    from vgau_data.metrics.references import ReferenceSet

logger = logging.getLogger(__name__)

FORMAT_VERSION = 1


@functools.cache
def known_protocols() -> tuple[str, ...]:
    """The protocols with their budget variants (``vgau_data.protocols``), in table order.

    ``<known>_<suffix>`` names (other runner variants, such as ``oracle_aug_vcot_last2``)
    count as known; others score with a warning.
    """
    return tuple(budget_variants())


MAX_RUN = 999
"""Highest run index the schema allows; ``SubmissionLimits.max_runs`` caps runs per protocol."""
MAX_PROBLEMS_SHOWN = 20
MIB = 1024 * 1024
_GZIP_MAGIC = b"\x1f\x8b"
_PROTOCOL = re.compile(r"[a-z][a-z0-9_]*")
_FINGERPRINT = re.compile(r"[0-9a-f]{64}")
_HEADER_KEYS = frozenset({"vgau_submission", "model", "harness", "dataset", "settings", "created", "notes"})
_DATASET_KEYS = frozenset({"source", "revision", "fingerprint"})
_RECORD_KEYS = frozenset({"id", "protocol", "run", "output", "meta"})


class FingerprintMismatchError(SubmissionError):
    """The submission was produced on a different dataset build than the one scored against."""


@dataclass(frozen=True, kw_only=True, slots=True)
class SubmissionLimits:
    """The most that reading one submission may cost; past any of them it is refused.

    The defaults are far above an honest submission (600 rows x 13 protocols x 3 runs of
    8192-token answers is under 200 MiB) and keep a hostile one under a second and a
    few hundred MiB. ``vgau-data score`` has a flag per field (``--max-file-mb`` ...).

    Attributes:
        max_file_mb: size of the file on disk (compressed size for ``.gz``), MiB.
        max_data_mb: bytes read after decompression, MiB.
        max_line_mb: longest line, MiB.
        max_lines: lines in the file, blank ones included.
        max_protocols: distinct protocols.
        max_runs: runs per protocol (run indexes ``0..max_runs-1``).
    """

    max_file_mb: int = 256
    max_data_mb: int = 256
    max_line_mb: int = 8
    max_lines: int = 500_000
    max_protocols: int = 32
    max_runs: int = 10

    def __post_init__(self) -> None:
        for name in self.__dataclass_fields__:
            value = getattr(self, name)
            if not isinstance(value, int) or isinstance(value, bool) or value < 1:
                raise ValueError(f"SubmissionLimits.{name} must be a positive integer, got {value!r}")


DEFAULT_LIMITS = SubmissionLimits()


@dataclass(frozen=True, slots=True)
class SubmissionHeader:
    """The first line: who produced the outputs, on which dataset, with which settings."""

    model: str
    harness: str
    dataset_source: str
    fingerprint: str
    dataset_revision: str | None = None
    settings: Mapping[str, Any] = field(default_factory=dict)
    created: str | None = None
    notes: str | None = None

    def to_json_obj(self) -> dict[str, Any]:
        obj: dict[str, Any] = {
            "vgau_submission": FORMAT_VERSION,
            "model": self.model,
            "harness": self.harness,
            "dataset": {
                "source": self.dataset_source,
                "revision": self.dataset_revision,
                "fingerprint": self.fingerprint,
            },
            "settings": dict(self.settings),
        }
        if self.created is not None:
            obj["created"] = self.created
        if self.notes is not None:
            obj["notes"] = self.notes
        return obj


@dataclass(frozen=True, slots=True)
class SubmissionRecord:
    """One raw output: row ``id`` under ``protocol``, run ``run``."""

    id: str
    protocol: str
    run: int
    output: str | None
    meta: Mapping[str, Any] | None = None

    @property
    def key(self) -> tuple[str, str, int]:
        return (self.id, self.protocol, self.run)

    @property
    def failed(self) -> bool:
        """A request the harness gave up on (no output, the reason in ``meta.error``): asked, never answered."""
        return self.output is None and isinstance(self.meta, Mapping) and "error" in self.meta

    def to_json_obj(self) -> dict[str, Any]:
        obj: dict[str, Any] = {"id": self.id, "protocol": self.protocol, "run": self.run, "output": self.output}
        if self.meta is not None:
            obj["meta"] = dict(self.meta)
        return obj


@dataclass(frozen=True, slots=True)
class Submission:
    """A read (or built) submission; records keep file order and have unique keys."""

    header: SubmissionHeader
    records: tuple[SubmissionRecord, ...]
    path: str | None = None

    def protocols(self) -> list[str]:
        """Protocols present, known ones in ``known_protocols()`` order, then the rest sorted."""
        return order_protocols({r.protocol for r in self.records})

    def runs(self, protocol: str) -> list[int]:
        """Runs ``0..k-1`` of ``protocol``, where ``k - 1`` is the highest run present."""
        present = [r.run for r in self.records if r.protocol == protocol]
        return list(range(max(present) + 1)) if present else []


def base_protocol(name: str) -> str | None:
    """The known protocol ``name`` is, or is a variant of (``<known>_<suffix>``); None if neither.

    Example:
        >>> base_protocol("oracle_aug_vcot_last2"), base_protocol("direct"), base_protocol("probe")
        ('oracle_aug_vcot', 'direct', None)
    """
    known = known_protocols()
    if name in known:
        return name
    bases = [base for base in known if name.startswith(base + "_")]
    return max(bases, key=len) if bases else None


def order_protocols(protocols: Iterable[str]) -> list[str]:
    """Known protocols in table order, each followed by its variants, then unknown ones alphabetically.

    Example:
        >>> order_protocols(["zz_probe", "text_cot", "direct_t07", "direct"])
        ['direct', 'direct_t07', 'text_cot', 'zz_probe']
    """

    def key(name: str) -> tuple[int, int, str]:
        base = base_protocol(name)
        if base is None:
            return (len(known_protocols()), 0, name)
        return (known_protocols().index(base), int(name != base), name)

    return sorted(set(protocols), key=key)


# ---------------------------------------------------------------- line checks (mirror the schema)


def header_problems(obj: object) -> list[str]:
    """Why ``obj`` is not a valid header line (empty list when it is)."""
    if not isinstance(obj, dict):
        return [f"header must be a JSON object, got {type(obj).__name__}"]
    problems = [f"unknown header key {key!r}" for key in sorted(set(obj) - _HEADER_KEYS)]
    required = ("vgau_submission", "model", "harness", "dataset")
    problems += [f"header lacks {key!r}" for key in required if key not in obj]
    version = obj.get("vgau_submission")
    if "vgau_submission" in obj and (version != FORMAT_VERSION or isinstance(version, bool)):
        problems.append(f"vgau_submission must be {FORMAT_VERSION}, got {obj['vgau_submission']!r:.40}")
    for key in ("model", "harness"):
        if key in obj and not (isinstance(obj[key], str) and obj[key]):
            problems.append(f"header {key!r} must be a non-empty string")
    for key in ("created", "notes"):
        if key in obj and not isinstance(obj[key], str):
            problems.append(f"header {key!r} must be a string")
    if "settings" in obj and not isinstance(obj["settings"], dict):
        problems.append("header 'settings' must be an object")
    dataset = obj.get("dataset")
    if "dataset" in obj and not isinstance(dataset, dict):
        problems.append("header 'dataset' must be an object with source, revision, fingerprint")
    elif isinstance(dataset, dict):
        problems += [f"unknown dataset key {key!r}" for key in sorted(set(dataset) - _DATASET_KEYS)]
        if not (isinstance(dataset.get("source"), str) and dataset["source"]):
            problems.append("dataset 'source' must be a non-empty string (Hub repo id or folder)")
        if dataset.get("revision") is not None and not isinstance(dataset["revision"], str):
            problems.append("dataset 'revision' must be a string or null")
        fingerprint = dataset.get("fingerprint")
        if not (isinstance(fingerprint, str) and _FINGERPRINT.fullmatch(fingerprint)):
            problems.append(
                f"dataset 'fingerprint' must be 64 lower-case hex digits, got {fingerprint!r:.80}"
                " (vgau_data.builders.dataset_fingerprint of the dataset folder)"
            )
    return problems


def record_problems(obj: object) -> list[str]:
    """Why ``obj`` is not a valid record line (empty list when it is)."""
    if not isinstance(obj, dict):
        return [f"record must be a JSON object, got {type(obj).__name__}"]
    problems = [f"unknown record key {key!r}" for key in sorted(set(obj) - _RECORD_KEYS)]
    problems += [f"record lacks {key!r}" for key in ("id", "protocol", "run", "output") if key not in obj]
    if "id" in obj and not (isinstance(obj["id"], str) and ROW_ID_PATTERN.fullmatch(obj["id"])):
        problems.append(f"id must be a row id like 'maze-hard-0042' or 'sokoban_000', got {obj['id']!r:.80}")
    if "protocol" in obj and not (isinstance(obj["protocol"], str) and _PROTOCOL.fullmatch(obj["protocol"])):
        problems.append(f"protocol must be a lower-case name like 'text_cot', got {obj['protocol']!r:.80}")
    if "run" in obj and _as_run(obj["run"]) is None:
        problems.append(f"run must be an integer 0..{MAX_RUN}, got {obj['run']!r:.40}")
    if "output" in obj and not (obj["output"] is None or isinstance(obj["output"], str)):
        problems.append(f"output must be a string or null, got {type(obj['output']).__name__}")
    if "meta" in obj and not isinstance(obj["meta"], dict):
        problems.append("meta must be an object")
    return problems


def _as_run(value: object) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if isinstance(value, int) and 0 <= value <= MAX_RUN:
        return value
    return None


def _header_from(obj: Mapping[str, Any]) -> SubmissionHeader:
    dataset = obj["dataset"]
    return SubmissionHeader(
        model=obj["model"],
        harness=obj["harness"],
        dataset_source=dataset["source"],
        fingerprint=dataset["fingerprint"],
        dataset_revision=dataset.get("revision"),
        settings=dict(obj.get("settings") or {}),
        created=obj.get("created"),
        notes=obj.get("notes"),
    )


def _record_from(obj: Mapping[str, Any]) -> SubmissionRecord:
    run = _as_run(obj["run"])
    if run is None:  # record_problems rejected it already; keeps type checkers honest
        raise SubmissionError(f"bad run {obj['run']!r}")
    return SubmissionRecord(obj["id"], obj["protocol"], run, obj["output"], obj.get("meta"))


# ---------------------------------------------------------------- reading and writing


def _flag(name: str) -> str:
    return "--" + name.replace("_", "-")


def _file_lines(path: Path, limits: SubmissionLimits) -> Iterator[tuple[int, bytes]]:
    """Numbered raw lines of a submission file, within ``limits`` (decompressing ``.gz``)."""
    if not path.exists() and not path.is_symlink():
        raise SubmissionError(f"submission file {str(path)!r} does not exist")
    try:
        raw = safe_io.open_regular(path, what="submission file")
    except InputFileError as error:
        raise SubmissionError(str(error)) from None
    size = os.fstat(raw.fileno()).st_size
    if size > limits.max_file_mb * MIB:
        raw.close()
        raise SubmissionError(
            f"{path}: the file is {size / MIB:.1f} MiB, over the limit of {limits.max_file_mb} MiB "
            f"(raise it with {_flag('max_file_mb')})"
        )
    gzipped = raw.read(2) == _GZIP_MAGIC
    raw.seek(0)
    if gzipped != (path.suffix == ".gz"):
        raw.close()
        raise SubmissionError(
            f"{path}: the file is gzip-compressed; name it .jsonl.gz"
            if gzipped
            else f"{path}: not a gzip file, though its name ends in .gz; decompress it or rename it .jsonl"
        )
    with raw, gzip.GzipFile(fileobj=raw, mode="rb") if gzipped else contextlib.nullcontext(raw) as handle:
        number, data = 0, 0
        while True:
            try:
                line = handle.readline(limits.max_line_mb * MIB + 1)
            except (OSError, EOFError, zlib.error) as error:
                raise SubmissionError(f"{path}: line {number + 1}: the gzip data is corrupt ({error})") from None
            if not line:
                return
            number += 1
            data += len(line)
            if data > limits.max_data_mb * MIB:
                raise SubmissionError(
                    f"{path}: line {number}: the submission decompresses to more than {limits.max_data_mb} MiB "
                    f"(raise the limit with {_flag('max_data_mb')})"
                )
            yield number, line


def _bounded_lines(
    source: str | Path | Iterable[str | bytes], where: str, limits: SubmissionLimits
) -> Iterator[tuple[int, str | bytes]]:
    """Numbered lines of a file or an iterable of lines; refuses too many or too long lines."""
    lines = _file_lines(Path(source), limits) if isinstance(source, (str, Path)) else enumerate(source, start=1)
    for number, line in lines:
        if number > limits.max_lines:
            raise SubmissionError(
                f"{where}: line {number}: more than {limits.max_lines} lines "
                f"(raise the limit with {_flag('max_lines')})"
            )
        length = len(line) - (line[-1:] in ("\n", b"\n"))
        if length > limits.max_line_mb * MIB:
            raise SubmissionError(
                f"{where}: line {number}: longer than {limits.max_line_mb} MiB "
                f"(raise the limit with {_flag('max_line_mb')})"
            )
        yield number, line


def _check_new_group(
    record: SubmissionRecord, number: int, protocols: set[str], where: str, limits: SubmissionLimits
) -> None:
    """Refuse a record that opens a protocol or a run beyond ``limits`` (each costs a full scoring pass)."""
    if record.protocol not in protocols:
        protocols.add(record.protocol)
        if len(protocols) > limits.max_protocols:
            raise SubmissionError(
                f"{where}: line {number}: protocol {record.protocol!r} is protocol number {len(protocols)}, over "
                f"the limit of {limits.max_protocols} (raise it with {_flag('max_protocols')})"
            )
    if record.run >= limits.max_runs:
        raise SubmissionError(
            f"{where}: line {number}: run {record.run} of {record.protocol!r} means {record.run + 1} runs "
            f"(runs are 0..k-1), over the limit of {limits.max_runs} (raise it with {_flag('max_runs')})"
        )


def read_submission(
    source: str | Path | Iterable[str | bytes], *, limits: SubmissionLimits = DEFAULT_LIMITS
) -> Submission:
    """Read and check a submission file (or an iterable of its lines).

    Raises:
        SubmissionError: listing the bad lines by number (the first ``MAX_PROBLEMS_SHOWN``
            and a count): invalid JSON or UTF-8, a line that breaks the schema, a missing
            or repeated header, duplicate ``(id, protocol, run)`` keys (naming both
            lines); or naming the line where a limit of ``limits`` was passed.
    """
    where = str(source) if isinstance(source, (str, Path)) else "submission"
    header: SubmissionHeader | None = None
    header_line = 0
    records: list[SubmissionRecord] = []
    first_line: dict[tuple[str, str, int], int] = {}
    protocols: set[str] = set()
    problems: list[str] = []
    n_problems = 0

    def problem(*messages: str) -> None:
        nonlocal n_problems
        n_problems += len(messages)
        problems.extend(messages[: max(0, MAX_PROBLEMS_SHOWN - len(problems))])

    for number, raw in _bounded_lines(source, where, limits):
        try:
            line = raw.decode("utf-8") if isinstance(raw, bytes) else raw
        except UnicodeDecodeError as error:
            problem(f"line {number}: not UTF-8 ({error.reason} at byte {error.start})")
            continue
        if not line.strip():
            continue
        try:
            obj = safe_json.loads(line, f"line {number}")
        except safe_json.JsonInputError as error:
            problem(str(error))
            header_line = header_line or number  # an unreadable first line is still the header's
            continue
        if header is None and not header_line:
            header_line = number
            line_problems = header_problems(obj)
            if line_problems:
                problem(*(f"line {number} (header): {p}" for p in line_problems))
            else:
                header = _header_from(obj)
            continue
        if isinstance(obj, dict) and "vgau_submission" in obj:
            problem(f"line {number}: a second header (the first is line {header_line})")
            continue
        line_problems = record_problems(obj)
        if line_problems:
            problem(*(f"line {number}: {p}" for p in line_problems))
            continue
        record = _record_from(obj)
        if record.key in first_line:
            problem(
                f"line {number}: duplicate of line {first_line[record.key]} "
                f"(id={record.id}, protocol={record.protocol}, run={record.run})"
            )
            continue
        _check_new_group(record, number, protocols, where, limits)
        first_line[record.key] = number
        records.append(record)
    if not header_line:
        problems.insert(0, "empty file: the first line must be the header")
        n_problems += 1
    if problems:
        more = f"\n  ... and {n_problems - len(problems)} more" if n_problems > len(problems) else ""
        raise SubmissionError(
            f"{where}: {n_problems} problem(s); see the format in submission.schema.json:\n  "
            + "\n  ".join(problems)
            + more
        )
    if header is None:  # a bad header was reported above
        raise SubmissionError(f"{where}: no valid header")
    return Submission(header, tuple(records), where if isinstance(source, (str, Path)) else None)


def submission_lines(submission: Submission) -> Iterator[str]:
    """The JSONL lines (without newlines); non-ASCII is escaped so lone surrogates survive."""
    yield json.dumps(submission.header.to_json_obj(), ensure_ascii=True)
    for record in submission.records:
        yield json.dumps(record.to_json_obj(), ensure_ascii=True)


def write_submission(path: str | Path, submission: Submission) -> Path:
    """Write ``submission`` as JSONL (gzipped when ``path`` ends in ``.gz``), replacing ``path``
    whole (``safe_io.atomic_writer``); returns the path."""
    path = Path(path)
    with safe_io.atomic_writer(path) as raw:
        handle = gzip.GzipFile(filename=str(path), mode="wb", fileobj=raw) if path.suffix == ".gz" else raw
        with handle if handle is not raw else contextlib.nullcontext(raw):
            for line in submission_lines(submission):
                handle.write(line.encode("ascii") + b"\n")
    return path


# ---------------------------------------------------------------- checks against a dataset


def check_against(
    submission: Submission, references: ReferenceSet, *, allow_fingerprint_mismatch: bool = False
) -> list[str]:
    """Check a read submission against the dataset it is scored on; return warnings.

    Raises:
        FingerprintMismatchError: the header's fingerprint is not the dataset's (both are
            named), unless ``allow_fingerprint_mismatch``.
        SubmissionError: ids that are not rows of the dataset (named, with their count).
    """
    warnings: list[str] = []
    theirs, ours = submission.header.fingerprint, references.fingerprint
    if theirs != ours:
        message = (
            f"submission fingerprint {theirs} (dataset {submission.header.dataset_source!r}) differs from "
            f"{ours} of the dataset being scored ({references.source!r}); the outputs were produced on another build"
        )
        if not allow_fingerprint_mismatch:
            raise FingerprintMismatchError(message + "; pass --allow-fingerprint-mismatch to score anyway")
        warnings.append(message)
    known = references.ids
    unknown = sorted({r.id for r in submission.records if r.id not in known})
    if unknown:
        families = ", ".join(references.families)
        raise SubmissionError(
            f"{len(unknown)} id(s) are not rows of the dataset {references.source!r} (families {families}): "
            + ", ".join(unknown[:MAX_PROBLEMS_SHOWN])
            + (" ..." if len(unknown) > MAX_PROBLEMS_SHOWN else "")
        )
    unknown_protocols = [p for p in submission.protocols() if base_protocol(p) is None]
    if unknown_protocols:
        warnings.append(
            f"unknown protocol(s) {', '.join(unknown_protocols)} scored anyway; known: {', '.join(known_protocols())}"
        )
    for message in warnings:
        logger.warning("%s", message)
    return warnings
