"""``vgau-data generate``: decontaminated training splits of any size, resumable, on any engine.

For each family and band the driver reads catalog chunks (``catalog.build_chunk``) in
candidate order and keeps the first ``n`` candidates whose key is new in the split and
whose trajectory meets no test state; then it cuts the kept rows into shards of
``shard_rows`` and has them rendered (``shards.build_shard``). Both task functions are
pure and write their files whole, so the output depends on the arguments alone, not on
the engine, the workers or the order tasks finish in; a rerun after ``kill -9`` verifies
every file the manifest lists by sha256 and makes only the rest. Memory: a worker holds
one chunk or shard; the driver holds 8 bytes a kept key and 8 bytes a kept row.
"""

from __future__ import annotations

import itertools
import math
import os
import shutil
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

import numpy as np

from vgau_data import safe_io
from vgau_data.errors import DatasetError, VgauError
from vgau_data.registry import FAMILIES, get_family
from vgau_data.training.bands import Band, band_lengths
from vgau_data.training.catalog import (
    BANNED,
    CATALOG_DIR,
    FAILED,
    OK,
    BandTally,
    ChunkSummary,
    ChunkTask,
    KeySet,
    build_chunk,
    read_summary,
)
from vgau_data.training.engines import ENGINES, Engine, make_engine
from vgau_data.training.manifest import (
    LOCK,
    MANIFEST,
    PARTIAL_DIR,
    Manifest,
    folder_lock,
    part_name,
    versions,
    write_card,
)
from vgau_data.training.shards import PROMPT_PROTOCOLS, RowOptions, ShardResult, ShardTask, build_shard, split_rows
from vgau_data.training.traces import get_trace_kind

OOD_SPLIT: Final = "validation_ood"
"""The split drawn in the held-out render style (``render_styles.OOD_STYLE``) that no training row uses."""
SPLITS: Final = ("train", "validation", OOD_SPLIT)
CHUNK_ROWS: Final = 256
"""Candidates per catalog chunk (fewer for a small ``n``); the rows kept do not depend on it."""
MAX_DRAWS_PER_ROW: Final = 4
"""A band that has not given ``n`` distinct rows after ``4 n`` draws (plus two chunks) is refused."""
MIN_YIELD: Final = 0.05
TASKS_PER_WORKER: Final = 2
"""Tasks kept in flight per worker: enough to keep workers busy, few enough to bound memory."""


