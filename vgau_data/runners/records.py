"""Append-only JSONL records of finished episodes: the run log, the cache and the resume state.

Layout under ``--out DIR`` (one folder per model, named after it plus a fingerprint
prefix, so two models never share a file)::

    DIR/<model-slug>/records/<variant>/run-<k>.jsonl                # one process
    DIR/<model-slug>/records/<variant>/run-<k>.shard-<i>-of-<N>.jsonl  # --shard i/N
    DIR/<model-slug>/records/requested.jsonl                        # what each run was asked to do
    DIR/<model-slug>/records/.lock                                   # held while a run or a merge works
    DIR/<model-slug>/submission.jsonl, results.json                 # written by the run / merge

Each file starts with a header line (``"type": "header"``: versions, backend settings,
protocol, generation settings, dataset fingerprint) followed by one ``"type": "episode"``
line per finished episode, written whole, flushed and fsynced. An episode's ``key``
hashes the model fingerprint, backend, protocol settings and prompt version, instance
id, run index and generation settings.

``requested.jsonl`` gets one line per run invocation (its protocol variants, run count,
shard and instances), so a report can tell rows that were asked for but never
finished, and protocols that never started, from rows nobody asked for. A run holds
``.lock`` shared for as long as it writes (shards run side by side); ``merge`` takes it
exclusively, so it never rewrites files a run is still appending to.

Resume: a key with an error-free line is finished and skipped; a key whose lines all
carry ``error`` is run again (its new line is appended). Reading takes, per key, the
last error-free line, else the last line. A torn last line (a process killed mid-write)
is ignored on reading and cut off before the next append.

A records folder may come from someone else (``diagnose`` and ``merge`` read folders
copied from other machines), so reading is bounded: files are streamed through
``safe_io`` (regular files inside the model folder, at most ``MAX_RECORDS_FILE_BYTES``,
lines at most ``MAX_LINE_BYTES``, at most ``MAX_EPISODE_LINES`` episodes), and every header, episode and request line is held
to its shape (``HEADER_SHAPE``, ``EPISODE_SHAPE``, ``REQUEST_SHAPE``): a line that does not
fit is a one-line ``RecordsError`` naming the file, the line and the field.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import logging
import os
import platform
import re
import sys
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any

from vgau_data import __version__, safe_io, safe_json
from vgau_data.errors import InputFileError, VgauError
from vgau_data.schema import ANY, Int, ListOf, Nullable, Obj, RecordError, Shape, Str, check

if TYPE_CHECKING:
    from typing_extensions import Self

logger = logging.getLogger(__name__)

RECORD_FORMAT = 1
HEADER_TYPE = "header"
EPISODE_TYPE = "episode"
_RUN_FILE = re.compile(r"run-(?P<run>\d+)(?:\.shard-(?P<index>\d+)-of-(?P<count>\d+))?\.jsonl")
REQUESTS_NAME = "requested.jsonl"
LOCK_NAME = ".lock"
HEADER_MUST_MATCH: tuple[str, ...] = ("model_fingerprint", "backend_name", "protocol", "gen", "dataset_fingerprint")
"""Header fields an existing file must share with a new run appending to it."""
MAX_RECORDS_FILE_BYTES = 256 * 1024 * 1024
"""Largest records file read (600 long episodes are tens of MiB)."""
MAX_LINE_BYTES = 32 * 1024 * 1024
MAX_EPISODE_LINES = 20_000
"""Most episode lines read from one records file: one per row of a variant's run (600), plus
the retries of errored ones; each costs kilobytes of memory once parsed."""
MAX_REQUESTED_RUNS = 100
MAX_REQUESTED_ROWS = 100_000
MAX_REQUESTED_EPISODES = 200_000
"""Most rows x runs one request may ask for: each is scored (as missing, if it never ran)."""
MAX_FOLDER_EPISODES = 400_000
"""Most rows x runs all of a folder's requests may add up to (over every variant): about 2 s of scoring."""
MAX_VARIANTS = 256
_NAME = Str(max_len=200)
_TEXT = Nullable(Str())
HEADER_SHAPE: Shape = Obj(optional={
    "model": Nullable(Str(max_len=4096)), "model_fingerprint": Nullable(_NAME), "backend_name": Nullable(_NAME),
    "backend": Nullable(Obj()), "gen": Nullable(Obj()), "dataset_fingerprint": Nullable(_NAME),
    "protocol": Nullable(Obj(optional={"name": Nullable(_NAME), "budget": Nullable(_NAME),
                                       "generation_context": Nullable(_NAME)})),
    "dataset": Nullable(Obj(optional={"source": Nullable(Str(max_len=4096)), "revision": Nullable(_NAME)})),
    "selection": Nullable(Obj()), "images": Nullable(Obj(optional={"source": Nullable(_NAME), "generator": _TEXT})),
})  # fmt: skip
"""What readers use of a header line (other fields are kept as they are)."""
EPISODE_SHAPE: Shape = Obj(
    required={"key": _NAME, "id": _NAME, "reference": Str()},
    optional={"task": Nullable(_NAME), "difficulty": Nullable(_NAME), "protocol": Nullable(_NAME), "run": Int(0),
              "output": _TEXT, "error": _TEXT, "end": _TEXT, "steps": Nullable(Int()), "verdict": Nullable(Obj()),
              "images": Nullable(ListOf(ANY))},
)  # fmt: skip
"""What readers use of an episode line."""
REQUEST_SHAPE: Shape = Obj(
    required={"variants": ListOf(_NAME, max_len=MAX_VARIANTS), "runs": Int(1, MAX_REQUESTED_RUNS),
              "rows": ListOf(ListOf(_NAME, min_len=3, max_len=3), max_len=MAX_REQUESTED_ROWS)},
    optional={"shard": Nullable(ListOf(Int(0, 1 << 20), min_len=2, max_len=2))},
)  # fmt: skip


