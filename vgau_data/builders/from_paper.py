"""Build the dataset from the authors' published instances: ``vgau-data build --from-paper``.

The paper's 600 instances live in ``data/`` of the authors' repository (CC BY 4.0). This
reads that folder from a local clone (each family's ``PaperFormat``, ``FamilySpec.paper``,
knows its file and record format; families without one are not read),
validates every board with our family rules, re-solves it with our exhaustive solvers and
writes the same Hub layout and card as a generated build. Kept from the authors: ids,
difficulty labels (``middle`` is our ``medium``), boards and their rendered ``image``.
Ours: ``optimal_length``, the oracle images, the question, and ``solution`` when theirs
does not replay as an optimal answer. Every stored optimum or solution that disagrees with
our solvers is a ``Finding``, printed by the CLI and tabled in the card.

A record that cannot become a row (a board our rules reject, a path image that is absent
or unreadable) fails the build with a message naming it; ``--families`` builds the rest.
"""

from __future__ import annotations

import multiprocessing
import re
import time
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any, Final

from vgau_data import __version__, safe_io, safe_json
from vgau_data.builders.build import staging_folder
from vgau_data.builders.hub_folder import CardOrigin, parquet_path, write_parquet, write_readme
from vgau_data.builders.instances import assemble_row
from vgau_data.builders.paper_images import load_board_image, open_board_image
from vgau_data.errors import InputFileError, PaperDataError, StateError, VgauError
from vgau_data.puzzles.base import AnswerError, canonical_json
from vgau_data.puzzles.paper_records import PaperFormat, PaperRecord, where
from vgau_data.registry import FAMILIES, get_family

PAPER_REPO: Final = "zyb1029/VGAU-Diag"
PAPER_URL: Final = f"https://github.com/{PAPER_REPO}"
NO_SEED: Final = -1
"""The ``seed`` column of a published instance: no generator seed made it."""
MAX_MANIFEST_BYTES: Final = 16 * 1024 * 1024
"""Largest record file read (theirs are under 1 MiB); reading one costs at most a few hundred MiB."""
MAX_RECORD_BYTES: Final = 1024 * 1024
"""Longest line of a ``.jsonl`` record file."""
MAX_RECORDS: Final = 10_000
MAX_GIT_FILE_BYTES: Final = 1_000_000
MAX_LISTED_FAILURES: Final = 20
_SHA: Final = re.compile(r"[0-9a-f]{40}")


def paper_formats() -> dict[str, PaperFormat]:
    """The families whose published records can be read, and their formats, in registry order."""
    return {name: spec.paper for name, spec in FAMILIES.items() if spec.paper is not None}


def _paper_format(family: str) -> PaperFormat:
    fmt = FAMILIES[family].paper
    if fmt is None:
        readable = ", ".join(paper_formats()) or "none"
        raise PaperDataError(f"family {family!r} declares no published records (FamilySpec.paper); readable: {readable}")
    return fmt


@dataclass(frozen=True, slots=True)
class Finding:
    """A stored value our solvers disagree with: ``kind`` is ``optimum``, ``solution``,
    ``bucket`` (the optimum lies outside the labelled bucket) or ``duplicate``."""

    family: str
    task_id: str
    kind: str
    detail: str


@dataclass
class PaperBuildReport:
    """What a ``--from-paper`` build read, wrote and found."""

    out_dir: Path
    data_dir: Path
    commit: str | None
    lengths: dict[tuple[str, str], list[int]] = field(default_factory=dict)
    rows: dict[str, int] = field(default_factory=dict)
    own_images: dict[str, list[str]] = field(default_factory=dict)
    findings: list[Finding] = field(default_factory=list)
    wall_seconds: float = 0.0

    def summary_lines(self) -> list[str]:
        """The CLI's report: rows and images per family, then every finding."""
        lines = [f"{'family':<9}{'rows':>5}{'their image':>13}{'our image':>11}{'findings':>10}"]
        for family, n in self.rows.items():
            own = len(self.own_images.get(family, []))
            found = sum(f.family == family for f in self.findings)
            lines.append(f"{family:<9}{n:>5}{n - own:>13}{own:>11}{found:>10}")
        total = sum(self.rows.values())
        commit = self.commit or "unknown"
        lines.append(f"\n{total} rows from {self.data_dir} (commit {commit}) in {self.wall_seconds:.1f} s")
        lines.append(f"wrote {self.out_dir}/README.md and {len(self.rows)} parquet configs")
        if self.findings:
            lines.append(f"\n{len(self.findings)} stored values disagree with our solvers (also in the card):")
            lines.extend(f"  {f.family} {f.task_id} {f.kind}: {f.detail}" for f in self.findings)
        else:
            lines.append("every stored optimum and solution agrees with our solvers")
        return lines