@dataclass(frozen=True, kw_only=True)
class GenerateConfig:
    """What ``generate_dataset`` makes (``vgau-data generate``'s arguments)."""

    out_dir: Path
    families: tuple[str, ...]
    split: str = "train"
    n: int = 1000
    bands: tuple[Band, ...] | None = None
    seed: int = 0
    shard_rows: int = 1000
    prompt: str = "text_cot"
    oracle_aid: bool = False
    traces: tuple[str, ...] = ()
    render_variety: bool = False
    """Draw each row in a training style seeded by the row (docs/render-styles.md), never the benchmark's..."""
    benchmark_style: bool = False
    """... unless this is set too. The ``validation_ood`` split is drawn in the held-out style whatever these say."""
    engine: str = "local"
    ray_address: str | None = None
    workers: int | None = 1
    """Worker processes; None: every core (``local``) or every CPU of the Ray cluster (``ray``)."""
    replace: bool = False
    progress: bool = True

    def __post_init__(self) -> None:
        object.__setattr__(self, "families", tuple(dict.fromkeys(get_family(f).name for f in self.families)))
        if not self.families:
            raise VgauError("--families is empty; name at least one of " + ", ".join(FAMILIES))
        checks = [
            (self.split in SPLITS, f"--split must be one of {', '.join(SPLITS)}, got {self.split!r}"),
            (self.n >= 1, f"--n must be >= 1, got {self.n}"),
            (self.shard_rows >= 1, f"--shard-rows must be >= 1, got {self.shard_rows}"),
            (self.seed >= 0, f"--seed must be >= 0, got {self.seed}"),
            (self.workers is None or self.workers >= 1, f"--workers must be >= 1, got {self.workers}"),
            (self.engine in ENGINES, f"--engine must be one of {', '.join(ENGINES)}, got {self.engine!r}"),
            (self.prompt in PROMPT_PROTOCOLS, f"--prompt must be one of {', '.join(PROMPT_PROTOCOLS)}, got {self.prompt!r}"),
            (not self.benchmark_style or self.render_variety, "--benchmark-style needs --render-variety"),
            (self.split != OOD_SPLIT or not self.render_variety,
             f"the {OOD_SPLIT} split is drawn in the held-out style; drop --render-variety"),
        ]
        for ok, message in checks:
            if not ok:
                raise VgauError(message)
        for name in self.traces:
            get_trace_kind(name)
        if self.bands is not None:
            ordered = sorted(self.bands)
            for before, after in itertools.pairwise(ordered):
                if after.low <= before.high:
                    raise VgauError(f"bands {before.name} and {after.name} overlap; give each length to one band")
        for family in self.families:
            for band in self.bands_of(family):
                band_lengths(FAMILIES[family], band)

    def bands_of(self, family: str) -> tuple[Band, ...]:
        """The bands asked for, or the family's three buckets."""
        if self.bands is not None:
            return self.bands
        return tuple(Band(low, high) for low, high in FAMILIES[family].buckets.values())

    @property
    def look(self) -> str:
        """How the rows are drawn (``shards.LOOKS``)."""
        if self.split == OOD_SPLIT:
            return "held_out"
        if self.render_variety:
            return "variety+benchmark" if self.benchmark_style else "variety"
        return "benchmark"

    @property
    def options(self) -> RowOptions:
        return RowOptions(self.prompt, self.oracle_aid, tuple(self.traces), self.look)

    @property
    def chunk_rows(self) -> int:
        return min(CHUNK_ROWS, self.n)

    def arguments(self, family: str) -> dict[str, Any]:
        """What decides a part's bytes (the manifest compares them on a rerun); ``look`` only
        where it is not the benchmark's, so folders made before render styles rerun as they are."""
        arguments = {
            "family": family, "split": self.split, "n": self.n, "bands": [b.name for b in self.bands_of(family)],
            "seed": self.seed, "shard_rows": self.shard_rows, "prompt": self.prompt, "oracle_aid": self.oracle_aid,
            "traces": list(self.traces),
        }
        return arguments if self.look == "benchmark" else arguments | {"look": self.look}


