"""Pass two of ``generate``: the kept candidates rendered into one Parquet shard, by a pure function.

``build_shard(task)`` reads its rows' states and answers from the catalog chunks, renders
each board, writes ``{family}/{split}-{k:05d}-of-{K:05d}.parquet`` whole (a synced
temporary file renamed into place) under the folder the task names, and returns the
shard's row count and sha256. The same task gives the same bytes on any machine with the
same package versions, so a retried or repeated task (Ray after a lost node, a rerun
after ``kill -9``) changes nothing, and a worker holds one shard in memory at a time.

A row carries everything a reward or a trainer needs, with no other object: ``id``,
``family``, ``split``, ``band``, ``seed``, ``optimal_length``, ``state`` (the family's
state JSON), ``solution`` (the answer payload, as in the benchmark's ``solution``),
``prompt`` (the question of the chosen protocol), ``image`` (the board, PNG), the aid
``oracle_aid`` for GtA rows, and two columns per trace kind (``traces``). Rows drawn in
another look than the benchmark's (``RowOptions.look``, docs/render-styles.md) add
``render_style``, the style every image of the row is drawn in.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

from vgau_data.builders.hub_folder import write_parquet
from vgau_data.puzzles import prompts
from vgau_data.registry import FAMILIES
from vgau_data.render_styles import OOD_STYLE, STYLE_COLUMN, RenderStyle, sample_style
from vgau_data.safe_io import sha256_of
from vgau_data.training.bands import Band
from vgau_data.training.catalog import chunk_path, read_rows
from vgau_data.training.traces import get_trace_kind, trace_rng

PROMPT_PROTOCOLS: Final[Mapping[str, Callable[[Any, Any], str]]] = {
    "text_cot": prompts.text_cot,
    "direct": prompts.direct,
    "oracle_gta": prompts.with_aid,
}
"""The protocols whose question a row's ``prompt`` may hold (their names as ``vgau-data run`` has them).
``oracle_gta``'s question talks about a second, annotated image: its rows carry ``oracle_aid``."""
LOOKS: Final = ("benchmark", "variety", "variety+benchmark", "held_out")
"""How a row's boards are drawn: in the benchmark's own style (the test rows' look); in a
training style drawn per row from its seed that is never the benchmark's (``variety``) or
may be (``variety+benchmark``); or in the held-out style (``held_out``, the
``validation_ood`` split)."""


@dataclass(frozen=True, slots=True)
class RowOptions:
    """What a row holds beyond the fixed columns: the prompt's protocol, the aid, the trace kinds."""

    prompt: str = "text_cot"
    oracle_aid: bool = False
    traces: tuple[str, ...] = ()
    look: str = "benchmark"
    """One of ``LOOKS``."""

    @property
    def with_aid(self) -> bool:
        return self.oracle_aid or self.prompt == "oracle_gta"

    def style(self, seed: int) -> RenderStyle | None:
        """The style of the row seeded ``seed`` (None: the benchmark's, and no ``render_style`` column)."""
        if self.look == "benchmark":
            return None
        if self.look == "held_out":
            return OOD_STYLE
        return sample_style(seed, include_benchmark=self.look == "variety+benchmark")


def row_features(options: RowOptions) -> Any:
    """The ``datasets.Features`` of a generated row."""
    from datasets import Features, Image, Value

    columns: dict[str, Any] = {
        "id": Value("string"),
        "family": Value("string"),
        "split": Value("string"),
        "band": Value("string"),
        "seed": Value("int64"),
        "optimal_length": Value("int32"),
        "state": Value("string"),
        "solution": Value("string"),
        "prompt": Value("string"),
        "image": Image(),
    }
    if options.look != "benchmark":
        columns[STYLE_COLUMN] = Value("string")
    if options.with_aid:
        columns["oracle_aid"] = Image()
    for name in options.traces:
        columns |= get_trace_kind(name).features()
    return Features(columns)


