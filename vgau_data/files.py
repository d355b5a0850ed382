"""Files that appear whole or not at all.

``atomic_file(path)`` hands out a temporary file beside ``path``; when the block ends it is
flushed, synced and renamed over ``path`` (a rename within one folder is atomic), and when
the block raises it is removed. A reader, a rerun after ``kill -9`` or a second process
therefore never sees half a file under the final name. ``sha256_of`` is the one file
hasher (manifests record it, reruns compare it).
"""

from __future__ import annotations

import hashlib
import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import BinaryIO

TEMPORARY_SUFFIX = ".tmp"


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


@contextmanager
def atomic_file(path: Path) -> Iterator[BinaryIO]:
    """Write ``path`` through a synced temporary file renamed into place (mode as ``open`` would give).

    Example:
        >>> import tempfile
        >>> target = Path(tempfile.mkdtemp()) / "a.txt"
        >>> with atomic_file(target) as handle:
        ...     _ = handle.write(b"whole")
        >>> target.read_bytes()
        b'whole'
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=TEMPORARY_SUFFIX, dir=path.parent)
    temporary = Path(name)
    try:
        os.fchmod(handle, 0o666 & ~_umask())
        with os.fdopen(handle, "wb") as sink:
            yield sink
            sink.flush()
            os.fsync(sink.fileno())
        temporary.replace(path)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise


def write_atomic(path: Path, data: bytes) -> None:
    """``path`` replaced whole by ``data``."""
    with atomic_file(path) as sink:
        sink.write(data)


def sha256_of(path: Path) -> str:
    """The hex sha256 of a file, read 1 MiB at a time."""
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()