@dataclass
class BandStream:
    """The catalog of one family's band, read in chunk order until ``n`` rows are kept or the band is refused."""

    config: GenerateConfig
    family: str
    band: Band
    finished_chunks: dict[str, str]
    tally: BandTally = field(default_factory=BandTally)
    kept: list[tuple[int, np.ndarray]] = field(default_factory=list)
    next_chunk: int = 0
    next_to_read: int = 0
    ready: dict[int, ChunkSummary] = field(default_factory=dict)
    seen: KeySet = field(default_factory=KeySet)
    done: bool = False
    refusal: str | None = None

    @property
    def name(self) -> str:
        return f"{self.family} {self.band.name}"

    @property
    def catalog_key(self) -> str:
        c = self.config
        return f"{self.family}/{c.split}/seed{c.seed}/c{c.chunk_rows}/{self.band.name}"

    @property
    def catalog_dir(self) -> str:
        return f"{CATALOG_DIR}/{self.catalog_key}"

    def task(self, chunk: int) -> ChunkTask:
        c = self.config
        return ChunkTask(str(c.out_dir), self.family, c.split, self.band, c.seed, chunk, c.chunk_rows, self.catalog_dir)

    def wants_chunk(self) -> bool:
        """More chunks are needed than those already asked for (by the yield so far)."""
        if self.done:
            return False
        rate = max(MIN_YIELD, self.tally.kept / self.tally.draws) if self.tally.draws else 1.0
        pending = self.next_chunk - self.next_to_read
        return self.tally.kept + pending * self.config.chunk_rows * rate < self.config.n

    def receive(self, summary: ChunkSummary) -> None:
        """Take a chunk's summary; read every chunk that is next in order."""
        self.ready[summary.chunk] = summary
        self.finished_chunks[str(summary.chunk)] = summary.sha256
        while not self.done and self.next_to_read in self.ready:
            self._read(self.ready.pop(self.next_to_read))
            self.next_to_read += 1

    def _read(self, summary: ChunkSummary) -> None:
        n, tally = self.config.n, self.tally
        status, keys = summary.status, summary.keys
        ok = np.flatnonzero(status == OK)
        new = ok[self.seen.first_seen(keys[ok])]
        room = n - tally.kept
        cut = int(new[room - 1]) + 1 if len(new) >= room else len(status)
        take = new[:room]
        head = status[:cut]
        tally.draws += cut
        tally.banned += int((head == BANNED).sum())
        tally.failed += int((head == FAILED).sum())
        tally.duplicates += int((ok < cut).sum()) - len(take)
        tally.sample(keys[:cut][head != FAILED])
        tally.kept += len(take)
        tally.lengths.update(int(length) for length in summary.lengths[take])
        if len(take):
            self.kept.append((summary.chunk, take.astype(np.int64)))
        if tally.kept >= n:
            self.done = True
            return
        c = self.config
        capacity = tally.capacity()
        exhausted = tally.draws >= MAX_DRAWS_PER_ROW * n + 2 * c.chunk_rows
        small = tally.draws >= 2 * c.chunk_rows and capacity is not None and capacity < n / 2
        if exhausted or small:
            self.done = True
            self.refusal = (
                f"{self.family} band {self.band.name} holds fewer than --n {n} distinct rows: {tally.kept} in "
                f"{tally.draws} draws ({tally.duplicates} duplicates, {tally.banned} banned as test states, "
                f"{tally.failed} failed); Chao1 estimates {capacity} in all. Ask for at most {tally.kept}"
            )

    def rows(self) -> list[tuple[int, int]]:
        return [(chunk, int(offset)) for chunk, offsets in self.kept for offset in offsets]


@dataclass
class GenerateReport:
    """What a run did: per part its bands' tallies, shards made and skipped, and the time."""

    out_dir: Path
    parts: dict[str, dict[str, Any]]
    shards_made: int = 0
    shards_skipped: int = 0
    chunks_made: int = 0
    chunks_skipped: int = 0
    rows_made: int = 0
    wall_seconds: float = 0.0


def generate_dataset(config: GenerateConfig) -> GenerateReport:
    """Make (or finish) the folder ``config`` describes; return what was done.

    Raises:
        VgauError: a band cannot give ``n`` distinct rows (the message says how many it
            holds), or the folder holds other settings (without ``replace``).
        DatasetError: the folder is not a generate folder, or its manifest is unreadable.
    """
    out = config.out_dir
    if out.exists() and not out.is_dir():
        raise DatasetError(f"--out {str(out)!r} is a file; choose a folder")
    if out.is_dir() and not (out / MANIFEST).is_file() and any(path.name != LOCK for path in out.iterdir()):
        raise DatasetError(f"--out {str(out)!r} holds files that are not a `vgau-data generate` folder; choose another")
    started = time.perf_counter()
    with folder_lock(out):
        manifest = Manifest.load(out)
        _check_versions(manifest, config)
        if not (out / MANIFEST).is_file():
            manifest.save()  # the folder is marked ours before any task writes in it (a kill -9 may come next)
        _remove_temporary_files(out)
        report = GenerateReport(out, {})
        todo = [family for family in config.families if not _prepare_part(manifest, config, family)]
        # started before the try: an engine that cannot start (Ray) leaves the manifest as it was
        engine: Engine | None = make_engine(config.engine, config.workers, config.ray_address) if todo else None
        try:
            if engine is not None:
                streams = _run_catalog(config, manifest, todo, engine, report)
                refused = [stream.refusal for stream in streams if stream.refusal]
                if refused:
                    raise VgauError("; ".join(refused))
                _run_shards(config, manifest, streams, engine, report)
        finally:
            if engine is not None:
                engine.close()
            manifest.save()
        for family in config.families:
            report.parts[part_name(family, config.split)] = manifest.parts[part_name(family, config.split)]
        write_card(manifest)
    report.wall_seconds = time.perf_counter() - started
    return report


