"""Pass one of ``generate``: every candidate of a band, its state, answer and keys, before any image.

Candidate ``i`` of (seed, family, band, split) is fully determined by those coordinates
(``seeding.training_seed``, ``bands.candidate_slot``). A chunk of ``size`` consecutive
candidates is generated, verified by the exhaustive solver and keyed by
``build_chunk``, a pure function that writes the chunk's file atomically
(``.catalog/<family>/<split>/seed<S>/c<size>/<band>/chunk-NNNNNN.parquet`` under the
output folder) and
returns its summary: one canonical key and status per candidate. The driver reads
summaries in chunk order and keeps, for each key, only its lowest candidate
(``KeySet``), so which rows a split holds does not depend on the engine or on the
number of workers. Pass two renders the kept rows from the chunk files (``shards``).

A candidate's status is ``ok``, ``banned`` (its trajectory meets the test set,
``heldout``) or ``failed`` (its generator gave up: counted, never papered over).
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

import numpy as np

from vgau_data.errors import DatasetError, GenerationError
from vgau_data.registry import FAMILIES
from vgau_data.safe_io import atomic_writer, sha256_of
from vgau_data.seeding import training_seed
from vgau_data.training.bands import Band, candidate_slot
from vgau_data.training.heldout import load_heldout_keys
from vgau_data.training.keys import key_hex, trajectory_keys

CATALOG_DIR: Final = ".catalog"
OK, BANNED, FAILED = 0, 1, 2
STATUS_NAMES: Final = ("ok", "banned", "failed")
MAX_CHUNK_BYTES: Final = 1 << 30
"""A chunk file larger than this is refused (an honest one is a few hundred bytes a candidate)."""


@dataclass(frozen=True, slots=True)
class ChunkTask:
    """Candidates ``chunk * size`` .. ``(chunk + 1) * size - 1`` of one band (picklable, for workers)."""

    out_dir: str
    family: str
    split: str
    band: Band
    seed: int
    chunk: int
    size: int
    catalog_dir: str

    @property
    def path(self) -> Path:
        return chunk_path(Path(self.out_dir), self.catalog_dir, self.chunk)

    @property
    def indices(self) -> range:
        return range(self.chunk * self.size, (self.chunk + 1) * self.size)


def chunk_path(out_dir: Path, catalog_dir: str, chunk: int) -> Path:
    """``out_dir/catalog_dir/chunk-NNNNNN.parquet`` (``catalog_dir`` names family, split, seed, chunk size, band)."""
    return out_dir / catalog_dir / f"chunk-{chunk:06d}.parquet"


@dataclass(frozen=True, slots=True)
class ChunkSummary:
    """What the driver needs of a chunk: per candidate its canonical key, status and optimal length."""

    chunk: int
    sha256: str
    keys: np.ndarray
    status: np.ndarray
    lengths: np.ndarray


def _schema() -> Any:
    import pyarrow as pa

    return pa.schema([
        ("index", pa.int64()), ("seed", pa.int64()), ("optimal_length", pa.int32()), ("key", pa.uint64()),
        ("status", pa.int8()), ("state", pa.string()), ("solution", pa.string()), ("note", pa.string()),
    ])


def candidate(task: ChunkTask, index: int) -> dict[str, Any]:
    """One catalog row: the candidate generated, verified and keyed (``status`` says what became of it)."""
    from vgau_data.builders.instances import generate_verified

    spec = FAMILIES[task.family]
    bucket, slot = candidate_slot(spec, task.band, index)
    seed = training_seed(task.seed, task.family, task.band.name, task.split, index)
    row: dict[str, Any] = {"index": index, "seed": seed, "optimal_length": 0, "key": 0, "status": FAILED,
                           "state": None, "solution": None, "note": None}
    try:
        state, solution = generate_verified(task.family, bucket, seed, slot)
    except GenerationError as error:
        return row | {"note": str(error)[:500]}
    keys = trajectory_keys(task.family, state, solution.answer)
    hit = load_heldout_keys().banned_by(task.family, keys)
    return row | {
        "optimal_length": solution.optimal_length, "key": keys[0], "status": OK if hit is None else BANNED,
        "state": spec.to_json(state), "solution": spec.answer_payload(solution.answer),
        "note": None if hit is None else f"passes the test state {key_hex(hit)}",
    }


def build_chunk(task: ChunkTask) -> ChunkSummary:
    """Generate one chunk, write its file whole (replacing any), and return its summary."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    rows = [candidate(task, index) for index in task.indices]
    with atomic_writer(task.path) as sink:
        pq.write_table(pa.Table.from_pylist(rows, schema=_schema()), sink, compression="zstd")
    return read_summary(task.path, task.chunk)


