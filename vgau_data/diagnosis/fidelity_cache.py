"""Generation fidelity of a run's images, computed once and cached beside the records.

``measure(entries, cache_path)`` scores every generated or substituted image (an
``ImageEntry``: the PNG file, its family, what it was made for and the true state it
should show) with ``vgau_data.fidelity.image_fidelity``: cell agreement, exact state,
SSIM against the oracle image and, for a self-VR drawing on maze, sokoban or path, the
red route read and replayed. With an ``Lpips`` scorer (``vgau_data.runners.perceptual``,
torch) it adds LPIPS against the oracle image, recorded with the weights' sha256.

The cache is an append-only JSONL file. A line is keyed by the image's sha256 *and* the
truth it is judged against, since one file can stand for two truths (a mismatch
substitute is another instance's oracle image). Lines are written in small batches,
flushed and fsynced, so a killed diagnose loses at most a batch and a rerun computes
only what is missing; identical images (an oracle image in every run) are measured once.

The cache lives in a run folder, which may come from anyone, so a line is used only when
it was sealed by this machine (``vgau_data.signing``), holds measures of the right types
and ranges (``LINE_SHAPE``), was made by this version of the measures
(``MEASURES_VERSION``) and names the image and truth of the entry asking for it, and only
while the image file still hashes to that sha256. Anything else (a forged agreement, a
string where a number belongs, a line from another machine) is ignored and measured
again; a count of ignored lines is reported.

Images come from models, so reading one is bounded: a regular file inside the model
folder, at most ``MAX_IMAGE_BYTES`` on disk, a PNG, WebP or JPEG of at most
``MAX_IMAGE_PIXELS`` (``vgau_data.image_gate``), and its bytes must hash to the sha256 it
is filed under. An image that cannot be read is reported, never cached (a later run may find it).
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import logging
import os
import sys
from collections.abc import Iterator, Mapping, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

from vgau_data import image_gate, safe_io, safe_json, signing
from vgau_data.errors import InputFileError, VgauError
from vgau_data.fidelity import image_fidelity
from vgau_data.fidelity.routes import READING_VERSION
from vgau_data.oracle_aids import PURPOSES, oracle_image
from vgau_data.registry import get_family
from vgau_data.schema import BOOL, Choice, Int, Nullable, Num, Obj, Shape, Str

if TYPE_CHECKING:
    from PIL import Image
    from typing_extensions import Self

    from vgau_data.runners.perceptual import Lpips

logger = logging.getLogger(__name__)

CACHE_NAME: Final = "fidelity.jsonl"
"""The cache's file name inside a model folder."""
MAX_IMAGE_BYTES: Final = 64 * 1024 * 1024
MAX_IMAGE_PIXELS: Final = 16 * 1024 * 1024
BATCH: Final = 16
"""Images measured (and LPIPS-batched) between two writes of the cache."""
MAX_CACHE_BYTES: Final = 256 * 1024 * 1024
MAX_CACHE_LINE: Final = 64 * 1024
MEASURES_VERSION: Final = 1
"""Bumped whenever a measure changes: lines of another version are measured again."""
_SHA: Final = Str(min_len=64, max_len=64)
LINE_SHAPE: Shape = Obj(
    required={"key": _SHA, "measures": Int(MEASURES_VERSION, MEASURES_VERSION), "seal": _SHA},
    optional={
        "image": _SHA, "family": Str(max_len=40), "purpose": Choice(tuple(PURPOSES)),
        "cell_agreement": Num(0, 1), "cells_exact": BOOL, "ssim": Num(-1, 1),
        "route_cells": Int(0, 10_000), "route_length": Nullable(Int(0, 10_000)), "route_feasible": BOOL,
        "route_error": Nullable(Str(max_len=200)), "route_ambiguous": BOOL,
        "lpips": Num(0, 100), "lpips_trunk_sha256": _SHA, "lpips_heads_sha256": _SHA,
    },
    closed=True,
)  # fmt: skip
"""A cache line: its key, version and seal, and the measures it holds."""


class FidelityError(VgauError, RuntimeError):
    """The fidelity cache cannot be used (another diagnose holds it, or it is corrupt)."""


@dataclass(frozen=True, slots=True)
class ImageEntry:
    """One generated or substituted image and the truth it should show.

    ``state`` is the true state's JSON: the initial state for ``aid`` and ``vr``, the
    state after the step for ``next_state``.
    """

    path: Path
    sha256: str
    family: str
    purpose: str
    state: str
    root: Path | None = field(default=None, compare=False)
    """The model folder the file must lie inside (None: any regular file)."""

    def __post_init__(self) -> None:
        if self.purpose not in PURPOSES:
            raise ValueError(f"unknown image purpose {self.purpose!r}; choose from {', '.join(PURPOSES)}")

    @property
    def key(self) -> str:
        """The cache key: the image's bytes and the truth it is judged against (for a self-VR
        drawing also the route reader's version: a reading made by older rules is not reused)."""
        truth = f"{self.sha256}\n{self.family}\n{self.purpose}\n{self.state}"
        if self.purpose == "vr":
            truth += f"\nroutes-{READING_VERSION}"
        return hashlib.sha256(truth.encode("utf-8")).hexdigest()


