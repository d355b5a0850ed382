"""Build the stratified dataset into a local folder in the Hub layout.

Rows are produced by worker processes in any order, then deduplicated and written in a
fixed order, so the bytes depend only on the master seed, never on ``workers``.

The folder appears whole or not at all: everything is written into a hidden staging
folder beside ``out_dir`` (``.NAME.partial-*``) and renamed into place at the end, so a
killed build never leaves a folder that loaders would read as a (smaller) dataset. An
existing build is replaced whole, and only when it has the same seed and families,
unless ``replace=True``: a folder never mixes two builds.
"""

from __future__ import annotations

import dataclasses
import multiprocessing
import os
import re
import secrets
import shutil
import time
from collections import defaultdict
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from vgau_data import safe_io
from vgau_data.builders import structure
from vgau_data.builders.hub_folder import parquet_path, write_parquet, write_readme
from vgau_data.builders.instances import RowTask, make_row
from vgau_data.errors import DatasetError, GenerationError
from vgau_data.puzzles.base import BUCKET_SIZES, DIFFICULTIES
from vgau_data.registry import FAMILIES, get_family

MAX_DEDUP_ROUNDS = 20
MAX_CARD_BYTES = 16 * 1024 * 1024
"""Largest card of an existing build folder read (for its seed); ours are a few kilobytes."""
_CARD_SEED = re.compile(r"master seed (\d+)")
"""How the dataset card states the seed (``dataset_card.md``)."""


@dataclass(frozen=True, kw_only=True)
class BuildConfig:
    """What to build: which families, how many rows per bucket, from which master seed."""

    out_dir: Path
    seed: int = 0
    families: tuple[str, ...] = tuple(FAMILIES)
    counts: Mapping[str, int] = field(default_factory=lambda: dict(BUCKET_SIZES))
    workers: int = 1
    progress: bool = True
    replace: bool = False

    def __post_init__(self) -> None:
        object.__setattr__(self, "families", tuple(get_family(f).name for f in self.families))
        if not self.families:
            raise ValueError("families is empty; name at least one of " + ", ".join(FAMILIES))
        if unknown := set(self.counts) - set(DIFFICULTIES):
            raise ValueError(f"counts has unknown difficulties {sorted(unknown)}; use {list(DIFFICULTIES)}")
        if any(n < 0 for n in self.counts.values()):
            raise ValueError(f"counts must be >= 0, got {dict(self.counts)}")
        if self.workers < 1:
            raise ValueError(f"workers must be >= 1, got {self.workers}")
        if self.seed < 0:
            raise ValueError(f"seed must be >= 0, got {self.seed}")


@dataclass
class BuildReport:
    """What a build produced: lengths per family x bucket and where the time went."""

    out_dir: Path
    lengths: dict[tuple[str, str], list[int]]
    family_seconds: dict[str, float]
    wall_seconds: float
    duplicates_replaced: int

    def summary_rows(self) -> list[tuple[str, str, int, str, str]]:
        """(family, difficulty, rows, bucket, achieved range) in registry order."""
        rows = []
        for family in FAMILIES:
            for difficulty in DIFFICULTIES:
                values = self.lengths.get((family, difficulty))
                if values:
                    low, high = FAMILIES[family].buckets[difficulty]
                    rows.append((family, difficulty, len(values), f"{low}-{high}", f"{min(values)}-{max(values)}"))
        return rows


def _timed_row(task: RowTask) -> tuple[RowTask, dict[str, Any], float]:
    start = time.perf_counter()
    row = make_row(task)
    return task, row, time.perf_counter() - start


def _cost_order(task: RowTask) -> tuple[int, float]:
    """Slow rows first, so the pool does not end waiting on one long task."""
    return (-DIFFICULTIES.index(task.difficulty), -FAMILIES[task.family].generation_weight)


def _run_tasks(tasks: Sequence[RowTask], workers: int) -> Iterator[tuple[RowTask, dict[str, Any], float]]:
    ordered = sorted(tasks, key=_cost_order)
    if workers == 1 or len(ordered) == 1:
        yield from map(_timed_row, ordered)
        return
    with multiprocessing.get_context("spawn").Pool(workers) as pool:
        yield from pool.imap_unordered(_timed_row, ordered, chunksize=1)


