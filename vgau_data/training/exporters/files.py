"""Writing export files so that an interrupted export never leaves a file that looks complete.

Every file is written to a temporary name in its own folder, flushed and fsynced, then
renamed into place (``atomic_path``). A shard's rows stream through a writer that holds
one row group (Parquet) or one line (JSONL) at a time, so memory stays bounded by a row
group whatever the shard's size. Side files a shard needs (the image files of a BAGEL
think trace) go into a folder that is renamed into place before the shard itself, so a
shard that exists has all its images.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any, BinaryIO

from vgau_data.safe_io import write_bytes


@contextlib.contextmanager
def atomic_path(path: Path) -> Iterator[Path]:
    """A temporary path beside ``path``; renamed onto it (after an fsync) only if the block succeeds."""
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(f".{path.name}.tmp")
    try:
        yield temporary
        with temporary.open("rb+") as handle:
            os.fsync(handle.fileno())
        os.replace(temporary, path)
    finally:
        temporary.unlink(missing_ok=True)


def write_json(path: Path, obj: Any) -> None:
    """Replace ``path`` with ``obj`` as indented, key-sorted JSON, atomically."""
    write_bytes(path, (json.dumps(obj, indent=2, sort_keys=True, ensure_ascii=False) + "\n").encode("utf-8"))


class ShardWriter:
    """Rows of one output shard: ``add`` each, then ``close`` (the shard appears whole) or ``abort`` (nothing stays)."""

    rows: int = 0

    def add(self, row: Mapping[str, Any]) -> None:
        raise NotImplementedError

    def close(self) -> None:
        raise NotImplementedError

    def abort(self) -> None:
        raise NotImplementedError


class _TemporaryFile(ShardWriter):
    """A shard written to a temporary file and renamed onto ``path`` (after an fsync) by ``close``."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.rows = 0
        self._context = atomic_path(path)
        self.temporary = self._context.__enter__()

    def _finish(self) -> None:
        """Flush and close what the subclass holds open on the temporary file."""

    def close(self) -> None:
        self._finish()
        self._context.__exit__(None, None, None)

    def abort(self) -> None:
        self._finish()
        self._context.__exit__(RuntimeError, RuntimeError("aborted"), None)


class JsonlWriter(_TemporaryFile):
    """One JSON object per line (UTF-8, keys in row order)."""

    def __init__(self, path: Path) -> None:
        super().__init__(path)
        self._handle: BinaryIO = self.temporary.open("wb")

    def add(self, row: Mapping[str, Any]) -> None:
        self._handle.write(json.dumps(row, ensure_ascii=False, separators=(",", ":")).encode("utf-8") + b"\n")
        self.rows += 1

    def _finish(self) -> None:
        self._handle.close()


class ParquetWriter(_TemporaryFile):
    """Rows of one Arrow ``schema``, written ``row_group_rows`` at a time (images stored uncompressed)."""

    def __init__(self, path: Path, schema: Any, row_group_rows: int) -> None:
        import pyarrow.parquet as pq

        super().__init__(path)
        self.schema = schema
        self.row_group_rows = row_group_rows
        self._buffer: list[Mapping[str, Any]] = []
        self._writer = pq.ParquetWriter(self.temporary, schema, compression="snappy", write_page_index=True)

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

    def _finish(self) -> None:
        self._flush()
        self._writer.close()

    def abort(self) -> None:
        self._buffer = []
        super().abort()


class SideFolder:
    """A folder of files written beside a shard (its images), renamed into place in one step by ``close``."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.temporary = path.with_name(f".{path.name}.tmp")
        shutil.rmtree(self.temporary, ignore_errors=True)
        self.temporary.mkdir(parents=True)

    def write(self, name: str, data: bytes) -> str:
        """Write one file; returns its name."""
        with (self.temporary / name).open("wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        return name

    def close(self) -> None:
        shutil.rmtree(self.path, ignore_errors=True)
        os.replace(self.temporary, self.path)

    def abort(self) -> None:
        shutil.rmtree(self.temporary, ignore_errors=True)
