"""What an exporter is, and the one loop that runs any of them over a folder of rows.

An exporter is a subclass of ``Exporter`` (one module each, registered in
``exporters/__init__.py``): ``convert`` turns one source row (and its trace record) into
the rows of its format, ``writer`` opens a shard file, ``finish`` writes the side files
its consumer needs (a dataset card, ``dataset_info.json``, ``parquet_info``).

``export_training`` lays out ``<out>/<family>/<split>/<split>-NNNNN-of-NNNNN<suffix>``:
shard ``k`` holds what the source rows ``k*R .. (k+1)*R - 1`` of that family's split
convert to (``R`` = ``shard_rows``), so the shard count is known before any row is read,
a rerun after a kill skips the shards already renamed into place (and removes the
temporary files the killed run left, ``safe_io.remove_stale_temps``), and the same inputs and
options give the same bytes. The options and the inputs' fingerprints are written first
(``export-plan.json``: a rerun with other ones is refused rather than mixed in); the
manifest of every shard with its rows and sha256 is written last (``export.json``), so
an export without it is incomplete.
"""

from __future__ import annotations

import dataclasses
import json
import math
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

from vgau_data import __version__
from vgau_data.errors import VgauError
from vgau_data.safe_io import remove_stale_temps, sha256_of
from vgau_data.training.exporters.files import ParquetWriter, ShardWriter, write_json
from vgau_data.training.exporters.source import Source, SourceRow

PLAN_NAME = "export-plan.json"
MANIFEST_NAME = "export.json"
SINGLE_TURN_PROTOCOLS: tuple[str, ...] = ("direct", "text_cot", "oracle_gta")
"""Prompts a prompt-only (RL) export can give: the single-turn protocols, whose answer a reward scores."""


class ExportError(VgauError, ValueError):
    """An export that cannot be made as asked (the message says what to change)."""


@dataclass(frozen=True, slots=True)
class ExportOptions:
    """What every exporter may read: the trace kind (SFT formats) or the prompt's protocol (RL formats),
    and whether its rows' metadata carries their ``render_style``."""

    traces: str | None
    protocol: str
    render_styles: bool = False
    """True when a source shard exported has a ``render_style`` column (``Group.styled``): every row of
    the export then carries the field, its style's JSON or null (``SourceRow.style_metadata``)."""


@dataclass(frozen=True, slots=True)
class Shard:
    """One output shard: its family, split, index and path."""

    family: str
    split: str
    index: int
    count: int
    path: Path


class Exporter:
    """One trainer's format. Class attributes:

    name: registry key (``--format``).
    summary: one line for ``--help``.
    consumer: the call or config that reads the output, for the docs and the command's epilog.
    suffix: the shard files' extension.
    default_traces: the trace kind used when none is asked for; None for a prompt-only
        format (RL), which takes ``--protocol`` instead and no trace.
    shard_rows: source rows per shard (default of ``--shard-rows``).
    row_group_rows: rows per Parquet row group.
    """

    name: ClassVar[str]
    summary: ClassVar[str]
    consumer: ClassVar[str]
    suffix: ClassVar[str] = ".parquet"
    default_traces: ClassVar[str | None] = "text_cot"
    shard_rows: ClassVar[int] = 500
    row_group_rows: ClassVar[int] = 100

    def features(self, options: ExportOptions) -> Any:
        """The ``datasets.Features`` of a Parquet format's rows."""
        raise NotImplementedError

    def writer(self, shard: Shard, options: ExportOptions) -> ShardWriter:
        from vgau_data.builders.hub_folder import arrow_schema

        return ParquetWriter(shard.path, arrow_schema(self.features(options)), self.row_group_rows)

    def convert(self, row: SourceRow, index: int, options: ExportOptions) -> Iterator[Mapping[str, Any]]:
        """The output rows of source row ``index`` (0-based within its family's split)."""
        raise NotImplementedError

    def finish(self, out: Path, shards: Sequence[Shard], options: ExportOptions) -> None:
        """Side files of a finished export (default: a dataset card with one config per family)."""
        write_card(out, shards, self)


def write_card(out: Path, shards: Sequence[Shard], exporter: Exporter) -> None:
    """A README whose ``configs:`` make ``load_dataset(out, family, split=...)`` read the shards."""
    import yaml

    from vgau_data.safe_io import write_bytes

    splits: dict[str, list[str]] = {}
    for shard in shards:
        splits.setdefault(shard.family, [])
        if shard.split not in splits[shard.family]:
            splits[shard.family].append(shard.split)
    configs = [
        {
            "config_name": family,
            "data_files": [{"split": split, "path": f"{family}/{split}/{split}-*{exporter.suffix}"} for split in names],
        }
        for family, names in splits.items()
    ]
    header = yaml.safe_dump({"configs": configs, "tags": ["visual-planning", "vgau"]}, sort_keys=False)
    body = f"# VGAU-Diag training data: {exporter.name}\n\n{exporter.summary}.\n\nRead it with: {exporter.consumer}\n"
    write_bytes(out / "README.md", f"---\n{header}---\n\n{body}".encode())