class RecordsError(VgauError, RuntimeError):
    """A records file that cannot be appended to or read (locked, foreign settings, corrupt)."""


def episode_key(
    *,
    model_fingerprint: str,
    backend: str,
    protocol: Mapping[str, Any],
    instance_id: str,
    run: int,
    gen: Mapping[str, Any],
) -> str:
    """sha256 identifying one episode; any change of model, settings or prompt changes it.

    Example:
        >>> a = episode_key(model_fingerprint="m", backend="hf", protocol={"name": "direct"},
        ...                 instance_id="maze-easy-0000", run=0, gen={"max_new_tokens": 8})
        >>> a == episode_key(model_fingerprint="m2", backend="hf", protocol={"name": "direct"},
        ...                  instance_id="maze-easy-0000", run=0, gen={"max_new_tokens": 8})
        False
    """
    payload = {
        "model": model_fingerprint,
        "backend": backend,
        "protocol": dict(protocol),
        "id": instance_id,
        "run": run,
        "gen": dict(gen),
    }
    return hashlib.sha256(json.dumps(payload, sort_keys=True, separators=(",", ":")).encode()).hexdigest()


def model_slug(model: str, fingerprint: str) -> str:
    """A folder name for a model: its last path component, made safe, plus 8 fingerprint digits.

    Example:
        >>> model_slug("/models/Qwen2.5-VL-7B-Instruct/", "abcdef0123")
        'Qwen2.5-VL-7B-Instruct-abcdef01'
    """
    base = Path(model.rstrip("/")).name or model
    safe = re.sub(r"[^A-Za-z0-9._+-]+", "-", base).strip("-.+")[:60] or "model"
    return f"{safe}-{fingerprint[:8]}"


def records_path(model_dir: Path, variant: str, run: int, shard: tuple[int, int] | None = None) -> Path:
    """Where one (variant, run[, shard]) writes its records."""
    name = f"run-{run}.jsonl" if shard is None else f"run-{run}.shard-{shard[0]}-of-{shard[1]}.jsonl"
    return model_dir / "records" / variant / name


