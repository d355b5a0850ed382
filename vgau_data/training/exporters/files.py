"""Writing export files so that an interrupted export never leaves a file that looks complete.

Every file goes through ``safe_io``: a shard is written to a locked temporary file beside
it (``safe_io.atomic_writer``) and renamed into place only by ``close``; ``abort``, or a
process killed meanwhile, leaves no file at the shard's name (a killed writer's temporary
file is removed by ``safe_io.remove_stale_temps`` when the export is rerun). A shard's
rows stream through a writer that holds one row group (Parquet) or one line (JSONL) at a
time, so memory stays bounded by a row group whatever the shard's size. Side files a
shard needs (the image files of a BAGEL think trace) go into a folder that is renamed
into place before the shard itself (``safe_io.atomic_folder``), so a shard that exists
has all its images.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from vgau_data.safe_io import atomic_writer, write_bytes


def write_json(path: Path, obj: Any) -> None:
    """Replace ``path`` with ``obj`` as indented, key-sorted JSON, atomically."""
    write_bytes(path, (json.dumps(obj, indent=2, sort_keys=True, ensure_ascii=False) + "\n").encode("utf-8"))


class ShardAborted(Exception):
    """Raised into a shard's open ``safe_io`` writers by ``ShardWriter.abort``: they remove their temporaries."""


class ShardWriter:
    """Rows of one output shard: ``add`` each, then ``close`` (the shard appears whole) or ``abort`` (nothing stays).

    A subclass enters its ``safe_io`` writers on ``self._open``; ``close`` leaves them in
    reverse order (the last entered is put in place first), as nested ``with`` blocks would.
    """

    rows: int = 0

    def __init__(self) -> None:
        self.rows = 0
        self._open = contextlib.ExitStack()

    def add(self, row: Mapping[str, Any]) -> None:
        raise NotImplementedError

    def close(self) -> None:
        self._open.close()

    def abort(self) -> None:
        self._open.__exit__(ShardAborted, ShardAborted(), None)


class JsonlWriter(ShardWriter):
    """One JSON object per line (UTF-8, keys in row order)."""

    def __init__(self, path: Path) -> None:
        super().__init__()
        self.path = path
        self._sink = self._open.enter_context(atomic_writer(path))

    def add(self, row: Mapping[str, Any]) -> None:
        self._sink.write(json.dumps(row, ensure_ascii=False, separators=(",", ":")).encode("utf-8") + b"\n")
        self.rows += 1


class ParquetWriter(ShardWriter):
    """Rows of one Arrow ``schema``, written ``row_group_rows`` at a time."""

    def __init__(self, path: Path, schema: Any, row_group_rows: int) -> None:
        import pyarrow.parquet as pq

        super().__init__()
        self.path = path
        self.schema = schema
        self.row_group_rows = row_group_rows
        self._buffer: list[Mapping[str, Any]] = []
        sink = self._open.enter_context(atomic_writer(path))
        self._writer = self._open.enter_context(
            pq.ParquetWriter(sink, schema, compression="snappy", write_page_index=True)
        )

    def add(self, row: Mapping[str, Any]) -> None:
        self._buffer.append(row)
        self.rows += 1
        if len(self._buffer) >= self.row_group_rows:
            self._flush()

    def _flush(self) -> None:
        import pyarrow as pa

        if self._buffer:
            self._writer.write_table(
                pa.Table.from_pylist(self._buffer, schema=self.schema), row_group_size=len(self._buffer)
            )
            self._buffer = []

    def close(self) -> None:
        self._flush()
        super().close()
