"""What a built (``vgau-data build``) or generated (``vgau-data generate``) folder holds, for ``vgau-data info``.

Read from the files, not trusted from the card: rows per family, split and difficulty (or
generation band) with their ``optimal_length`` histogram, from two columns of each Parquet
file; then what the folder records of how it was made (a generated folder's manifest:
per band draws, unique yield, duplicates, rows dropped as test instances, and the package
versions; a build's card: the package version). Files are found as ``decontam`` finds them
(no links followed) and read a row group at a time; an unreadable one is an error, never
skipped.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

from vgau_data import safe_io
from vgau_data.builders.push import GENERATED_MANIFEST
from vgau_data.errors import DatasetError
from vgau_data.registry import FAMILIES
from vgau_data.training.decontam import parquet_files

MAX_ROWS: Final = 50_000_000
"""Most rows summarised (from the files' metadata, before reading any): more is not a dataset folder of ours."""
MAX_CARD_BYTES: Final = 4 << 20
_CARD_VERSION = re.compile(r"`vgau_data` package \(version ([0-9A-Za-z.+!-]{1,40}),")


@dataclass
class FolderInfo:
    """A folder's summary: ``rows[(family, split, group)]`` is a histogram of ``optimal_length``."""

    kind: str
    rows: dict[tuple[str, str, str], Counter[int]] = field(default_factory=dict)
    generation: list[dict[str, Any]] = field(default_factory=list)
    versions: dict[str, str] = field(default_factory=dict)

    def table(self) -> list[str]:
        """The summary as aligned text lines."""
        lines = [f"{'family':<9}{'split':<8}{'bucket':<10}{'rows':>7}  optimal_length: rows"]
        for (family, split, group), lengths in sorted(self.rows.items(), key=_order):
            histogram = " ".join(f"{length}:{count}" for length, count in sorted(lengths.items()))
            lines.append(f"{family:<9}{split:<8}{group:<10}{sum(lengths.values()):>7}  {histogram}")
        total = sum(sum(lengths.values()) for lengths in self.rows.values())
        lines.append(f"{'total':<27}{total:>7}")
        if self.generation:
            lines.append("")
            lines.append(
                f"{'family':<9}{'split':<8}{'band':<10}{'rows':>7}{'draws':>8}{'yield':>8}"
                f"{'duplicates':>12}{'test set':>10}{'failed':>8}"
            )
            for entry in self.generation:
                lines.append(
                    f"{entry['family']:<9}{entry['split']:<8}{entry['band']:<10}{entry['rows']:>7}{entry['draws']:>8}"
                    f"{entry['yield']:>8}{entry['duplicates']:>12}{entry['banned']:>10}{entry['failed']:>8}"
                )
            banned = sum(entry["banned"] for entry in self.generation if isinstance(entry["banned"], int))
            keys = self.versions.get("heldout_keys", "?")[:12]
            lines.append(
                f"decontamination: {banned} draws were test instances and were dropped at generation (exact "
                f"keys, held-out keys {keys}); `vgau-data decontam DIR` checks symmetric and trajectory "
                "overlaps, and its result is not recorded in the folder"
            )
        if self.versions:
            lines.append(
                "versions: "
                + ", ".join(
                    f"{name} {value}" for name, value in sorted(self.versions.items()) if name != "heldout_keys"
                )
            )
        return lines


def folder_info(folder: str | Path) -> FolderInfo:
    """Summarise ``folder``.

    Raises:
        DatasetError: it is not a folder, holds no ``<family>/*.parquet``, or a file or the
            manifest cannot be read.
    """
    root = Path(folder)
    files, _ = parquet_files(root)  # Parquet files outside a family folder are not summarised (decontam lists them)
    if not files:
        raise DatasetError(f"{root} holds no <family>/*.parquet files; is it a `vgau-data build` or `generate` folder?")
    generated = (root / GENERATED_MANIFEST).is_file()
    info = FolderInfo("vgau-data generate" if generated else "vgau-data build")
    budget = MAX_ROWS
    for family, split, path in files:
        budget = _count_rows(info, family, split, path, budget)
    if generated:
        _read_manifest(info, root)
    elif (root / "README.md").is_file():
        card = safe_io.read_text(root / "README.md", limit=MAX_CARD_BYTES, inside=root, what="dataset card")
        if match := _CARD_VERSION.search(card):
            info.versions["vgau-data"] = match.group(1)
    return info


def _count_rows(info: FolderInfo, family: str, split: str, path: Path, budget: int) -> int:
    import pyarrow as pa
    import pyarrow.parquet as pq

    try:
        handle = pq.ParquetFile(path)
        names = set(handle.schema_arrow.names)
        if "optimal_length" not in names:
            raise DatasetError(f"{path} has no optimal_length column; it is not a puzzle dataset file")
        budget -= handle.metadata.num_rows
        if budget < 0:
            raise DatasetError(f"{path}: the folder holds over {MAX_ROWS:,} rows; it is not a puzzle dataset folder")
        group_column = "difficulty" if "difficulty" in names else ("band" if "band" in names else None)
        columns = ["optimal_length", *([group_column] if group_column else [])]
        for index in range(handle.num_row_groups):
            for row in handle.read_row_group(index, columns=columns).to_pylist():
                group = row.get(group_column) if group_column else "-"
                key = (family, split, group if isinstance(group, str) and len(group) <= 20 else "?")
                length = row["optimal_length"]
                info.rows.setdefault(key, Counter())[length if isinstance(length, int) else -1] += 1
    except (pa.ArrowException, OSError) as error:
        raise DatasetError(f"{path} is not a readable Parquet file ({error})") from None
    return budget


def _read_manifest(info: FolderInfo, root: Path) -> None:
    from vgau_data.training.manifest import Manifest

    manifest = Manifest.load(root)
    info.versions = {str(name): str(value)[:80] for name, value in manifest.data["versions"].items()}
    for name, part in manifest.parts.items():
        family, _, split = str(name).partition("/")
        bands = part.get("bands") if isinstance(part, dict) else None
        if not isinstance(bands, dict):
            raise DatasetError(f"{root / GENERATED_MANIFEST}: part {name!r} has no bands")
        for band, tally in bands.items():
            if not isinstance(tally, dict):
                raise DatasetError(f"{root / GENERATED_MANIFEST}: band {band!r} of part {name!r} is not an object")
            rate = tally.get("unique_yield")
            info.generation.append(
                {
                    "family": family[:9],
                    "split": split[:8],
                    "band": str(band)[:10],
                    "yield": f"{rate:.1%}" if isinstance(rate, (int, float)) else "-",
                    **{
                        key: tally[key] if isinstance(tally.get(key), int) else "-"
                        for key in ("rows", "draws", "duplicates", "banned", "failed")
                    },
                }
            )


def _order(item: tuple[tuple[str, str, str], Any]) -> tuple[int, str, int, str]:
    family, split, group = item[0]
    groups = ("easy", "medium", "hard")
    return (list(FAMILIES).index(family), split, groups.index(group) if group in groups else len(groups), group)