def row_id(family: str, split: str, band: Band, index: int) -> str:
    """``maze-train-1-6-00000042``: candidate ``index`` of a band."""
    return f"{family}-{split}-{band.name}-{index:08d}"


def _image_cell(data: bytes) -> dict[str, Any]:
    return {"bytes": data, "path": None}


def training_row(family: str, split: str, band: Band, entry: Mapping[str, Any], options: RowOptions) -> dict[str, Any]:
    """The row of one kept catalog entry (``index``, ``seed``, ``optimal_length``, ``state``, ``solution``)."""
    from vgau_data.builders.instances import COLUMN_CODECS
    from vgau_data.oracle_aids import oracle_aid
    from vgau_data.rendering import encode_image

    style = options.style(entry["seed"])
    spec = FAMILIES[family] if style is None else FAMILIES[family].styled(style)
    state = spec.from_json(entry["state"])
    answer = spec.answer_from_payload(entry["solution"])
    row: dict[str, Any] = {
        "id": row_id(family, split, band, entry["index"]),
        "family": family,
        "split": split,
        "band": band.name,
        "seed": entry["seed"],
        "optimal_length": entry["optimal_length"],
        "state": entry["state"],
        "solution": entry["solution"],
        "prompt": PROMPT_PROTOCOLS[options.prompt](spec, state),
        "image": _image_cell(encode_image(spec.render(state), COLUMN_CODECS["image"])),
    }
    if style is not None:
        row[STYLE_COLUMN] = style.to_json()
    if options.with_aid:
        row["oracle_aid"] = _image_cell(encode_image(oracle_aid(spec, state), COLUMN_CODECS["oracle_aid"]))
    for name in options.traces:
        columns = get_trace_kind(name).columns(spec, state, answer, trace_rng(entry["seed"], name))
        images = f"trace_{name}_images"
        row |= columns | {images: [_image_cell(data) for data in columns[images]]}
    return row


@dataclass(frozen=True, slots=True)
class ShardTask:
    """One shard: which kept candidates it holds, as ``(chunk, offset)`` pairs, and where it goes."""

    out_dir: str
    stage_dir: str
    catalog_dir: str
    family: str
    split: str
    band: Band
    shard: int
    shards: int
    rows: tuple[tuple[int, int], ...]
    options: RowOptions = field(default_factory=RowOptions)

    @property
    def relative_path(self) -> str:
        """``maze/train-00003-of-00010.parquet``: where the finished folder holds it."""
        return shard_name(self.family, self.split, self.shard, self.shards)

    @property
    def path(self) -> Path:
        return Path(self.stage_dir) / self.relative_path


def shard_name(family: str, split: str, shard: int, shards: int) -> str:
    return f"{family}/{split}-{shard:05d}-of-{shards:05d}.parquet"


@dataclass(frozen=True, slots=True)
class ShardResult:
    shard: int
    path: str
    rows: int
    sha256: str
    bytes: int


def build_shard(task: ShardTask) -> ShardResult:
    """Render the task's rows and write its shard whole; return what the manifest records."""
    by_chunk: dict[int, list[int]] = defaultdict(list)
    for chunk, offset in task.rows:
        by_chunk[chunk].append(offset)
    entries: list[Mapping[str, Any]] = []
    for chunk in sorted(by_chunk):  # rows are in (chunk, offset) order, so this keeps their order
        path = chunk_path(Path(task.out_dir), task.catalog_dir, chunk)
        entries.extend(read_rows(path, by_chunk[chunk]))
    rows = [training_row(task.family, task.split, task.band, entry, task.options) for entry in entries]
    write_parquet(rows, task.path, row_features(task.options))
    return ShardResult(task.shard, task.relative_path, len(rows), sha256_of(task.path), task.path.stat().st_size)


def split_rows(rows: Sequence[tuple[int, int]], shard_rows: int) -> list[tuple[tuple[int, int], ...]]:
    """Consecutive groups of at most ``shard_rows`` (the last may be shorter)."""
    return [tuple(rows[i : i + shard_rows]) for i in range(0, len(rows), shard_rows)]