def _resolved_options(exporter: Exporter, traces: str | None, protocol: str | None) -> ExportOptions:
    from vgau_data.training.traces import get_trace_kind

    if exporter.default_traces is None:
        if traces is not None:
            raise ExportError(f"--format {exporter.name} writes prompts for RL, not traces; drop --traces")
        protocol = protocol or "text_cot"
        if protocol not in SINGLE_TURN_PROTOCOLS:
            raise ExportError(f"--protocol must be one of {', '.join(SINGLE_TURN_PROTOCOLS)}, got {protocol!r}")
        return ExportOptions(traces=None, protocol=protocol)
    if protocol is not None:
        raise ExportError(f"--format {exporter.name} writes traces; --protocol applies to RL formats only")
    return ExportOptions(traces=get_trace_kind(traces or exporter.default_traces).name, protocol="")


def _plan(
    exporter: Exporter, options: ExportOptions, groups: Sequence[Any], shard_rows: int, limit: int | None
) -> dict[str, Any]:
    return {
        "format": exporter.name,
        "traces": options.traces,
        "protocol": options.protocol or None,
        "shard_rows": shard_rows,
        "limit": limit,
        "vgau_data": __version__,
        "inputs": [
            {"path": f.relative, "rows": f.num_rows, "footer_sha256": f.footer_sha256}
            for group in groups
            for f in group.files
        ],
    }


def _check_plan(out: Path, plan: Mapping[str, Any]) -> None:
    path = out / PLAN_NAME
    if path.is_file():
        try:
            previous = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            previous = None
        if previous != json.loads(json.dumps(plan)):
            raise ExportError(
                f"{out} holds an export of other inputs or options ({PLAN_NAME}); choose another --out or remove it"
            )
        return
    (out / MANIFEST_NAME).unlink(missing_ok=True)
    write_json(path, plan)


def _count_rows(path: Path) -> int:
    """Rows of a finished shard: Parquet metadata, or lines of a JSONL file."""
    if path.suffix == ".parquet":
        import pyarrow.parquet as pq

        return int(pq.read_metadata(path).num_rows)
    with path.open("rb") as handle:
        return sum(1 for _ in handle)


def export_training(
    source: str | Path,
    exporter: Exporter,
    out: str | Path,
    *,
    traces: str | None = None,
    protocol: str | None = None,
    families: Sequence[str] | None = None,
    shard_rows: int | None = None,
    limit: int | None = None,
    progress: bool = True,
) -> list[Shard]:
    """Export the rows of ``source`` (training shards or the benchmark folder) in ``exporter``'s format.

    Args:
        source: a folder written by ``vgau-data generate`` or ``vgau-data build``.
        exporter: a registered exporter (``get_exporter``).
        out: the folder to write (created; resumed when it holds this same export unfinished).
        traces: the trace kind of an SFT format (default: the exporter's).
        protocol: the prompt of an RL format (``direct``, ``text_cot``, ``oracle_gta``).
        families: families to export (default: all in the source).
        shard_rows: source rows per output shard (default: the exporter's).
        limit: export only the first ``limit`` rows of each family's split.
        progress: show a progress bar over source rows.

    Returns:
        every shard written or found finished, in export order.
    """
    from tqdm.auto import tqdm

    options = _resolved_options(exporter, traces, protocol)
    rows_per_shard = shard_rows or exporter.shard_rows
    if rows_per_shard < 1 or (limit is not None and limit < 1):
        raise ExportError("--shard-rows and --limit must be at least 1")
    src = Source(source)
    groups = src.select(families)
    options = dataclasses.replace(options, render_styles=any(group.styled for group in groups))
    root = Path(out)
    root.mkdir(parents=True, exist_ok=True)
    _check_plan(root, _plan(exporter, options, groups, rows_per_shard, limit))
    remove_stale_temps(root, recursive=True)  # what a killed export was writing
    wanted = [min(group.num_rows, limit or group.num_rows) for group in groups]
    kinds = [options.traces] if options.traces else []
    shards: list[Shard] = []
    with tqdm(total=sum(wanted), desc=f"export {exporter.name}", unit="row", disable=not progress) as bar:
        for group, total in zip(groups, wanted):
            count = max(1, math.ceil(total / rows_per_shard))
            for index in range(count):
                name = f"{group.split}-{index:05d}-of-{count:05d}{exporter.suffix}"
                shard = Shard(group.family, group.split, index, count, root / group.family / group.split / name)
                shards.append(shard)
                start, stop = index * rows_per_shard, min((index + 1) * rows_per_shard, total)
                if shard.path.is_file():
                    bar.update(stop - start)
                    continue
                writer = exporter.writer(shard, options)
                try:
                    for position, row in enumerate(src.rows(group, start, stop, kinds), start):
                        for converted in exporter.convert(row, position, options):
                            writer.add(converted)
                        bar.update(1)
                except BaseException:
                    writer.abort()
                    raise
                writer.close()
    exporter.finish(root, shards, options)
    manifest = {
        **_plan(exporter, options, groups, rows_per_shard, limit),
        "consumer": exporter.consumer,
        "shards": [
            {"path": s.path.relative_to(root).as_posix(), "rows": _count_rows(s.path), "sha256": sha256_of(s.path)}
            for s in shards
        ],
    }
    write_json(root / MANIFEST_NAME, manifest)
    return shards