@dataclass(slots=True)
class Measured:
    """What ``measure`` found: per entry key, the merged measures; per unreadable key, why."""

    records: dict[str, dict[str, Any]] = field(default_factory=dict)
    problems: dict[str, str] = field(default_factory=dict)
    computed: int = 0
    """Entries measured in this call (the rest came from the cache)."""
    ignored: int = 0
    """Cache lines not used: unsealed, malformed, of another measures version or another image."""
    lpips: dict[str, Any] | None = None
    """``Lpips.describe()`` of the scorer used, when one was given."""


def load_image(entry: ImageEntry) -> Image.Image:
    """The entry's image as RGB, read through ``image_gate`` and checked against its sha256.

    Raises:
        OSError, InputFileError, ImageRejected: missing, special, oversized, corrupt or
            altered files (the message says which).
    """
    data, image = image_gate.read_file(entry.path, inside=entry.root, at=f"{entry.path}", max_bytes=MAX_IMAGE_BYTES,
                                       max_pixels=MAX_IMAGE_PIXELS)  # fmt: skip
    if hashlib.sha256(data).hexdigest() != entry.sha256:
        raise OSError(f"{entry.path}: its bytes do not hash to {entry.sha256[:16]}..., so it is not the image recorded")
    return image


def file_matches(entry: ImageEntry) -> bool:
    """Whether the entry's file is still there, a regular file, and hashes to its sha256."""
    try:
        data = safe_io.read_bytes(entry.path, limit=MAX_IMAGE_BYTES, inside=entry.root, what="image")
    except InputFileError:
        return False
    return hashlib.sha256(data).hexdigest() == entry.sha256


def _truth(entry: ImageEntry) -> tuple[Any, Any, Image.Image]:
    """The entry's family, true state and oracle image."""
    family = get_family(entry.family)
    state = family.from_json(entry.state)
    return family, state, oracle_image(family, state, entry.purpose)  # type: ignore[arg-type]


def measure_one(entry: ImageEntry) -> tuple[str, dict[str, Any] | None, str | None]:
    """``(key, measures, None)`` for one entry, or ``(key, None, why)`` when it cannot be measured."""
    try:
        image = load_image(entry)
        family, state, oracle = _truth(entry)
        return entry.key, image_fidelity(family, image, state, entry.purpose, oracle), None  # type: ignore[arg-type]
    except (OSError, VgauError, ValueError) as error:
        return entry.key, None, f"{type(error).__name__}: {error}"


