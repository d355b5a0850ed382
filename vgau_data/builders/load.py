"""Load one family of the dataset, from a local build folder or the Hub.

For a Hub repo this is plain ``load_dataset(repo, family)``. For a local folder it reads
the config's Parquet files by path: ``datasets`` caches a local folder under its base
name and config alone, so ``load_dataset(folder, family)`` on a rebuilt folder (or on
another folder of the same name) can return the previous build's rows.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from vgau_data.registry import get_family


def load_puzzles(source: str | Path, family: str, *, revision: str | None = None) -> Any:
    """The ``test`` split of ``family`` as a ``datasets.Dataset`` with decoded images.

    Args:
        source: a folder written by ``vgau-data build``, or a Hub repo id such as ``vgau/puzzles``.
        family: the config name (``maze``, ``sokoban``, ...).
        revision: a Hub commit, branch or tag (Hub repos only).
    """
    from datasets import load_dataset

    name = get_family(family).name
    folder = Path(source)
    if folder.is_dir():
        files = sorted(str(path) for path in (folder / name).glob("test-*.parquet"))
        if not files:
            raise FileNotFoundError(f"{folder} has no {name}/test-*.parquet; build it with `vgau-data build --out {folder}`")
        return load_dataset("parquet", data_files={"test": files}, split="test")
    return load_dataset(str(source), name, split="test", revision=revision)


def read_config_columns(folder: str | Path, family: str, columns: Sequence[str]) -> list[dict[str, Any]]:
    """Rows of one config of a local build as plain dicts, reading only ``columns`` that exist.

    Straight from the Parquet files with pyarrow (no ``datasets`` cache, images stay PNG
    bytes); scoring and the runners read the dataset this way. An absent config gives [].
    """
    import pyarrow.parquet as pq

    rows: list[dict[str, Any]] = []
    for path in sorted((Path(folder) / get_family(family).name).glob("test-*.parquet")):
        present = set(pq.read_schema(path).names)
        rows.extend(pq.read_table(path, columns=[c for c in columns if c in present]).to_pylist())
    return rows