@dataclass(frozen=True, slots=True)
class RecordFileName:
    """What a records file name says: its run and shard (None when unsharded or merged)."""

    run: int
    shard: tuple[int, int] | None


def parse_records_name(path: Path) -> RecordFileName | None:
    match = _RUN_FILE.fullmatch(path.name)
    if match is None:
        return None
    shard = None if match["index"] is None else (int(match["index"]), int(match["count"]))
    return RecordFileName(int(match["run"]), shard)


def run_files(model_dir: Path, variant: str, run: int) -> list[Path]:
    """Every records file of (variant, run): merged and shard files alike."""
    folder = model_dir / "records" / variant
    if not folder.is_dir():
        return []
    return sorted(
        p for p in folder.glob("run-*.jsonl") if (name := parse_records_name(p)) is not None and name.run == run
    )


def software_versions() -> dict[str, str]:
    """Versions of everything that can change outputs (only libraries already imported)."""
    versions = {"python": platform.python_version(), "platform": platform.platform(), "vgau_data": __version__}
    for module in ("torch", "transformers", "vllm", "tokenizers", "PIL", "datasets"):
        loaded = sys.modules.get(module)
        if loaded is not None and hasattr(loaded, "__version__"):
            versions[module] = str(loaded.__version__)
    return versions


def now_iso() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


# ---------------------------------------------------------------- reading


def iter_lines(path: Path, *, inside: Path | None = None) -> Iterator[tuple[int, dict[str, Any]]]:
    """``(number, object)`` of a records file's lines, streamed within the bounds above; a torn
    or invalid last line is skipped (with a log line).

    Raises:
        RecordsError: the file is not a regular file inside ``inside``, too large, or a
            line before the last is not a JSON object (named with its line number).
    """
    try:
        for number, raw in safe_io.iter_lines(path, max_line=MAX_LINE_BYTES, max_bytes=MAX_RECORDS_FILE_BYTES,
                                              inside=inside, what="records file"):  # fmt: skip
            if not raw.strip():
                continue
            try:
                obj = safe_json.loads(raw, f"{path}: line {number}")
            except safe_json.JsonInputError as error:
                if not raw.endswith(b"\n"):
                    logger.warning("%s: ignoring a torn last line (%d bytes)", path, len(raw))
                    continue
                raise RecordsError(f"{error}; the file is corrupt") from None
            if not isinstance(obj, dict):
                raise RecordsError(f"{path}: line {number} is not a JSON object")
            yield number, obj
    except InputFileError as error:
        raise RecordsError(str(error)) from None


def read_records(path: Path, *, inside: Path | None = None,
                 drop: tuple[str, ...] = ()) -> tuple[dict[str, Any] | None, list[dict[str, Any]]]:
    """``(header, episode lines)`` of one file, each line held to its shape; the fields ``drop``
    (``turns``, for readers that only score) are left out of the episodes kept in memory.

    Raises:
        RecordsError: see ``iter_lines``; or a header or episode line of the wrong shape.
    """
    header: dict[str, Any] | None = None
    episodes = []
    try:
        for number, obj in iter_lines(path, inside=inside):
            if obj.get("type") == HEADER_TYPE:
                if header is None:
                    header = check(obj, HEADER_SHAPE, f"{path}: line {number} (header)")
            elif obj.get("type") == EPISODE_TYPE:
                if len(episodes) >= MAX_EPISODE_LINES:
                    raise RecordsError(f"{path}: line {number}: more than {MAX_EPISODE_LINES:,} episode lines in one file")
                check(obj, EPISODE_SHAPE, f"{path}: line {number}")
                for name in drop:
                    obj.pop(name, None)
                episodes.append(obj)
    except RecordError as error:
        raise RecordsError(str(error)) from None
    return header, episodes


