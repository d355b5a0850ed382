"""Stand-ins for the checkouts of unified models that live in their own repositories."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path


def write_files(folder: Path, files: Mapping[str, str]) -> Path:
    """Lay ``files`` (relative path -> text) out under ``folder``."""
    for name, text in files.items():
        path = folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text.lstrip("\n"))
    return folder
