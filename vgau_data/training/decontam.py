"""``vgau-data decontam DIR``: which rows of a built folder overlap the test set, and how.

Any folder of ``<family>/*.parquet`` files with a ``state`` column is read: a generated
training folder, a benchmark build, or one made by another tool. For each row:

- ``exact``: its state JSON is a test instance's;
- ``symmetric``: it is a test instance up to the family's symmetries (rotated,
  reflected, relabelled), but not exactly;
- ``trajectory``: a state its optimal answer passes through before the goal (its start
  included) is a test instance's start, or a state on a test instance's optimal
  trajectory at least ``heldout.MIN_SUFFIX`` steps from that instance's goal.

Rows of one family in two splits of the folder that share a key are reported too
(``cross-split``). The answer is the row's ``solution`` when it replays as an optimal
answer, else the family's solver's. Reading is bounded: only the ``id``, ``state`` and
``solution`` columns, one row group at a time; a state that does not parse is counted
as unreadable, never trusted.
"""

from __future__ import annotations

import os
from collections import Counter, defaultdict
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

from vgau_data.errors import DatasetError, StateError, VgauError
from vgau_data.puzzles.base import AnswerError
from vgau_data.registry import FAMILIES
from vgau_data.safe_io import checked_path, open_regular
from vgau_data.training.heldout import MIN_SUFFIX, HeldOutKeys, load_heldout_keys
from vgau_data.training.keys import canonical_key, exact_key, trajectory

KINDS: Final = ("exact", "symmetric", "trajectory", "cross-split")
MAX_STATE_CHARS: Final = 100_000
MAX_FILES: Final = 100_000


@dataclass(frozen=True, slots=True)
class Overlap:
    """One overlapping row: where it is, what kind of overlap, with which test instances."""

    file: str
    row_id: str
    kind: str
    detail: str


@dataclass
class DecontamReport:
    """Counts per ``(family, split)``, every overlap found, and what could not be checked.

    A report is ``complete`` only when every row of every Parquet file under the folder was
    read and checked: a clean verdict always comes with what it covers.
    """

    folder: Path
    rows: Counter[tuple[str, str]] = field(default_factory=Counter)
    unreadable: Counter[tuple[str, str]] = field(default_factory=Counter)
    counts: dict[tuple[str, str], Counter[str]] = field(default_factory=lambda: defaultdict(Counter))
    overlaps: list[Overlap] = field(default_factory=list)
    unchecked_files: list[str] = field(default_factory=list)
    """Parquet files found outside a registered family's folder, with the reason (never read)."""

    @property
    def total(self) -> int:
        return len(self.overlaps)

    @property
    def checked(self) -> int:
        """Rows read and checked against the test set."""
        return sum(self.rows.values()) - sum(self.unreadable.values())

    @property
    def complete(self) -> bool:
        """True when at least one row was checked and nothing under the folder was left unchecked."""
        return self.checked > 0 and not self.unchecked_files and not sum(self.unreadable.values())

    def gaps(self) -> str:
        """What was not checked, in one line ('' when the report is complete)."""
        parts = []
        if unreadable := sum(self.unreadable.values()):
            parts.append(f"{unreadable} unreadable rows")
        if self.unchecked_files:
            parts.append(f"{len(self.unchecked_files)} Parquet files outside a registered family's folder")
        if not self.checked and not parts:
            parts.append(f"no rows: {self.folder} holds no <family>/*.parquet file")
        return "; ".join(parts)

    def table(self) -> list[str]:
        header = f"{'family':<9}{'split':<12}{'rows':>8}{'checked':>9}{'unreadable':>12}"
        lines = [header + "".join(f"{kind:>13}" for kind in KINDS)]
        for family, split in sorted(self.rows, key=lambda k: (list(FAMILIES).index(k[0]), k[1])):
            found, rows, bad = self.counts[(family, split)], self.rows[(family, split)], self.unreadable[(family, split)]
            lines.append(f"{family:<9}{split:<12}{rows:>8}{rows - bad:>9}{bad:>12}"
                         + "".join(f"{found[kind]:>13}" for kind in KINDS))
        return lines


def parquet_files(folder: Path) -> tuple[list[tuple[str, str, Path]], list[str]]:
    """``(family, split, path)`` of every Parquet file in a registered family's folder, and the others.

    Symlinks are followed to regular files wherever they lead (a Hugging Face cache snapshot
    is all links into ``blobs/``); a link to anything else, a FIFO or a device named like a
    shard is refused. Parquet files anywhere else under ``folder`` are returned as unchecked
    (``"path: reason"``), never skipped in silence. Hidden files (temporaries) are not shards.

    Raises:
        DatasetError: ``folder`` is not a folder, or holds more than ``MAX_FILES`` entries.
        InputFileError: a shard is not a regular file.
    """
    if not folder.is_dir():
        raise DatasetError(f"{folder} is not a folder")
    checked: list[tuple[str, str, Path]] = []
    unchecked: list[str] = []
    seen = 0
    for top, dirs, names in os.walk(folder, followlinks=False):
        here = Path(top)
        dirs[:] = sorted(name for name in dirs if not name.startswith("."))
        links = [name for name in dirs if (here / name).is_symlink()]  # os.walk lists linked folders, never enters
        for name in sorted([*names, *links]):
            seen += 1
            if seen > MAX_FILES:
                raise DatasetError(f"{folder} holds more than {MAX_FILES} entries; it is not a dataset folder")
            path = here / name
            if name in links:
                if here == folder and name in FAMILIES:
                    checked.extend(_family_files(folder, name, path))
                else:
                    unchecked.append(f"{path.relative_to(folder).as_posix()}: a linked folder, not followed")
                continue
            if name.startswith(".") or not name.endswith(".parquet"):
                continue
            relative = path.relative_to(folder).as_posix()
            family = here.name if here.parent == folder else None
            if family in FAMILIES:
                checked_path(path, what="shard")  # refused now, before any row is read: a FIFO would block
                checked.append((family, name.split("-", 1)[0], path))
            else:
                where = "no family folder" if family is None else f"{family!r} is not a registered family"
                unchecked.append(f"{relative}: {where}")
    return checked, unchecked