# --------------------------------------------------------------------------- reading


def locate_data(source: str | Path) -> Path:
    """The authors' ``data/`` folder: ``source/data`` for a clone, or ``source`` itself.

    Raises:
        PaperDataError: neither holds a family folder of theirs.
    """
    root = Path(source)
    formats = paper_formats()
    for candidate in (root / "data", root):
        if any((candidate / fmt.manifest).is_file() for fmt in formats.values()):
            return candidate
    example = next(iter(formats.values())).manifest if formats else "<family>/dataset_manifest.json"
    raise PaperDataError(
        f"{root} holds none of the authors' files (e.g. data/{example}); "
        f"pass a clone of {PAPER_URL} or its data/ folder"
    )


def clone_commit(data_dir: Path) -> str | None:
    """The commit checked out in the git clone around ``data_dir``, or None if unknown.

    Only regular files inside the clone's ``.git`` are read, each within ``MAX_GIT_FILE_BYTES``.
    """
    git = data_dir.parent / ".git"

    def read(path: Path) -> str:
        return safe_io.read_bytes(path, limit=MAX_GIT_FILE_BYTES, inside=git, what="git file").decode("ascii", "replace")

    try:
        head = read(git / "HEAD")[:200].strip()
        if _SHA.fullmatch(head):
            return head
        ref = head.removeprefix("ref: ").strip()
        loose = git / ref
        if ref.startswith("refs/") and ".." not in ref and loose.is_file():
            sha = read(loose)[:100].strip()
            return sha if _SHA.fullmatch(sha) else None
        packed = git / "packed-refs"
        if packed.is_file():
            for line in read(packed).splitlines():
                sha, _, name = line.partition(" ")
                if name == ref and _SHA.fullmatch(sha):
                    return sha
    except (OSError, InputFileError):
        return None
    return None


def read_manifest(path: Path, *, inside: Path | None = None) -> list[dict[str, Any]]:
    """The records of one of their files: a JSON array, or JSON lines (``.jsonl``, streamed).

    Raises:
        PaperDataError: the file is absent, not a regular file inside ``inside``, too
            large, not JSON, or not a list of objects (the line is named for ``.jsonl``).
    """
    if not path.exists() and not path.is_symlink():
        raise PaperDataError(f"{path} is absent; build the families you have with --families")
    try:
        if path.suffix == ".jsonl":
            records = []
            for number, line in safe_io.iter_lines(path, max_line=MAX_RECORD_BYTES, max_bytes=MAX_MANIFEST_BYTES,
                                                   inside=inside, what="record file"):  # fmt: skip
                if line.strip():
                    records.append(safe_json.loads(line, f"{path}: line {number}"))
                if len(records) > MAX_RECORDS:
                    break
        else:
            records = safe_json.loads(
                safe_io.read_bytes(path, limit=MAX_MANIFEST_BYTES, inside=inside, what="record file"), str(path)
            )
    except (InputFileError, safe_json.JsonInputError) as error:
        raise PaperDataError(str(error)) from None
    if not isinstance(records, list) or not all(isinstance(r, dict) for r in records):
        raise PaperDataError(f"{path} must hold a list of JSON objects (one per instance)")
    if len(records) > MAX_RECORDS:
        raise PaperDataError(f"{path} has more than {MAX_RECORDS} records; at most {MAX_RECORDS} are read")
    return records