def _check_versions(manifest: Manifest, config: GenerateConfig) -> None:
    current = versions()
    if manifest.data["versions"] == current:
        return
    if not manifest.parts and not manifest.catalog:
        manifest.data["versions"] = current
        return
    if not config.replace:
        changed = sorted(k for k in set(current) | set(manifest.data["versions"])
                         if current.get(k) != manifest.data["versions"].get(k))
        raise VgauError(
            f"{config.out_dir} was generated with other versions ({', '.join(changed)}), whose files differ in bytes; "
            "choose another --out, or pass --replace to remove everything generated there"
        )
    for part in list(manifest.parts):
        _drop_part(manifest, part)
    shutil.rmtree(config.out_dir / CATALOG_DIR, ignore_errors=True)
    manifest.data.update(versions=current, catalog={}, parts={})
    manifest.save()


def _remove_temporary_files(out: Path) -> None:
    """Temporary files of killed tasks (a writer still alive holds its file's lock and keeps it)."""
    for folder in (out / CATALOG_DIR, out / PARTIAL_DIR, *(out / family for family in FAMILIES)):
        if folder.is_dir() and not folder.is_symlink():
            safe_io.remove_stale_temps(folder, recursive=True)


def _prepare_part(manifest: Manifest, config: GenerateConfig, family: str) -> bool:
    """Register the family's part; True when it is already complete and every shard verifies."""
    name = part_name(family, config.split)
    arguments = config.arguments(family)
    part = manifest.parts.get(name)
    if part is not None and part["arguments"] != arguments:
        if not config.replace:
            raise VgauError(
                f"{config.out_dir} holds {name} made with other arguments ({_differences(part['arguments'], arguments)}); "
                "choose another --out, or pass --replace to make it again"
            )
        _drop_part(manifest, name)
        part = None
    if part is not None and part.get("complete"):
        if all(manifest.finished(shard["path"], shard["sha256"]) for shard in part["shards"]):
            return True
        part["complete"] = False
        for shard in part["shards"]:  # a damaged or missing shard is made again from its catalog
            _move_back(manifest, shard)
    if part is None:
        manifest.parts[name] = {"arguments": arguments, "complete": False, "bands": {}, "shards": []}
    return False


def _differences(old: dict[str, Any], new: dict[str, Any]) -> str:
    return ", ".join(f"{key} {old.get(key)!r} -> {new.get(key)!r}" for key in new if old.get(key) != new.get(key))


def _move_back(manifest: Manifest, shard: dict[str, Any]) -> None:
    final = manifest.out_dir / shard["path"]
    staged = manifest.out_dir / PARTIAL_DIR / shard["path"]
    if final.is_file() and not final.is_symlink():
        staged.parent.mkdir(parents=True, exist_ok=True)
        os.replace(final, staged)


def _drop_part(manifest: Manifest, name: str) -> None:
    part = manifest.parts.pop(name)
    for shard in part["shards"]:
        for path in (manifest.out_dir / shard["path"], manifest.out_dir / PARTIAL_DIR / shard["path"]):
            if path.is_file() or path.is_symlink():
                path.unlink()