def final_records(episodes: Iterable[Mapping[str, Any]]) -> dict[str, dict[str, Any]]:
    """Per key, the last error-free line, else the last line (in the order given).

    Example:
        >>> final_records([{"key": "a", "error": "x"}, {"key": "a", "error": None, "n": 1},
        ...                {"key": "a", "error": "y"}])["a"]["n"]
        1
    """
    final: dict[str, dict[str, Any]] = {}
    for episode in episodes:
        key = episode["key"]
        current = final.get(key)
        if current is None or episode.get("error") is None or current.get("error") is not None:
            final[key] = dict(episode)
    return final


def finished_keys(paths: Iterable[Path]) -> set[str]:
    """Keys with an error-free line in any of ``paths`` (what a rerun skips)."""
    done: set[str] = set()
    for path in paths:
        if path.is_file():
            done.update(e["key"] for e in read_records(path)[1] if e.get("error") is None)
    return done


# ---------------------------------------------------------------- writing


class RecordWriter:
    """Appends episode lines to one file, holding an exclusive lock on it while open.

    A new file gets ``header`` as its first line; an existing one must have been written
    with the same ``HEADER_MUST_MATCH`` settings.
    """

    def __init__(self, path: Path, header: Mapping[str, Any]) -> None:
        self.path = path
        path.parent.mkdir(parents=True, exist_ok=True)
        self._fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_APPEND, 0o644)
        try:
            fcntl.flock(self._fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(self._fd)
            raise RecordsError(
                f"{path} is being written by another process; give each process its own --shard i/N"
            ) from None
        try:
            self._prepare(header)
        except BaseException:
            self.close()
            raise

    def _prepare(self, header: Mapping[str, Any]) -> None:
        size = os.fstat(self._fd).st_size
        if size == 0:
            self._write({**header, "type": HEADER_TYPE})
            return
        self._cut_torn_tail(size)
        existing, _ = read_records(self.path)
        if existing is None:
            raise RecordsError(f"{self.path} has no header line; move it away and rerun")
        for field_name in HEADER_MUST_MATCH:
            if existing.get(field_name) != header.get(field_name):
                raise RecordsError(
                    f"{self.path} was written with a different {field_name} "
                    f"({existing.get(field_name)!r:.120} vs now {header.get(field_name)!r:.120}); "
                    "use another --out folder, or delete the file to start over"
                )

    def _cut_torn_tail(self, size: int) -> None:
        """Cut what follows the last newline (a line a killed run left half written)."""
        end, position = 0, size
        while position > 0:
            step = min(1 << 16, position)
            position -= step
            chunk = os.pread(self._fd, step, position)
            newline = chunk.rfind(b"\n")
            if newline >= 0:
                end = position + newline + 1
                break
        if end != size:
            logger.warning("%s: cutting a torn last line of %d bytes", self.path, size - end)
            os.ftruncate(self._fd, end)

    def _write(self, obj: Mapping[str, Any]) -> None:
        line = json.dumps(obj, ensure_ascii=True, separators=(",", ":")).encode("ascii") + b"\n"
        view = memoryview(line)
        while view:
            written = os.write(self._fd, view)
            view = view[written:]
        os.fsync(self._fd)

    def append(self, record: Mapping[str, Any]) -> None:
        """Write one finished episode (``type`` is set to ``episode``)."""
        self._write({**record, "type": EPISODE_TYPE})

    def close(self) -> None:
        if self._fd >= 0:
            fcntl.flock(self._fd, fcntl.LOCK_UN)
            os.close(self._fd)
            self._fd = -1

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()


# ---------------------------------------------------------------- the folder lock and the requests log


@contextmanager
def folder_lock(model_dir: Path, *, exclusive: bool) -> Iterator[None]:
    """Hold ``records/.lock``: shared while a run writes records, exclusive while merge rewrites them.

    Raises:
        RecordsError: the other side holds it (a merge is running, or a run is still writing).
    """
    path = model_dir / "records" / LOCK_NAME
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        try:
            fcntl.flock(fd, (fcntl.LOCK_EX if exclusive else fcntl.LOCK_SH) | fcntl.LOCK_NB)
        except BlockingIOError:
            raise RecordsError(
                f"{model_dir}: a `vgau-data run` is still writing records here; wait until it (and every shard) "
                "has finished, then merge"
                if exclusive
                else f"{model_dir}: `vgau-data merge` is rewriting these records; rerun when it has finished"
            ) from None
        yield
    finally:
        os.close(fd)  # closing releases the lock


@dataclass(frozen=True, slots=True)
class RunRequest:
    """What one run invocation was asked to do (one line of ``requested.jsonl``)."""

    variants: tuple[str, ...]
    runs: int
    rows: tuple[tuple[str, str, str], ...]
    """``(id, task, difficulty)`` of every instance."""
    shard: tuple[int, int] | None = None

    def to_json_obj(self) -> dict[str, Any]:
        return {"variants": list(self.variants), "runs": self.runs, "rows": [list(row) for row in self.rows],
                "shard": list(self.shard) if self.shard else None}


def record_request(model_dir: Path, request: RunRequest) -> None:
    """Append ``request`` to the folder's ``requested.jsonl`` (once: a rerun of the same command adds nothing)."""
    path = model_dir / "records" / REQUESTS_NAME
    path.parent.mkdir(parents=True, exist_ok=True)
    line = json.dumps({**request.to_json_obj(), "created": now_iso()}, separators=(",", ":")) + "\n"
    with path.open("a+b") as handle:
        fcntl.flock(handle.fileno(), fcntl.LOCK_EX)  # shards append side by side
        if request not in read_requests(model_dir):
            handle.write(line.encode("ascii"))
            handle.flush()
            os.fsync(handle.fileno())


def read_requests(model_dir: Path) -> list[RunRequest]:
    """Every request logged for a model folder (empty for records older than the log)."""
    path = model_dir / "records" / REQUESTS_NAME
    if not path.is_file():
        return []
    requests = []
    rows_read = 0
    for number, obj in iter_lines(path, inside=model_dir):
        try:
            check(obj, REQUEST_SHAPE, f"{path}: line {number}")
        except RecordError as error:
            raise RecordsError(f"{error}; the file is corrupt") from None
        rows_read += len(obj["rows"])
        if rows_read > MAX_REQUESTED_ROWS:
            raise RecordsError(f"{path}: line {number}: more than {MAX_REQUESTED_ROWS:,} rows requested in all")
        if len(obj["rows"]) * obj["runs"] > MAX_REQUESTED_EPISODES:
            raise RecordsError(
                f"{path}: line {number}: {len(obj['rows']):,} rows x {obj['runs']} runs asks for more than "
                f"{MAX_REQUESTED_EPISODES:,} episodes"
            )
        shard = obj.get("shard")
        rows = tuple((row_id, task, difficulty) for row_id, task, difficulty in obj["rows"])
        requests.append(RunRequest(tuple(obj["variants"]), obj["runs"], rows, (shard[0], shard[1]) if shard else None))
    asked = sum(len(expected.rows) * expected.runs for expected in expected_work(requests).values())
    if asked > MAX_FOLDER_EPISODES:
        raise RecordsError(f"{path}: the requests add up to {asked:,} episodes, more than {MAX_FOLDER_EPISODES:,}")
    return requests


@dataclass(frozen=True, slots=True)
class Expected:
    """What the requests of a folder add up to for one protocol variant."""

    rows: Mapping[str, tuple[str, str]]
    """id -> ``(task, difficulty)`` of every instance asked for."""
    runs: int
    missing_shards: tuple[tuple[int, int], ...] = ()
    """``(i, N)`` shards some request of this variant implies but none ran."""


def expected_work(requests: Sequence[RunRequest]) -> dict[str, Expected]:
    """Per variant: the union of instances asked for, the most runs asked for, shards never started."""
    rows: dict[str, dict[str, tuple[str, str]]] = {}
    runs: dict[str, int] = {}
    shards: dict[str, dict[int, set[int]]] = {}
    for request in requests:
        for variant in request.variants:
            rows.setdefault(variant, {}).update((row_id, (task, level)) for row_id, task, level in request.rows)
            runs[variant] = max(runs.get(variant, 0), request.runs)
            if request.shard is not None:
                index, count = request.shard
                shards.setdefault(variant, {}).setdefault(count, set()).add(index)
    return {
        variant: Expected(
            rows[variant],
            runs[variant],
            tuple((i, n) for n, seen in sorted(shards.get(variant, {}).items()) for i in range(n) if i not in seen),
        )
        for variant in rows
    }


# ---------------------------------------------------------------- merging shards


@dataclass(frozen=True, slots=True)
class MergeReport:
    """What ``merge_shards`` did for one (variant, run)."""

    target: Path
    files: int
    episodes: int
    errors: int
    missing_shards: tuple[int, ...]


def merge_shards(model_dir: Path) -> list[MergeReport]:
    """Join every (variant, run)'s shard files into its ``run-<k>.jsonl``.

    The merged file holds the header of the first shard and, per key, the final line
    (error-free wins); it replaces an older merged file atomically. Shard files are
    kept (rerunning merge is idempotent). Headers must agree on ``HEADER_MUST_MATCH``.
    """
    reports = []
    records_root = model_dir / "records"
    if not records_root.is_dir():
        raise RecordsError(f"no records under {model_dir}; run `vgau-data run --out ...` first")
    for variant_dir in sorted(p for p in records_root.iterdir() if p.is_dir()):
        runs = sorted({n.run for p in variant_dir.glob("run-*.jsonl") if (n := parse_records_name(p)) is not None})
        for run in runs:
            reports.append(_merge_run(variant_dir, run))
    return reports


def _merge_run(variant_dir: Path, run: int) -> MergeReport:
    target = variant_dir / f"run-{run}.jsonl"
    files = [p for p in sorted(variant_dir.glob(f"run-{run}*.jsonl")) if (n := parse_records_name(p)) and n.run == run]
    header: dict[str, Any] | None = None
    episodes: list[dict[str, Any]] = []
    shard_counts: set[int] = set()
    shard_indexes: set[int] = set()
    for path in files:
        name = parse_records_name(path)
        if name is not None and name.shard is not None:
            shard_indexes.add(name.shard[0])
            shard_counts.add(name.shard[1])
        file_header, file_episodes = read_records(path, inside=variant_dir.parents[1])
        if file_header is None:
            raise RecordsError(f"{path} has no header line; cannot merge it")
        if header is None:
            header = file_header
        else:
            for field_name in HEADER_MUST_MATCH:
                if header.get(field_name) != file_header.get(field_name):
                    raise RecordsError(
                        f"{path} differs from {files[0]} in {field_name}; these shards are from different runs"
                    )
        episodes.extend(file_episodes)
    if len(shard_counts) > 1:
        raise RecordsError(f"{variant_dir}: run {run} has shards of different counts {sorted(shard_counts)}")
    missing = tuple(sorted(set(range(next(iter(shard_counts)))) - shard_indexes)) if shard_counts else ()
    final = final_records(episodes)
    merged_header = {**(header or {}), "merged_from": [p.name for p in files], "merged": now_iso()}
    merged_header.get("selection", {}).pop("shard", None)
    with safe_io.atomic_writer(target) as handle:
        for obj in (merged_header, *final.values()):
            handle.write(json.dumps(obj, ensure_ascii=True, separators=(",", ":")).encode("ascii") + b"\n")
    errors = sum(1 for e in final.values() if e.get("error") is not None)
    return MergeReport(target, len(files), len(final), errors, missing)