def _image_file(family_dir: Path, record: dict[str, Any], key: str, at: str) -> Path:
    """The record's image path inside ``family_dir`` (no absolute paths, no ``..``)."""
    value = record.get(key)
    if not isinstance(value, str) or not value or len(value) > 300:
        raise PaperDataError(f"{at}: {key} must name the board image, got {value!r:.40}")
    relative = PurePosixPath(value)
    if relative.is_absolute() or ".." in relative.parts or "\\" in value:
        raise PaperDataError(f"{at}: {key} {value!r} must be a path inside {family_dir}")
    return family_dir.joinpath(*relative.parts)


@dataclass(frozen=True, slots=True)
class _Task:
    """One record to convert in a worker: the family, the record in our terms, their image."""

    family: str
    record: PaperRecord
    image: bytes | None


def read_family(data_dir: Path, family: str) -> tuple[list[_Task], list[str]]:
    """The records of one family in file order, with their images; plus the failures."""
    fmt = _paper_format(family)
    family_dir = (data_dir / fmt.manifest).parent
    tasks, failures = [], []
    for raw in read_manifest(data_dir / fmt.manifest, inside=data_dir):
        at = where(family, raw, fmt.id_key)
        try:
            path = _image_file(family_dir, raw, fmt.image_key, at)
            image = load_board_image(path, at, inside=data_dir)
            if image is None and fmt.walls_in_image:
                raise PaperDataError(
                    f"{at}: its image {path} is absent, and {family} records keep their walls only in the image"
                )
            board = open_board_image(image, at) if image is not None and fmt.walls_in_image else None
            tasks.append(_Task(family, fmt.read(raw, board), image))
        except PaperDataError as e:
            failures.append(str(e))
    return tasks, failures


# --------------------------------------------------------------------------- converting


@dataclass(frozen=True, slots=True)
class VerifiedRecord:
    """A record whose board our rules accept, with our optimum and the answer the row stores."""

    family: str
    task_id: str
    difficulty: str
    state: str
    answer: tuple[Any, ...]
    optimal_length: int
    image: bytes | None
    findings: tuple[Finding, ...]


def verify_record(family_name: str, record: PaperRecord, image: bytes | None = None) -> VerifiedRecord:
    """Validate and re-solve one record; note every stored value our solver disagrees with.

    The answer kept is theirs when it replays as an optimal answer, else our solver's.

    Raises:
        PaperDataError: our rules reject the board, or find it unsolvable.
    """
    family = FAMILIES[family_name]
    at = f"{family_name} record {record.task_id}"
    try:
        state = family.from_json(canonical_json(record.state))
    except StateError as e:
        raise PaperDataError(f"{at}: not a valid {family_name} board under our rules ({e})") from None
    try:
        solution = (family.paper.solve if family.paper and family.paper.solve else family.solve)(state)
    except VgauError as e:  # a search budget met before an answer
        raise PaperDataError(f"{at}: our solver gave up ({e})") from None
    if solution is None:
        raise PaperDataError(f"{at}: our solver finds no solution under our rules (docs/contract/families.md)")
    optimum = solution.optimal_length
    findings = []

    def note(kind: str, detail: str) -> None:
        findings.append(Finding(family_name, record.task_id, kind, detail))

    if record.stored_optimum != optimum:
        note("optimum", f"stored {record.stored_optimum}, our solver {optimum}")
    answer = solution.answer
    try:
        stored = family.parse_answer(record.stored_answer)
    except AnswerError as e:
        note("solution", f"the stored solution does not read as an answer ({e})")
    else:
        replay = family.replay(state, stored)
        if not replay.feasible:
            note("solution", f"the stored solution fails: {replay.error} at step {replay.first_invalid_step}")
        elif replay.length != optimum:
            note("solution", f"the stored solution takes {replay.length} steps; the optimum is {optimum}")
        else:
            answer = stored
    bucket = family.bucket_of(optimum)
    if bucket != record.difficulty:
        low, high = family.buckets[record.difficulty]
        lies = bucket or "in no bucket"
        note("bucket", f"labelled {record.difficulty} ({low}-{high}); the optimum {optimum} is {lies}")
    return VerifiedRecord(
        family_name, record.task_id, record.difficulty, family.to_json(state), tuple(answer), optimum, image,
        tuple(findings),
    )