def _progress_bars(config: BuildConfig) -> dict[str, Any]:
    from tqdm.auto import tqdm

    total = sum(config.counts.values())
    return {
        family: tqdm(total=total, desc=f"{family:<8}", unit="row", position=i, disable=not config.progress, leave=True)
        for i, family in enumerate(config.families)
    }


def build_dataset(
    out_dir: str | Path,
    *,
    seed: int = 0,
    families: Iterable[str] | None = None,
    counts: Mapping[str, int] | None = None,
    workers: int = 1,
    progress: bool = True,
    replace: bool = False,
) -> BuildReport:
    """Generate, verify, render and write the dataset; return what was built.

    ``out_dir`` must be new, empty, or a build of the same seed and families (it is
    replaced whole); ``replace=True`` replaces a build of other settings too.

    Raises:
        DatasetError: ``out_dir`` is a file, a folder that is not a build, or a build of
            another seed or other families (without ``replace``); or ``counts`` asks for
            no rows at all.

    Example (kept small; the real build is 100 rows per family):
        >>> import tempfile
        >>> report = build_dataset(tempfile.mkdtemp(), families=["maze"],
        ...                        counts={"easy": 1, "medium": 0, "hard": 0}, progress=False)
        >>> report.lengths[("maze", "easy")][0] <= 6
        True
    """
    config = BuildConfig(
        out_dir=Path(out_dir),
        seed=seed,
        families=tuple(families) if families is not None else tuple(FAMILIES),
        counts=dict(counts) if counts is not None else dict(BUCKET_SIZES),
        workers=workers,
        progress=progress,
        replace=replace,
    )
    if not config.families or not any(config.counts.get(difficulty, 0) > 0 for difficulty in DIFFICULTIES):
        raise DatasetError(f"nothing to build: counts {config.counts} ask for no rows; give at least one a count of 1")
    check_destination(config)
    start = time.perf_counter()
    pending = [
        RowTask(family, difficulty, index, config.seed)
        for family in config.families
        for difficulty in DIFFICULTIES
        for index in range(config.counts.get(difficulty, 0))
    ]
    accepted: dict[tuple[str, str, int], dict[str, Any]] = {}
    seen_states: dict[str, set[str]] = defaultdict(set)
    family_seconds: dict[str, float] = defaultdict(float)
    replaced = 0
    bars = _progress_bars(config)
    try:
        for _ in range(MAX_DEDUP_ROUNDS):
            if not pending:
                break
            results: dict[RowTask, dict[str, Any]] = {}
            for task, row, seconds in _run_tasks(pending, config.workers):
                results[task] = row
                family_seconds[task.family] += seconds
                bars[task.family].update(1)
            retry = []
            for task in pending:  # deterministic order: family, difficulty, index
                row = results[task]
                if row["state"] in seen_states[task.family]:
                    retry.append(dataclasses.replace(task, attempt=task.attempt + 1))
                    bars[task.family].total += 1  # the duplicate is made again
                    continue
                seen_states[task.family].add(row["state"])
                accepted[(task.family, task.difficulty, task.index)] = row
            replaced += len(retry)
            pending = retry
        if pending:
            raise GenerationError(f"{len(pending)} rows still duplicate after {MAX_DEDUP_ROUNDS} rounds: {pending[:3]}")
    finally:
        for bar in bars.values():
            bar.close()
    lengths: dict[tuple[str, str], list[int]] = defaultdict(list)
    measured = []
    with staging_folder(config.out_dir) as staging:
        for family in config.families:
            keys = sorted(accepted, key=lambda k: (DIFFICULTIES.index(k[1]), k[2]))
            rows = [accepted[key] for key in keys if key[0] == family]
            for row in rows:
                lengths[(family, row["difficulty"])].append(row["optimal_length"])
                measures = structure.measure_row(row)  # None: the family declares no structure statistics
                if measures is not None:
                    measured.append((family, row["difficulty"], measures))
            write_parquet(rows, parquet_path(staging, family))
        compared = structure.compare(structure.bucket_means(measured))
        validation = structure.markdown_table(compared) if compared else ""
        write_readme(staging, lengths, config.seed, validation_table=validation)
    return BuildReport(
        out_dir=config.out_dir,
        lengths=dict(lengths),
        family_seconds=dict(family_seconds),
        wall_seconds=time.perf_counter() - start,
        duplicates_replaced=replaced,
    )


