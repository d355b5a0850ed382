"""Load one family of the dataset, from a local build folder or the Hub.

For a Hub repo this is plain ``load_dataset(repo, family)``. For a local folder it reads
the config's Parquet files by path: ``datasets`` caches a local folder under its base
name and config alone, so ``load_dataset(folder, family)`` on a rebuilt folder (or on
another folder of the same name) can return the previous build's rows.

A truncated or corrupt Parquet file is a ``DatasetError`` that names it, in one line.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from vgau_data.errors import DatasetError
from vgau_data.registry import get_family


def load_puzzles(source: str | Path, family: str, *, revision: str | None = None) -> Any:
    """The ``test`` split of ``family`` as a ``datasets.Dataset`` with decoded images.

    Args:
        source: a folder written by ``vgau-data build``, or a Hub repo id such as ``vgau/puzzles``.
        family: the config name (``maze``, ``sokoban``, ...).
        revision: a Hub commit, branch or tag (Hub repos only).
    """
    from datasets import load_dataset
    from datasets.exceptions import DatasetGenerationError

    name = get_family(family).name
    folder = Path(source)
    if folder.is_dir():
        files = sorted((folder / name).glob("test-*.parquet"))
        if not files:
            raise FileNotFoundError(f"{folder} has no {name}/test-*.parquet; build it with `vgau-data build --out {folder}`")
        for path in files:  # the footer: a truncated file fails here, named
            _parquet("read_metadata", path)
        try:
            return load_dataset("parquet", data_files={"test": [str(p) for p in files]}, split="test")
        except DatasetGenerationError:  # it wraps the Arrow error: find the file and say which it is
            for path in files:
                _parquet("read_table", path)
            raise
    return load_dataset(str(source), name, split="test", revision=revision)


def read_config_columns(folder: str | Path, family: str, columns: Sequence[str]) -> list[dict[str, Any]]:
    """Rows of one config of a local build as plain dicts, reading only ``columns`` that exist.

    Straight from the Parquet files with pyarrow (no ``datasets`` cache, images stay PNG
    bytes); scoring and the runners read the dataset this way. An absent config gives [].
    """
    rows: list[dict[str, Any]] = []
    for path in sorted((Path(folder) / get_family(family).name).glob("test-*.parquet")):
        present = set(_parquet("read_schema", path).names)
        rows.extend(_parquet("read_table", path, columns=[c for c in columns if c in present]).to_pylist())
    return rows


def _parquet(reader: str, path: Path, **options: Any) -> Any:
    """``pyarrow.parquet.<reader>(path, **options)``, a broken file turned into a one-line ``DatasetError``."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    try:
        return getattr(pq, reader)(path, **options)
    except (pa.ArrowException, OSError, ValueError) as error:
        reason = str(error).strip().splitlines()[0][:200] if str(error).strip() else type(error).__name__
        raise DatasetError(
            f"{path} is not a readable Parquet file ({reason}); rebuild the dataset (vgau-data build) or fetch it again"
        ) from None