def _family_files(folder: Path, family: str, link: Path) -> list[tuple[str, str, Path]]:
    """The shards of a family folder that is itself a link (followed only to a real folder)."""
    real = link.resolve()
    if not real.is_dir():
        raise DatasetError(f"{link}: a family folder must be a folder; it links to {real}")
    shards = sorted(path for path in real.iterdir() if path.name.endswith(".parquet") and not path.name.startswith("."))
    if len(shards) > MAX_FILES:
        raise DatasetError(f"{link} holds more than {MAX_FILES} Parquet files; it is not a dataset folder")
    for path in shards:
        checked_path(path, what="shard")
    return [(family, path.name.split("-", 1)[0], folder / family / path.name) for path in shards]


def _rows(path: Path) -> Iterator[dict[str, Any]]:
    """``id``, ``state`` and ``solution`` of each row, one row group at a time (``path`` is a checked regular file)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    try:
        with open_regular(path, what="shard") as stream:
            handle = pq.ParquetFile(stream)
            names = set(handle.schema_arrow.names)
            if "state" not in names:
                raise DatasetError(f"{path} has no state column; it is not a puzzle dataset file")
            columns = [name for name in ("id", "state", "solution") if name in names]
            for group in range(handle.num_row_groups):
                yield from handle.read_row_group(group, columns=columns).to_pylist()
    except (pa.ArrowException, OSError) as error:
        raise DatasetError(f"{path} is not a readable Parquet file ({error})") from None


def _answer(family: str, state: Any, solution: Any) -> tuple[Any, ...] | None:
    """The row's own answer when it replays as an optimal one, else the solver's (None: unsolvable)."""
    spec = FAMILIES[family]
    best = spec.solve(state)
    if best is None:
        return None
    if isinstance(solution, str) and len(solution) <= MAX_STATE_CHARS:
        try:
            answer = spec.answer_from_payload(solution)
        except AnswerError:
            return best.answer
        replay = spec.replay(state, answer)
        if replay.feasible and replay.length == best.optimal_length:
            return answer
    return best.answer


def _names(instances: Any) -> str:
    return ", ".join(sorted({instance.name for instance in instances}))


def check_row(family: str, state: Any, solution: Any, heldout: HeldOutKeys, key: int) -> tuple[str, str] | None:
    """``(kind, detail)`` of the row's overlap with the test set, or None; ``key`` is the state's canonical key."""
    test = heldout.family(family)
    if hits := test.by_exact.get(exact_key(family, state)):
        return "exact", f"the test instance {_names(hits)}"
    if hits := test.by_start.get(key):
        return "symmetric", f"a rotated, reflected or relabelled copy of {_names(hits)}"
    answer = _answer(family, state, solution)
    if answer is None:
        return None
    states = trajectory(family, state, answer)
    for step, passed in enumerate(states):
        state_key = key if step == 0 else canonical_key(family, passed)
        if state_key not in test.banned:
            continue
        starts = test.by_start.get(state_key, [])
        deep = [(instance, left) for instance, left in test.by_state.get(state_key, []) if left >= MIN_SUFFIX]
        where = [f"the start of {instance.name}" for instance in starts] + [
            f"a state of {instance.name} {left} steps from its goal" for instance, left in deep]
        return "trajectory", f"its step {step} reaches " + "; ".join(sorted(set(where)))
    return None


def decontam_folder(folder: str | Path, *, progress: bool = True, heldout: HeldOutKeys | None = None) -> DecontamReport:
    """Check every row of ``folder`` against the test set (and its splits against each other).

    Raises:
        DatasetError: the folder or a file in it cannot be read as a puzzle dataset.
    """
    from tqdm.auto import tqdm

    heldout = heldout or load_heldout_keys()
    folder = Path(folder)
    report = DecontamReport(folder)
    split_keys: dict[tuple[str, str], dict[int, str]] = defaultdict(dict)
    files, report.unchecked_files = parquet_files(folder)
    for family, split, path in tqdm(files, desc="decontam", unit="file", disable=not progress):
        spec = FAMILIES[family]
        relative = path.relative_to(folder).as_posix()
        for number, row in enumerate(_rows(path)):
            row_id = str(row.get("id") or f"row {number}")[:100]
            report.rows[(family, split)] += 1
            text = row.get("state")
            try:
                if not isinstance(text, str) or len(text) > MAX_STATE_CHARS:
                    raise StateError("the state is not a string of at most 100,000 characters")
                state = spec.from_json(text)
                key = canonical_key(family, state)
                found = check_row(family, state, row.get("solution"), heldout, key)
            except (StateError, VgauError, ValueError):
                report.unreadable[(family, split)] += 1
                continue
            for (other_family, other_split), known in split_keys.items():
                if found is None and other_family == family and other_split != split and key in known:
                    found = ("cross-split", f"shares its key with {known[key]} of the {other_split} split")
            split_keys[(family, split)].setdefault(key, row_id)
            if found is not None:
                report.counts[(family, split)][found[0]] += 1
                report.overlaps.append(Overlap(relative, row_id, *found))
    return report