def _verify(task: _Task) -> VerifiedRecord | str:
    """``verify_record`` in a worker: a failure comes back as its message."""
    try:
        return verify_record(task.family, task.record, task.image)
    except PaperDataError as e:
        return str(e)


def render_row(verified: VerifiedRecord) -> dict[str, Any]:
    """The dataset row of a verified record: their image if they have one, our renderings."""
    state = FAMILIES[verified.family].from_json(verified.state)
    return assemble_row(
        verified.family, verified.task_id, verified.difficulty, state, verified.answer, verified.optimal_length,
        NO_SEED, verified.image,
    )


def _refuse_mixing(out_dir: Path, families: Sequence[str]) -> None:
    """Raise if ``out_dir`` holds configs of families this build would not rewrite.

    Loaders read every config in the folder, so leftovers would mix another build's rows
    (generated, or other families) under this build's card.
    """
    others = sorted(f for f in FAMILIES if f not in families and any((out_dir / f).glob("test-*.parquet")))
    if others:
        raise PaperDataError(
            f"{out_dir} already holds the configs {', '.join(others)} of another build; "
            "choose an empty --out folder or include those families"
        )


def _failure_error(failures: Sequence[str], total: int) -> PaperDataError:
    shown = "; ".join(failures[:MAX_LISTED_FAILURES])
    more = f"; and {len(failures) - MAX_LISTED_FAILURES} more" if len(failures) > MAX_LISTED_FAILURES else ""
    return PaperDataError(
        f"{len(failures)} of {total} records cannot be converted: {shown}{more} "
        "(build the other families with --families)"
    )


def _duplicate_ids(tasks: Sequence[_Task]) -> list[str]:
    counts = Counter(task.record.task_id for task in tasks)
    return [f"the id {task_id!r} is used by {n} records" for task_id, n in counts.items() if n > 1]


def build_from_paper(
    source: str | Path,
    out_dir: str | Path,
    *,
    families: Iterable[str] | None = None,
    workers: int = 1,
    progress: bool = True,
) -> PaperBuildReport:
    """Convert the authors' instances under ``source`` (a clone, or its ``data/``) into ``out_dir``.

    Every record is read and verified first; only if all of them pass are the rows
    rendered and written, so a failed conversion writes nothing.

    Raises:
        PaperDataError: a file or record cannot be converted (all such records are named,
            up to ``MAX_LISTED_FAILURES``).
    """
    from tqdm.auto import tqdm

    start = time.perf_counter()
    if workers < 1:
        raise ValueError(f"workers must be >= 1, got {workers}")
    names = [get_family(f).name for f in families] if families is not None else list(paper_formats())
    for name in names:
        _paper_format(name)
    data_dir = locate_data(source)
    _refuse_mixing(Path(out_dir), names)
    report = PaperBuildReport(out_dir=Path(out_dir), data_dir=data_dir, commit=clone_commit(data_dir))
    tasks: list[_Task] = []
    failures: list[str] = []
    for name in names:
        family_tasks, family_failures = read_family(data_dir, name)
        tasks.extend(family_tasks)
        failures.extend(family_failures)
    total = len(tasks) + len(failures)
    failures.extend(_duplicate_ids(tasks))
    with _pool(workers) as pool, tqdm(total=2 * len(tasks), desc="paper", unit="step", disable=not progress) as bar:
        verified = []
        for result in pool(_verify, tasks):
            bar.update(1)
            if isinstance(result, str):
                failures.append(result)
            else:
                verified.append(result)
        if failures:
            raise _failure_error(failures, total)
        rows: dict[str, list[dict[str, Any]]] = defaultdict(list)
        seen: dict[tuple[str, str], str] = {}
        for record, row in zip(verified, pool(render_row, verified), strict=True):
            bar.update(1)
            rows[record.family].append(row)
            report.findings.extend(record.findings)
            first = seen.setdefault((record.family, record.state), record.task_id)
            if first != record.task_id:
                twin = Finding(record.family, record.task_id, "duplicate", f"the same board as {first}")
                report.findings.append(twin)
            if record.image is None:
                report.own_images.setdefault(record.family, []).append(record.task_id)
            report.lengths.setdefault((record.family, record.difficulty), []).append(record.optimal_length)
    with staging_folder(report.out_dir) as staging:  # the folder appears whole, or not at all
        for name in names:
            write_parquet(rows[name], parquet_path(staging, name))
            report.rows[name] = len(rows[name])
        write_readme(staging, report.lengths, origin=paper_origin(report))
    report.wall_seconds = time.perf_counter() - start
    return report