# ---------------------------------------------------------------- the destination, written whole


def built_settings(folder: Path) -> tuple[int | None, tuple[str, ...]] | None:
    """``(seed, families)`` of a build folder (seed None when its card does not say), or None
    when ``folder`` holds anything but ``README.md`` and family folders of Parquet files."""
    families = []
    for entry in folder.iterdir():
        if entry.name == "README.md" and entry.is_file():
            continue
        if entry.name not in FAMILIES or not entry.is_dir() or any(
            not part.name.startswith("test-") for part in entry.iterdir()
        ):
            return None
        families.append(entry.name)
    card = folder / "README.md"
    if not card.is_file():
        return None, tuple(f for f in FAMILIES if f in families)
    text = safe_io.read_bytes(card, limit=MAX_CARD_BYTES, inside=folder, what="card").decode("utf-8", "replace")
    found = _CARD_SEED.search(text)
    return (int(found.group(1)) if found else None), tuple(f for f in FAMILIES if f in families)


def check_destination(config: BuildConfig) -> None:
    """Refuse an ``out_dir`` the build would clobber or mix with (see ``build_dataset``)."""
    out = config.out_dir
    settings = _replaceable(out)
    if settings is None:
        return
    seed, families = settings
    if (seed, families) != (config.seed, tuple(f for f in FAMILIES if f in config.families)) and not config.replace:
        what = f"seed {seed}" if seed is not None else "an unfinished build (no README.md)"
        raise DatasetError(
            f"--out {str(out)!r} holds {what} of {', '.join(families) or 'no families'}; this build is seed "
            f"{config.seed} of {', '.join(config.families)}, and a folder never mixes builds: pass --replace to "
            "replace it whole, or choose another --out"
        )


def _replaceable(out: Path) -> tuple[int | None, tuple[str, ...]] | None:
    """``built_settings`` of ``out``, None when it is absent or empty; raises when it is anything but a build."""
    if out.exists() and not out.is_dir():
        raise DatasetError(f"--out {str(out)!r} is a file; choose a folder")
    if not out.is_dir() or not any(out.iterdir()):
        return None
    settings = built_settings(out)
    if settings is None:
        raise DatasetError(f"--out {str(out)!r} holds files that are not a vgau-data build; choose a new or empty folder")
    return settings


@contextmanager
def staging_folder(out: Path) -> Iterator[Path]:
    """A hidden folder beside ``out`` to write into: it replaces ``out`` whole when the block
    ends, and is removed if the block raises. Staging folders of killed builds go first.

    Raises:
        DatasetError: ``out`` is a file, or a folder holding anything but a build.
    """
    _replaceable(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    _remove_abandoned(out)
    staging = _sibling_folder(out, "partial")
    try:
        yield staging
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    if out.exists():
        old = _sibling_folder(out, "old")
        os.replace(out, old / out.name)
        os.replace(staging, out)
        shutil.rmtree(old, ignore_errors=True)
    else:
        os.replace(staging, out)


def _sibling_folder(out: Path, kind: str) -> Path:
    """A new folder ``.NAME.<kind>-<pid>-<random>`` beside ``out``, with the permissions of the user's umask.

    (``tempfile.mkdtemp`` makes mode 700 folders: moved into place, the build would be
    unreadable to other users of a shared machine.)
    """
    while True:
        folder = out.parent / f".{out.name}.{kind}-{os.getpid()}-{secrets.token_hex(4)}"
        try:
            folder.mkdir()
        except FileExistsError:
            continue
        return folder


def _remove_abandoned(out: Path) -> None:
    for leftover in out.parent.glob(f".{out.name}.*-*-*"):
        kind, _, rest = leftover.name[len(out.name) + 2 :].partition("-")
        pid = rest.split("-", 1)[0]
        if kind in ("partial", "old") and pid.isdigit() and not _alive(int(pid)):
            shutil.rmtree(leftover, ignore_errors=True)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True
