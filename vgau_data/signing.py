"""Lines of our own caches, sealed with a key only this user's machine holds.

A cache kept inside a run folder travels with it: whoever hands us a folder can write
into ``fidelity.jsonl`` any number they like. Each cache line therefore carries an
HMAC-SHA256 of its content under a random key kept outside every run folder
(``$VGAU_DATA_CACHE_DIR/cache.key``, by default ``~/.cache/vgau_data/cache.key``, created
on first use, readable by its owner only). A line that does not verify was not written
by this machine's ``vgau-data`` and is recomputed; a folder copied from elsewhere costs
one recomputation, never a forged number.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import hmac
import json
import logging
import os
import secrets
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Final

from vgau_data import safe_io
from vgau_data.errors import InputFileError

logger = logging.getLogger(__name__)

CACHE_DIR_ENV: Final = "VGAU_DATA_CACHE_DIR"
KEY_NAME: Final = "cache.key"
KEY_BYTES: Final = 32
SEAL_FIELD: Final = "seal"


def cache_dir() -> Path:
    """``$VGAU_DATA_CACHE_DIR``, else ``$XDG_CACHE_HOME/vgau_data``, else ``~/.cache/vgau_data``."""
    chosen = os.environ.get(CACHE_DIR_ENV)
    if chosen:
        return Path(chosen)
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "vgau_data"


@functools.cache
def _key(folder: Path) -> bytes:
    path = folder / KEY_NAME
    folder.mkdir(parents=True, exist_ok=True)
    with contextlib.suppress(FileExistsError):
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        try:
            os.write(fd, secrets.token_bytes(KEY_BYTES))
            os.fsync(fd)
        finally:
            os.close(fd)
    key = safe_io.read_bytes(path, limit=1024, what="cache key")
    if len(key) < KEY_BYTES:
        raise OSError(f"{path}: the cache key is {len(key)} bytes; delete the file to make a new one")
    return key


@functools.cache
def _process_key() -> bytes:
    logger.warning("cannot keep a cache key in %s; cached measures are trusted for this process only", cache_dir())
    return secrets.token_bytes(KEY_BYTES)


def local_key() -> bytes:
    """This machine's cache key (made on first use); a key for this process alone when none can be kept."""
    try:
        return _key(cache_dir())
    except (OSError, InputFileError):
        return _process_key()


def seal(content: Mapping[str, Any]) -> str:
    """The HMAC of ``content`` (its canonical JSON, without any ``seal`` field) under ``local_key``."""
    payload = json.dumps({k: v for k, v in content.items() if k != SEAL_FIELD}, sort_keys=True, separators=(",", ":"),
                         ensure_ascii=True, allow_nan=False)  # fmt: skip
    return hmac.new(local_key(), payload.encode("ascii"), hashlib.sha256).hexdigest()


def is_sealed(content: Mapping[str, Any]) -> bool:
    """Whether ``content`` holds a ``seal`` this machine made for exactly this content."""
    stated = content.get(SEAL_FIELD)
    if not isinstance(stated, str):
        return False
    try:
        return hmac.compare_digest(stated, seal(content))
    except (TypeError, ValueError):  # content that is not plain JSON cannot have been sealed
        return False