@contextmanager
def _pool(workers: int) -> Iterator[Callable[[Callable[[Any], Any], Sequence[Any]], Iterator[Any]]]:
    """``map`` in task order, over ``workers`` spawned processes when there is more than one."""
    if workers == 1:
        yield map
        return
    with multiprocessing.get_context("spawn").Pool(workers) as pool:
        yield lambda fn, items: pool.imap(fn, items, chunksize=4)


# --------------------------------------------------------------------------- card

_HOW_MADE: Final = """These rows are the instances that the paper's authors published with their code,
converted to this dataset's schema; vgau_data did not generate them.

- **Source**: the `data/` folder of [{repo}]({url}) ({commit}), by the VGAU-Diag
  authors, released under CC BY 4.0. Reuse needs attribution: cite the paper (below) and
  link that repository.
- **Theirs**: `id` (their `task_id`; for maze `maze_0007` from their integer `id` 7),
  `difficulty` (their `middle` is `medium`), the boards in `state`, and `image`, the
  rendering their models saw.
- **Ours**: `optimal_length` (re-solved by our exhaustive solvers); `solution` (theirs
  where it replays as an optimal answer, otherwise our solver's); `oracle_aid`,
  `oracle_states`, `oracle_aug_states` and `oracle_vr` (drawn by our renderer, so their
  style differs from `image`); `question` (our Text-CoT prompt). `seed` is -1: no generator seed made
  these rows.
- **Our rendering stands in for `image`** where the source folder lacked the image file:
{own_images}
{notes}
Converted by vgau_data {version}:

```bash
vgau-data build --from-paper PATH_TO_A_CLONE --out DIR
```

### Where our solvers disagree with the stored data

{findings}"""


def _own_images_text(report: PaperBuildReport) -> str:
    lines = []
    for family, n in report.rows.items():
        own = report.own_images.get(family, [])
        if not own:
            continue
        listed = "all" if len(own) == n else ", ".join(f"`{i}`" for i in own[:12]) + (" ..." if len(own) > 12 else "")
        lines.append(f"  - {family}: {len(own)} of {n} rows ({listed})")
    return "\n".join(lines) or "  none: every row shows the authors' own image."


def _findings_table(findings: Sequence[Finding]) -> str:
    if not findings:
        return "None: every stored optimum and solution agrees with our solvers."
    lines = ["| family | id | what | detail |", "| --- | --- | --- | --- |"]
    lines += [f"| {f.family} | {f.task_id} | {f.kind} | {f.detail.replace('|', '/')} |" for f in findings]
    return "\n".join(lines)


def paper_origin(report: PaperBuildReport) -> CardOrigin:
    """The card's account of a ``--from-paper`` build: source, licence, what is whose."""
    commit = f"commit `{report.commit}`" if report.commit else "commit unknown"
    how_made = _HOW_MADE.format(
        repo=PAPER_REPO,
        url=PAPER_URL,
        commit=commit,
        own_images=_own_images_text(report),
        notes="".join(fmt.card_note for family, fmt in paper_formats().items() if family in report.rows),
        version=__version__,
        findings=_findings_table(report.findings),
    )
    return CardOrigin(
        summary=f"the authors' published instances from {PAPER_REPO}, {commit}",
        how_made=how_made,
        pretty_name="VGAU-Diag puzzles (the authors' instances)",
    )
