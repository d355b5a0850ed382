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

from collections import Counter, defaultdict
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

from vgau_data.errors import DatasetError, StateError, VgauError
from vgau_data.puzzles.base import AnswerError
from vgau_data.registry import FAMILIES
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
    """Counts per ``(family, split)`` and every overlap found."""

    folder: Path
    rows: Counter[tuple[str, str]] = field(default_factory=Counter)
    unreadable: Counter[tuple[str, str]] = field(default_factory=Counter)
    counts: dict[tuple[str, str], Counter[str]] = field(default_factory=lambda: defaultdict(Counter))
    overlaps: list[Overlap] = field(default_factory=list)

    @property
    def total(self) -> int:
        return len(self.overlaps)

    def table(self) -> list[str]:
        lines = [f"{'family':<9}{'split':<12}{'rows':>8}{'unreadable':>12}" + "".join(f"{kind:>13}" for kind in KINDS)]
        for family, split in sorted(self.rows, key=lambda k: (list(FAMILIES).index(k[0]), k[1])):
            found = self.counts[(family, split)]
            lines.append(f"{family:<9}{split:<12}{self.rows[(family, split)]:>8}{self.unreadable[(family, split)]:>12}"
                         + "".join(f"{found[kind]:>13}" for kind in KINDS))
        return lines


def parquet_files(folder: Path) -> Iterator[tuple[str, str, Path]]:
    """``(family, split, path)`` of every Parquet file in a family folder (links are not followed)."""
    if not folder.is_dir():
        raise DatasetError(f"{folder} is not a folder")
    seen = 0
    for family in FAMILIES:
        family_dir = folder / family
        if not family_dir.is_dir() or family_dir.is_symlink():
            continue
        for path in sorted(family_dir.glob("*.parquet")):
            if path.is_symlink() or path.name.startswith("."):
                continue
            seen += 1
            if seen > MAX_FILES:
                raise DatasetError(f"{folder} holds more than {MAX_FILES} Parquet files; it is not a dataset folder")
            yield family, path.name.split("-", 1)[0], path


def _rows(path: Path) -> Iterator[dict[str, Any]]:
    """``id``, ``state`` and ``solution`` of each row, one row group at a time."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    try:
        handle = pq.ParquetFile(path)
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
    files = list(parquet_files(folder))
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