class FidelityCache:
    """The append-only cache file of one model folder, locked while open; only lines that
    pass ``usable`` are kept in ``records``.

    Raises:
        FidelityError: another process holds the file, or it is not a regular file of the folder.
    """

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        try:
            if self.path.exists() or self.path.is_symlink():
                safe_io.checked_path(self.path, inside=self.path.parent, what="fidelity cache")
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o644)
        except (InputFileError, OSError) as error:
            raise FidelityError(f"{error}; delete it to measure again") from None
        self._handle = os.fdopen(fd, "r+b")
        try:
            fcntl.flock(self._handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            self._handle.close()
            raise FidelityError(f"{self.path} is being written by another `vgau-data diagnose`; wait for it") from None
        self.records: dict[str, dict[str, Any]] = {}
        self.ignored = 0
        self._read()

    def _read(self) -> None:
        size = os.fstat(self._handle.fileno()).st_size
        if size > MAX_CACHE_BYTES:
            self.close()
            raise FidelityError(f"{self.path}: {size:,} bytes, over the {MAX_CACHE_BYTES:,} a cache may have; delete it")
        self._handle.seek(0)
        end = 0
        while line := self._handle.readline(MAX_CACHE_LINE + 1):
            if not line.endswith(b"\n"):  # a torn last line from a killed run, or a line too long to be ours
                break
            end += len(line)
            self._take(line)
        if end != size:
            logger.warning("%s: cutting a torn last line of %d bytes", self.path, size - end)
            self._handle.truncate(end)

    def _take(self, raw: bytes) -> None:
        if not raw.strip():
            return
        try:
            line = safe_json.loads(raw, str(self.path))
        except safe_json.JsonInputError:
            self.ignored += 1
            return
        if LINE_SHAPE.problem(line, "") is not None or not signing.is_sealed(line):
            self.ignored += 1
            return
        measures = {k: v for k, v in line.items() if k not in ("key", "seal", "measures")}
        self.records.setdefault(line["key"], {}).update(measures)

    def usable(self, entry: ImageEntry) -> dict[str, Any] | None:
        """The cached measures of ``entry`` if they describe its image and truth (else None)."""
        record = self.records.get(entry.key)
        if record is None or "cell_agreement" not in record:
            return record
        if (record.get("image"), record.get("family"), record.get("purpose")) != (entry.sha256, entry.family, entry.purpose):
            return None
        return record

    def has_lpips(self, key: str, model: Mapping[str, Any]) -> bool:
        record = self.records.get(key, {})
        return "lpips" in record and all(record.get(f"lpips_{k}") == model[k] for k in ("trunk_sha256", "heads_sha256"))

    def append(self, lines: Sequence[dict[str, Any]]) -> None:
        """Write ``lines`` (each with its ``key``), sealed, and make them durable."""
        if not lines:
            return
        sealed = []
        for line in lines:
            content = {**safe_json.sanitized(line), "measures": MEASURES_VERSION}
            sealed.append({**content, "seal": signing.seal(content)})
        payload = b"".join(
            json.dumps(line, separators=(",", ":"), sort_keys=True, allow_nan=False).encode("ascii") + b"\n"
            for line in sealed
        )
        self._handle.seek(0, os.SEEK_END)
        self._handle.write(payload)
        self._handle.flush()
        os.fsync(self._handle.fileno())
        for line in sealed:
            self.records.setdefault(line["key"], {}).update(
                {k: v for k, v in line.items() if k not in ("key", "seal", "measures")}
            )

    def close(self) -> None:
        if not self._handle.closed:
            fcntl.flock(self._handle.fileno(), fcntl.LOCK_UN)
            self._handle.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()


def _batches(items: Sequence[ImageEntry], size: int) -> Iterator[Sequence[ImageEntry]]:
    for start in range(0, len(items), size):
        yield items[start : start + size]


def measure(
    entries: Sequence[ImageEntry],
    cache_path: Path,
    *,
    lpips: Lpips | None = None,
    workers: int = 1,
    progress: bool = True,
    desc: str = "fidelity",
) -> Measured:
    """Measure every entry not yet in the cache at ``cache_path``; return all entries' measures.

    Args:
        entries: the images (duplicates by key are measured once).
        cache_path: the JSONL cache (created if absent).
        lpips: also compute LPIPS against the oracle image with this scorer.
        workers: processes for the cell and SSIM measures (LPIPS runs in this process).
        progress: show a progress bar on stderr.
        desc: the bar's label.
    """
    from tqdm import tqdm

    unique = list({entry.key: entry for entry in entries}.values())
    result = Measured(lpips=lpips.describe() if lpips is not None else None)
    with FidelityCache(cache_path) as cache:
        result.ignored = cache.ignored
        for entry in unique:  # a cached measure counts only for the image it was made of
            if entry.key in cache.records and (cache.usable(entry) is None or not file_matches(entry)):
                cache.records.pop(entry.key)
        todo = [
            e for e in unique
            if e.key not in cache.records or "cell_agreement" not in cache.records[e.key]
            or (result.lpips is not None and not cache.has_lpips(e.key, result.lpips))
        ]  # fmt: skip
        bar = tqdm(total=len(todo), desc=desc, unit="img", disable=not progress or not todo, file=sys.stderr,
                   dynamic_ncols=True)  # fmt: skip
        pool = ProcessPoolExecutor(workers) if workers > 1 and len(todo) > BATCH else None
        try:
            for batch in _batches(todo, BATCH):
                lines = _measure_batch(batch, cache, result, lpips, pool)
                cache.append(lines)
                result.computed += sum(1 for line in lines if "cell_agreement" in line)
                bar.update(len(batch))
        finally:
            bar.close()
            if pool is not None:
                pool.shutdown(cancel_futures=True)
        for entry in unique:
            record = cache.usable(entry)
            if record is not None and "cell_agreement" in record and entry.key not in result.problems:
                result.records[entry.key] = dict(record)
    return result


def _measure_batch(
    batch: Sequence[ImageEntry],
    cache: FidelityCache,
    result: Measured,
    lpips: Lpips | None,
    pool: ProcessPoolExecutor | None,
) -> list[dict[str, Any]]:
    """Cache lines for one batch: cell and SSIM measures where missing, then LPIPS where missing."""
    lines: list[dict[str, Any]] = []
    by_key = {entry.key: entry for entry in batch}
    core = [e for e in batch if "cell_agreement" not in cache.records.get(e.key, {})]
    for key, measures, problem in pool.map(measure_one, core) if pool is not None else map(measure_one, core):
        entry = by_key[key]
        if problem is not None:
            result.problems[key] = problem
            continue
        lines.append({"key": key, "image": entry.sha256, "family": entry.family, "purpose": entry.purpose, **measures})
    if lpips is not None and result.lpips is not None:
        pending = [e for e in batch if e.key not in result.problems and not cache.has_lpips(e.key, result.lpips)]
        images, oracles, keys = [], [], []
        for entry in pending:
            try:
                image, (_, _, oracle) = load_image(entry), _truth(entry)
            except (OSError, VgauError, ValueError) as error:
                result.problems[entry.key] = f"{type(error).__name__}: {error}"
                continue
            images.append(image)
            oracles.append(oracle)
            keys.append(entry.key)
        for key, value in zip(keys, lpips.distances(images, oracles) if keys else []):
            lines.append({"key": key, "lpips": value, "lpips_trunk_sha256": result.lpips["trunk_sha256"],
                          "lpips_heads_sha256": result.lpips["heads_sha256"]})  # fmt: skip
    return lines
