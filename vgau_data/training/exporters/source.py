"""The rows an export reads: training shards (``vgau-data generate``) or the benchmark folder (``vgau-data build``).

Both lay out ``<folder>/<family>/<split>-NNNNN-of-NNNNN.parquet``. Training rows carry
``id, family, split, band, seed, optimal_length, state, solution, prompt, image`` (and
``oracle_aid``, ``trace_<kind>``/``trace_<kind>_images`` when built with them, and
``render_style`` when drawn in another look than the benchmark's, docs/render-styles.md); benchmark
rows carry ``id, task, difficulty, optimal_length, image, oracle_aid, state, solution,
question, seed``, read as family = task, band = difficulty, prompt = question, split =
``test``. A row without the trace column an export asks for gets that trace computed on
the fly from its state and solution, seeded by its ``seed`` (``trace_rng``), exactly as
``generate`` computes it, in the row's render style. An export of a folder whose shards have
``render_style`` carries it in every format's metadata, null for a row drawn without one
(``SourceRow.style_metadata``); an export of benchmark-style rows has no such field.

Reading is streamed: ``Source.rows(group, start, stop)`` reads only the Parquet row groups
that hold rows ``start..stop`` of a family's split, and only the columns an export needs.
Files are found under the folder only (a link is refused), and a file that is not a
readable Parquet file, or lacks a needed column, is a one-line ``DatasetError``.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

from vgau_data.errors import DatasetError, VgauError
from vgau_data.puzzles.base import AnswerError, FamilySpec
from vgau_data.registry import FAMILIES, get_family
from vgau_data.render_styles import STYLE_COLUMN, RenderStyle, parse_render_style
from vgau_data.rendering import PNG_SIGNATURE
from vgau_data.training.traces import get_trace_kind, trace_rng
from vgau_data.training.traces.record import TraceError, parse_record

SHARD_NAME = re.compile(r"(?P<split>[a-z][a-z0-9_]{0,39})-(?P<index>\d{5})-of-(?P<count>\d{5})\.parquet")
BENCHMARK_COLUMNS: Mapping[str, str] = {"task": "family", "difficulty": "band", "question": "prompt"}
"""Benchmark column -> the training column it stands for."""
ROW_COLUMNS: tuple[str, ...] = (
    "id", "family", "band", "seed", "optimal_length", "state", "solution", "prompt", "image", "oracle_aid",
    STYLE_COLUMN,
)  # fmt: skip
OPTIONAL_COLUMNS: frozenset[str] = frozenset({"oracle_aid", STYLE_COLUMN})
FOOTER_BYTES = 8
BATCH_ROWS = 16
"""Rows decoded at a time while reading (a training row with a long trace holds a few MB of images)."""


@dataclass(frozen=True, slots=True)
class SourceRow:
    """One row to export, whatever folder it came from (see the module docstring)."""

    id: str
    family: str
    split: str
    band: str
    seed: int
    optimal_length: int
    state: str
    solution: str
    prompt: str
    image: bytes
    oracle_aid: bytes | None = None
    traces: Mapping[str, tuple[str, list[bytes]]] = field(default_factory=dict)
    render_style: RenderStyle | None = None
    """The look the row's images are drawn in; None: the benchmark's."""

    @property
    def spec(self) -> FamilySpec:
        """The row's family as drawn in the row's style (traces computed now match its ``image``)."""
        spec = get_family(self.family)
        return spec if self.render_style is None else spec.styled(self.render_style)

    def initial_state(self) -> Any:
        return self.spec.from_json(self.state)

    def answer(self) -> tuple[Any, ...]:
        """The row's optimal answer, read back from its ``solution`` payload."""
        try:
            return tuple(self.spec.answer_from_payload(self.solution))
        except AnswerError as error:
            raise DatasetError(
                f"row {self.id!r:.60}: its solution does not read as a {self.family} answer ({error})"
            ) from None

    def trace(self, kind: str) -> tuple[list[dict[str, Any]], list[bytes]]:
        """The checked messages and images of trace ``kind``: the row's own columns, or computed now."""
        if kind in self.traces:
            text, images = self.traces[kind]
            if not all(image.startswith(PNG_SIGNATURE) for image in images):
                raise TraceError(f"row {self.id!r:.60}: a trace_{kind}_images cell is not a PNG image")
        else:
            columns = get_trace_kind(kind).columns(
                self.spec, self.initial_state(), self.answer(), trace_rng(self.seed, kind)
            )
            text, images = columns[f"trace_{kind}"], columns[f"trace_{kind}_images"]
        return parse_record(text, len(images)), images

    def metadata(self, render_styles: bool) -> dict[str, Any]:
        """What every SFT format carries beside its trace: what a reward or a filter needs (``metadata_features``),
        with ``style_metadata(render_styles)`` last."""
        return {
            "id": self.id, "family": self.family, "split": self.split, "band": self.band,
            "optimal_length": self.optimal_length, "state": self.state, **self.style_metadata(render_styles),
        }  # fmt: skip

    def style_metadata(self, render_styles: bool) -> dict[str, str | None]:
        """``{"render_style": the style's JSON (``RenderStyle.to_json``), None for a row drawn without one}``
        in an export that carries styles (``ExportOptions.render_styles``), else nothing: a benchmark-style export
        has the same bytes as before styles existed."""
        if not render_styles:
            return {}
        return {STYLE_COLUMN: None if self.render_style is None else self.render_style.to_json()}

    def instance_row(self) -> dict[str, Any]:
        """The row as the protocol drivers read it (``integrations.prompts.first_message``), with its style:
        an aid the row does not store is drawn in the row's look (``Instance.family``)."""
        return {
            "id": self.id, "task": self.family, "difficulty": self.band, "optimal_length": self.optimal_length,
            "state": self.state, "image": self.image, "oracle_aid": self.oracle_aid, STYLE_COLUMN: self.render_style,
        }  # fmt: skip


