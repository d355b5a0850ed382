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

Images come from models, so reading one is bounded: at most ``MAX_IMAGE_BYTES`` on disk
and ``MAX_IMAGE_PIXELS`` decoded, and its bytes must hash to the sha256 it is filed under.
An image that cannot be read is reported, never cached (a later run may find it).
"""

from __future__ import annotations

import fcntl
import hashlib
import io
import json
import logging
import os
import sys
from collections.abc import Iterator, Mapping, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

from PIL import Image

from vgau_data.errors import VgauError
from vgau_data.fidelity import image_fidelity
from vgau_data.oracle_aids import PURPOSES, oracle_image
from vgau_data.registry import get_family

if TYPE_CHECKING:
    from typing_extensions import Self

    from vgau_data.runners.perceptual import Lpips

logger = logging.getLogger(__name__)

CACHE_NAME: Final = "fidelity.jsonl"
"""The cache's file name inside a model folder."""
MAX_IMAGE_BYTES: Final = 64 * 1024 * 1024
MAX_IMAGE_PIXELS: Final = 16 * 1024 * 1024
BATCH: Final = 16
"""Images measured (and LPIPS-batched) between two writes of the cache."""


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

    def __post_init__(self) -> None:
        if self.purpose not in PURPOSES:
            raise ValueError(f"unknown image purpose {self.purpose!r}; choose from {', '.join(PURPOSES)}")

    @property
    def key(self) -> str:
        """The cache key: the image's bytes and the truth it is judged against."""
        truth = f"{self.sha256}\n{self.family}\n{self.purpose}\n{self.state}"
        return hashlib.sha256(truth.encode("utf-8")).hexdigest()


@dataclass(slots=True)
class Measured:
    """What ``measure`` found: per entry key, the merged measures; per unreadable key, why."""

    records: dict[str, dict[str, Any]] = field(default_factory=dict)
    problems: dict[str, str] = field(default_factory=dict)
    computed: int = 0
    """Entries measured in this call (the rest came from the cache)."""
    lpips: dict[str, Any] | None = None
    """``Lpips.describe()`` of the scorer used, when one was given."""


def load_image(entry: ImageEntry) -> Image.Image:
    """The entry's image as RGB, read within the size bounds and checked against its sha256.

    Raises:
        OSError: missing, oversized, corrupt or altered files (the message says which).
    """
    size = entry.path.stat().st_size
    if size > MAX_IMAGE_BYTES:
        raise OSError(f"{entry.path}: {size} bytes, more than the {MAX_IMAGE_BYTES} an image may have")
    data = entry.path.read_bytes()
    if hashlib.sha256(data).hexdigest() != entry.sha256:
        raise OSError(f"{entry.path}: its bytes do not hash to {entry.sha256[:16]}..., so it is not the image recorded")
    try:
        with Image.open(io.BytesIO(data)) as image:
            width, height = image.size
            if width * height > MAX_IMAGE_PIXELS:
                raise OSError(f"{entry.path}: {width}x{height} pixels, more than {MAX_IMAGE_PIXELS}")
            return image.convert("RGB")
    except (ValueError, SyntaxError, EOFError, Image.DecompressionBombError) as error:
        raise OSError(f"{entry.path}: not a readable image ({error})") from error


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
    """The append-only cache file of one model folder, locked while open.

    Raises:
        FidelityError: another process holds the file, or a line in its middle is corrupt.
    """

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._handle = self.path.open("a+b")
        try:
            fcntl.flock(self._handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            self._handle.close()
            raise FidelityError(f"{self.path} is being written by another `vgau-data diagnose`; wait for it") from None
        self.records: dict[str, dict[str, Any]] = {}
        self._read()

    def _read(self) -> None:
        self._handle.seek(0)
        data = self._handle.read()
        end = data.rfind(b"\n") + 1
        if end != len(data):  # a torn last line from a killed run: cut it before appending
            logger.warning("%s: cutting a torn last line of %d bytes", self.path, len(data) - end)
            self._handle.truncate(end)
        for number, raw in enumerate(data[:end].split(b"\n"), start=1):
            if not raw.strip():
                continue
            try:
                line = json.loads(raw)
                key = line.pop("key")
            except (ValueError, UnicodeDecodeError, KeyError, AttributeError, TypeError):
                raise FidelityError(
                    f"{self.path}: line {number} is not a cache line; delete the file to recompute"
                ) from None
            self.records.setdefault(str(key), {}).update(line)

    def has_lpips(self, key: str, model: Mapping[str, Any]) -> bool:
        record = self.records.get(key, {})
        return "lpips" in record and all(record.get(f"lpips_{k}") == model[k] for k in ("trunk_sha256", "heads_sha256"))

    def append(self, lines: Sequence[dict[str, Any]]) -> None:
        """Write ``lines`` (each with its ``key``) and make them durable."""
        if not lines:
            return
        payload = b"".join(
            json.dumps(line, separators=(",", ":"), sort_keys=True).encode("ascii") + b"\n" for line in lines
        )
        self._handle.seek(0, os.SEEK_END)
        self._handle.write(payload)
        self._handle.flush()
        os.fsync(self._handle.fileno())
        for line in lines:
            self.records.setdefault(line["key"], {}).update({k: v for k, v in line.items() if k != "key"})

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
            if entry.key in cache.records and entry.key not in result.problems:
                result.records[entry.key] = dict(cache.records[entry.key])
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