def read_summary(path: Path, chunk: int) -> ChunkSummary:
    """The summary of a written chunk file."""
    import pyarrow.parquet as pq

    _check_size(path)
    table = pq.read_table(path, columns=["key", "status", "optimal_length"])
    return ChunkSummary(
        chunk, sha256_of(path), table.column("key").to_numpy().astype(np.uint64),
        table.column("status").to_numpy().astype(np.int8), table.column("optimal_length").to_numpy().astype(np.int32),
    )


def read_rows(path: Path, offsets: Sequence[int]) -> list[dict[str, Any]]:
    """Catalog rows at ``offsets`` of a chunk file (for pass two)."""
    import pyarrow.parquet as pq

    _check_size(path)
    table = pq.read_table(path, columns=["index", "seed", "optimal_length", "status", "state", "solution"])
    picked = table.take(list(offsets)).to_pylist()
    if any(row["status"] != OK for row in picked):
        raise DatasetError(f"{path}: a row chosen for a shard is not an ok candidate; remove {path.parent} and rerun")
    return picked


def _check_size(path: Path) -> None:
    size = path.stat().st_size
    if size > MAX_CHUNK_BYTES:
        raise DatasetError(f"{path} is {size:,} bytes; a catalog chunk is at most {MAX_CHUNK_BYTES:,}")


# ---------------------------------------------------------------------------- the driver's side


class KeySet:
    """Distinct 64-bit keys, 8 bytes each however many: sorted numpy runs merged as they grow.

    Example:
        >>> seen = KeySet()
        >>> seen.first_seen(np.array([5, 3, 5], dtype=np.uint64)).tolist()
        [True, True, False]
        >>> seen.first_seen(np.array([3, 7], dtype=np.uint64)).tolist(), len(seen)
        ([False, True], 3)
    """

    def __init__(self) -> None:
        self._runs: list[np.ndarray] = []

    def __len__(self) -> int:
        return sum(len(run) for run in self._runs)

    def first_seen(self, keys: np.ndarray) -> np.ndarray:
        """A mask of the keys never seen before (earlier in ``keys`` counts as before); adds them."""
        keys = np.asarray(keys, dtype=np.uint64)
        known = np.zeros(len(keys), dtype=bool)
        for run in self._runs:
            at = np.minimum(np.searchsorted(run, keys), len(run) - 1)
            known |= run[at] == keys
        first = np.zeros(len(keys), dtype=bool)
        first[np.unique(keys, return_index=True)[1]] = True
        new = first & ~known
        if new.any():
            self._runs.append(np.sort(keys[new]))
            while len(self._runs) > 1 and len(self._runs[-2]) <= 2 * len(self._runs[-1]):
                last = self._runs.pop()
                self._runs[-1] = np.sort(np.concatenate([self._runs[-1], last]))
        return new


CAPACITY_SAMPLE: Final = 200_000
"""Draws of a band whose key counts feed its capacity estimate (memory stays bounded past it)."""


@dataclass
class BandTally:
    """What the draws of one band gave: kept rows, duplicates, bans, failures, and the key counts
    that estimate how many distinct rows the band holds."""

    draws: int = 0
    kept: int = 0
    duplicates: int = 0
    banned: int = 0
    failed: int = 0
    lengths: Counter[int] | None = None
    counts: Counter[int] | None = None

    def __post_init__(self) -> None:
        self.lengths = self.lengths or Counter()
        self.counts = self.counts or Counter()

    def sample(self, keys: np.ndarray) -> None:
        """Count the ok and banned keys of the first ``CAPACITY_SAMPLE`` draws."""
        room = CAPACITY_SAMPLE - sum(self.counts.values())
        if room > 0:
            self.counts.update(int(key) for key in keys[:room])

    def capacity(self) -> int | None:
        """Chao1's estimate of the distinct unbanned rows the band holds, from the sampled draws.

        ``S + f1^2 / (2 f2)``, where ``S`` keys were seen, ``f1`` once and ``f2`` twice; a
        lower bound when the generator favours some boards, so it is used to refuse only
        when it says the band is small. None until some key has been drawn twice: before
        that the draws say only that the band holds more than they saw.
        """
        seen = Counter(self.counts.values())
        distinct, f1, f2 = len(self.counts), seen[1], seen[2]
        if distinct == f1:
            return None
        extra = f1 * f1 / (2 * f2) if f2 else 0.0
        share = 1 - self.banned / max(1, self.draws - self.failed)
        return math.floor((distinct + extra) * share)

    def as_dict(self) -> dict[str, Any]:
        return {
            "draws": self.draws, "rows": self.kept, "duplicates": self.duplicates, "banned": self.banned,
            "failed": self.failed, "unique_yield": round(self.kept / self.draws, 4) if self.draws else None,
            "capacity_estimate": self.capacity(),
            "lengths": {str(length): count for length, count in sorted(self.lengths.items())},
        }