def metadata_features(render_styles: bool) -> dict[str, Any]:
    """The ``datasets`` features of ``SourceRow.metadata``."""
    from datasets import Value

    names = ("id", "family", "split", "band", "optimal_length", "state")
    features = {name: Value("int32" if name == "optimal_length" else "string") for name in names}
    return features | style_features(render_styles)


def style_features(render_styles: bool) -> dict[str, Any]:
    """The ``datasets`` feature of ``SourceRow.style_metadata``: a string, null where a row has no style."""
    from datasets import Value

    return {STYLE_COLUMN: Value("string")} if render_styles else {}


@dataclass(frozen=True, slots=True)
class SourceFile:
    """One Parquet shard: where it is, what it holds, and a fingerprint of its footer."""

    path: Path
    relative: str
    family: str
    split: str
    num_rows: int
    row_group_rows: tuple[int, ...]
    columns: frozenset[str]
    footer_sha256: str


@dataclass(frozen=True, slots=True)
class Group:
    """The shards of one family's split, in file order."""

    family: str
    split: str
    files: tuple[SourceFile, ...]

    @property
    def num_rows(self) -> int:
        return sum(f.num_rows for f in self.files)

    @property
    def styled(self) -> bool:
        """Whether a shard of the group has a ``render_style`` column (rows drawn in other looks)."""
        return any(STYLE_COLUMN in f.columns for f in self.files)