def _run_catalog(config: GenerateConfig, manifest: Manifest, families: Iterable[str], engine: Engine,
                 report: GenerateReport) -> list[BandStream]:
    from tqdm.auto import tqdm

    streams = []
    for family in families:
        for band in config.bands_of(family):
            stream = BandStream(config, family, band, {})
            stream.finished_chunks = manifest.catalog.setdefault(stream.catalog_key, {})
            streams.append(stream)
    estimate = sum(math.ceil(config.n / config.chunk_rows) for _ in streams)
    window = TASKS_PER_WORKER * engine.workers
    in_flight = 0
    with tqdm(total=estimate, desc="catalog", unit="chunk", disable=not config.progress) as bar:
        while True:
            for stream in streams:
                while in_flight < window and stream.wants_chunk():
                    task = stream.task(stream.next_chunk)
                    stream.next_chunk += 1
                    relative = task.path.relative_to(config.out_dir).as_posix()
                    if manifest.finished(relative, stream.finished_chunks.get(str(task.chunk))):
                        stream.receive(read_summary(task.path, task.chunk))
                        report.chunks_skipped += 1
                        bar.update(1)
                        continue
                    engine.submit(build_chunk, task)
                    in_flight += 1
            if in_flight == 0:
                break
            task, summary = engine.next_result()
            in_flight -= 1
            report.chunks_made += 1
            bar.total = max(bar.total, bar.n + 1 + in_flight)
            bar.update(1)
            next(s for s in streams if s.family == task.family and s.band == task.band).receive(summary)
            manifest.save(force=False)
    for stream in streams:
        manifest.parts[part_name(stream.family, config.split)]["bands"][stream.band.name] = stream.tally.as_dict()
    return streams


def _run_shards(config: GenerateConfig, manifest: Manifest, streams: list[BandStream], engine: Engine,
                report: GenerateReport) -> None:
    from tqdm.auto import tqdm

    stage = config.out_dir / PARTIAL_DIR
    tasks: list[ShardTask] = []
    for family in dict.fromkeys(stream.family for stream in streams):
        groups = [(stream, rows) for stream in streams if stream.family == family
                  for rows in split_rows(stream.rows(), config.shard_rows)]
        part = manifest.parts[part_name(family, config.split)]
        done = {shard["path"]: shard for shard in part["shards"]}
        part["shards"] = []
        for k, (stream, rows) in enumerate(groups):
            task = ShardTask(str(config.out_dir), str(stage), stream.catalog_dir, family, config.split, stream.band, k,
                             len(groups), rows, config.options)
            old = done.get(task.relative_path)
            if old is not None and old["rows"] == len(rows) and any(
                    manifest.finished(where, old["sha256"]) for where in (f"{PARTIAL_DIR}/{task.relative_path}",
                                                                          task.relative_path)):
                part["shards"].append(old)
                report.shards_skipped += 1
            else:
                tasks.append(task)
    window = TASKS_PER_WORKER * engine.workers
    pending = iter(tasks)
    in_flight = 0
    with tqdm(total=len(tasks), desc="shards", unit="shard", disable=not config.progress) as bar:
        while True:
            while in_flight < window and (task := next(pending, None)) is not None:
                engine.submit(build_shard, task)
                in_flight += 1
            if in_flight == 0:
                break
            task, result = engine.next_result()
            in_flight -= 1
            _record(manifest.parts[part_name(task.family, config.split)], task, result)
            report.shards_made += 1
            report.rows_made += result.rows
            bar.update(1)
            manifest.save(force=False)
    for family in dict.fromkeys(stream.family for stream in streams):
        _finish_part(manifest, part_name(family, config.split))


def _record(part: dict[str, Any], task: ShardTask, result: ShardResult) -> None:
    part["shards"].append({"path": result.path, "band": task.band.name, "rows": result.rows,
                           "sha256": result.sha256, "bytes": result.bytes})


def _finish_part(manifest: Manifest, name: str) -> None:
    """Move a part's shards beside the card, drop stale files of its split, mark it complete."""
    part = manifest.parts[name]
    part["shards"].sort(key=lambda shard: shard["path"])
    out = manifest.out_dir
    for shard in part["shards"]:
        staged = out / PARTIAL_DIR / shard["path"]
        if staged.is_file():
            (out / shard["path"]).parent.mkdir(parents=True, exist_ok=True)
            os.replace(staged, out / shard["path"])
    family, split = name.split("/")
    listed = {shard["path"] for shard in part["shards"]}
    for stale in (out / family).glob(f"{split}-*.parquet"):
        if f"{family}/{stale.name}" not in listed:
            stale.unlink()
    part["complete"] = True
    manifest.save()