class Source:
    """A folder of ``<family>/<split>-NNNNN-of-NNNNN.parquet`` shards."""

    def __init__(self, folder: str | Path) -> None:
        self.root = Path(folder)
        if not self.root.is_dir():
            raise DatasetError(
                f"{folder} is not a folder; give one written by `vgau-data generate` or `vgau-data build`"
            )

    @cached_property
    def groups(self) -> list[Group]:
        """Every family's splits, in registry order then split name; an empty folder is an error."""
        by_group: dict[tuple[str, str], list[SourceFile]] = {}
        root = self.root.resolve()
        for family in FAMILIES:
            folder = self.root / family
            if folder.is_symlink():
                raise DatasetError(f"{folder} is a link; an export reads only folders and files inside {self.root}")
            if not folder.is_dir():
                continue
            for path in sorted(folder.iterdir()):
                match = SHARD_NAME.fullmatch(path.name)
                if match is None:
                    continue
                if path.is_symlink() or not path.resolve().is_relative_to(root) or not path.is_file():
                    raise DatasetError(
                        f"{path} is a link or not a plain file; an export reads only files inside {self.root}"
                    )
                by_group.setdefault((family, match["split"]), []).append(_describe(path, root, family, match["split"]))
        if not by_group:
            raise DatasetError(
                f"{self.root} holds no <family>/<split>-NNNNN-of-NNNNN.parquet files; "
                "build one with `vgau-data generate` or `vgau-data build`"
            )
        return [
            Group(family, split, tuple(files))
            for (family, split), files in sorted(
                by_group.items(), key=lambda item: (list(FAMILIES).index(item[0][0]), item[0][1])
            )
        ]

    def select(self, families: Sequence[str] | None) -> list[Group]:
        """The groups of ``families`` (all when None); a family the folder lacks is an error."""
        if not families:
            return self.groups
        wanted = [get_family(name).name for name in families]
        present = {group.family for group in self.groups}
        missing = [name for name in wanted if name not in present]
        if missing:
            raise DatasetError(f"{self.root} has no rows of {missing}; it has {sorted(present)}")
        return [group for group in self.groups if group.family in wanted]

    def rows(self, group: Group, start: int, stop: int, traces: Sequence[str] = ()) -> Iterator[SourceRow]:
        """Rows ``start..stop`` (0-based, stop excluded) of ``group``, reading only the row groups that hold them."""
        offset = 0
        for source_file in group.files:
            for index, count in enumerate(source_file.row_group_rows):
                lo, hi = max(start - offset, 0), min(stop - offset, count)
                if lo < hi:
                    for cells in _read_rows(source_file, index, _columns(source_file, traces), lo, hi):
                        yield _row(cells, source_file, traces)
                offset += count
                if offset >= stop:
                    return


def _describe(path: Path, root: Path, family: str, split: str) -> SourceFile:
    import pyarrow as pa
    import pyarrow.parquet as pq

    try:
        meta = pq.read_metadata(path)
        schema = pq.read_schema(path)
    except (pa.ArrowException, OSError, ValueError) as error:
        reason = str(error).strip().splitlines()[0][:200] if str(error).strip() else type(error).__name__
        raise DatasetError(f"{path} is not a readable Parquet file ({reason})") from None
    with path.open("rb") as handle:
        handle.seek(0, 2)
        size = handle.tell()
        handle.seek(max(size - FOOTER_BYTES, 0))
        length = int.from_bytes(handle.read(4), "little")
        handle.seek(max(size - FOOTER_BYTES - length, 0))
        footer = handle.read(length + FOOTER_BYTES)
    return SourceFile(
        path=path,
        relative=path.resolve().relative_to(root).as_posix(),
        family=family,
        split=split,
        num_rows=meta.num_rows,
        row_group_rows=tuple(meta.row_group(i).num_rows for i in range(meta.num_row_groups)),
        columns=frozenset(schema.names),
        footer_sha256=hashlib.sha256(footer).hexdigest(),
    )


def _columns(source_file: SourceFile, traces: Sequence[str]) -> list[str]:
    """The columns to read, in the file's own names; a needed one that is missing is an error."""
    names = [
        next((b for b, t in BENCHMARK_COLUMNS.items() if t == c and b in source_file.columns), c) for c in ROW_COLUMNS
    ]
    missing = [n for n in names if n not in source_file.columns and n not in OPTIONAL_COLUMNS]
    if missing:
        raise DatasetError(f"{source_file.path} lacks the columns {missing}; it is not a training or benchmark shard")
    present = [n for n in names if n in source_file.columns]
    for kind in traces:
        pair = [f"trace_{kind}", f"trace_{kind}_images"]
        if all(name in source_file.columns for name in pair):
            present += pair
    return present


def _read_rows(source_file: SourceFile, index: int, columns: list[str], lo: int, hi: int) -> Iterator[dict[str, Any]]:
    """Rows ``lo..hi`` of row group ``index``, decoded ``BATCH_ROWS`` at a time (a row group may be hundreds of MB)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    try:
        parquet = pq.ParquetFile(source_file.path, pre_buffer=False, buffer_size=1 << 20)  # stream pages
        batches = parquet.iter_batches(BATCH_ROWS, row_groups=[index], columns=columns)
        position = 0
        for batch in batches:
            start, stop = max(lo - position, 0), min(hi - position, batch.num_rows)
            if start < stop:
                yield from batch.slice(start, stop - start).to_pylist()
            position += batch.num_rows
            if position >= hi:
                return
    except (pa.ArrowException, OSError, ValueError) as error:
        reason = str(error).strip().splitlines()[0][:200] if str(error).strip() else type(error).__name__
        raise DatasetError(f"{source_file.path}: row group {index} is not readable ({reason})") from None


def _image_bytes(cell: Any, where: str) -> bytes | None:
    """An image cell: ``{"bytes": ..., "path": ...}`` as Parquet stores ``datasets`` images, or raw bytes."""
    value = cell.get("bytes") if isinstance(cell, dict) else cell
    if value is None or isinstance(value, bytes):
        return value
    raise DatasetError(f"{where}: an image cell holds {type(value).__name__}, not bytes")


def _check_puzzle(values: dict[str, Any], family: str, where: str) -> None:
    """The state parses, the optimum is a length the family generates, and the solution reaches the goal in it.

    Checked before anything is exported, so a trainer never meets a label its reward refuses.
    """
    spec = get_family(family)
    optimum = values["optimal_length"]
    if spec.bucket_of(optimum) is None:
        ranges = ", ".join(f"{low}-{high}" for low, high in spec.buckets.values())
        raise DatasetError(f"{where}: optimal_length {optimum} is not a length {family} generates ({ranges})")
    try:
        state = spec.from_json(values["state"])
    except (VgauError, ValueError) as error:
        raise DatasetError(f"{where}: the state does not read as a {family} state ({str(error)[:160]})") from None
    try:
        replay = spec.replay(state, spec.answer_from_payload(values["solution"]))
    except AnswerError as error:
        raise DatasetError(f"{where}: the solution does not read as a {family} answer ({str(error)[:160]})") from None
    if not replay.feasible or replay.length != optimum:
        raise DatasetError(f"{where}: the solution does not solve the state in optimal_length={optimum} moves "
                           f"({replay.error or f'it takes {replay.length}'})")


def _row(cells: dict[str, Any], source_file: SourceFile, traces: Sequence[str]) -> SourceRow:
    values = {BENCHMARK_COLUMNS.get(name, name): value for name, value in cells.items()}
    where = f"{source_file.path} row {values.get('id')!r:.40}"
    for name in ("id", "state", "solution", "prompt", "band"):
        if not isinstance(values.get(name), str):
            raise DatasetError(f"{where}: column {name!r} is not a string")
    for name in ("seed", "optimal_length"):
        if not isinstance(values.get(name), int):
            raise DatasetError(f"{where}: column {name!r} is not an integer")
    if values["family"] != source_file.family:
        raise DatasetError(f"{where}: a {values['family']!r} row in the {source_file.family} folder")
    _check_puzzle(values, source_file.family, where)
    image = _image_bytes(values["image"], where)
    if image is None:
        raise DatasetError(f"{where}: the row has no board image")
    try:
        style = parse_render_style(values.get(STYLE_COLUMN), where)
    except VgauError as error:
        raise DatasetError(str(error)) from None
    found = {}
    for kind in traces:
        if f"trace_{kind}" in values:
            images = values[f"trace_{kind}_images"] or []
            found[kind] = (values[f"trace_{kind}"], [_image_bytes(cell, where) or b"" for cell in images])
    return SourceRow(
        id=values["id"], family=source_file.family, split=source_file.split, band=values["band"], seed=values["seed"],
        optimal_length=values["optimal_length"], state=values["state"], solution=values["solution"],
        prompt=values["prompt"], image=image, oracle_aid=_image_bytes(values.get("oracle_aid"), where), traces=found,
        render_style=style,
    )  # fmt: skip
