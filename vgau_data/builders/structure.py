"""Structure statistics per family and bucket: our instances beside the authors'.

The paper validates its difficulty split on maze alone (appendix A.1.7, Tables 5-6:
walkable, branch and corridor cells, and the same on the solution path). Every family
that declares a ``Structure`` (``FamilySpec.structure``, in its ``structure.py``: the
statistics, how one instance is measured, the authors' bucket means and, for maze, the
paper's) is measured here on our rows and on the authors' published instances, so a build
can show that its buckets are built like theirs. A family that declares none is left out
of the comparison, and a build of it writes no such table.

Solution statistics use the row's stored optimal solution (theirs: their published one).
``read_authors`` reads a copy of the authors' files with each family's minimal reader
(``Structure.measure_record``; ``benchmarks/structure.py --paper-data`` recomputes the
declared means with it).
"""

from __future__ import annotations

import dataclasses
import json
import statistics
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any, Final

from vgau_data.puzzles.base import DIFFICULTIES
from vgau_data.puzzles.capabilities import Measures, Statistic, Structure
from vgau_data.registry import FAMILIES

BucketMeans = dict[str, dict[str, Measures]]
"""``{family: {difficulty: {statistic: mean}}}``."""


def _structures() -> dict[str, Structure]:
    """The families that declare structure statistics, in registry order."""
    return {name: spec.structure for name, spec in FAMILIES.items() if spec.structure is not None}


def authors_means() -> BucketMeans:
    """The authors' bucket means every family declares (``Structure.authors``)."""
    return {name: dict(s.authors) for name, s in _structures().items() if s.authors is not None}


# ------------------------------------------------------------------------------ measures


def measure(family: str, state: Any, answer: Sequence[Any]) -> Measures:
    """The structure statistics of one instance and its optimal answer.

    Raises:
        ValueError: the family declares no structure statistics.

    Example:
        >>> from vgau_data.puzzles.maze.state import from_ascii
        >>> measure("maze", from_ascii(["S.G"]), ("right", "right"))["path_corridor"]
        1
    """
    structure = FAMILIES[family].structure
    if structure is None:
        raise ValueError(f"family {family!r} declares no structure statistics (FamilySpec.structure)")
    return structure.measure(state, answer)


def measure_row(row: Mapping[str, Any]) -> Measures | None:
    """``measure`` of a dataset row (its ``task``, ``state`` and ``solution`` columns); None when its family has none."""
    spec = FAMILIES[row["task"]]
    if spec.structure is None:
        return None
    return spec.structure.measure(spec.from_json(row["state"]), spec.answer_from_payload(row["solution"]))


def bucket_means(measured: Iterable[tuple[str, str, Measures]]) -> BucketMeans:
    """Mean of every statistic per family and difficulty, from ``(family, difficulty, measures)``."""
    grouped: dict[str, dict[str, list[Measures]]] = {}
    for family, difficulty, measures in measured:
        grouped.setdefault(family, {}).setdefault(difficulty, []).append(measures)
    return {
        family: {
            difficulty: {key: statistics.fmean(m[key] for m in rows) for key in rows[0]}
            for difficulty, rows in by_difficulty.items()
        }
        for family, by_difficulty in grouped.items()
    }


# ------------------------------------------------------------------------------ the authors' records

_AUTHOR_DIFFICULTY: Final = {"easy": "easy", "middle": "medium", "hard": "hard"}


def read_authors(data_dir: str | Path) -> list[tuple[str, str, Measures]]:
    """``(family, difficulty, measures)`` of every record in a copy of the authors' ``data/`` folder.

    Reads the file each family's ``PaperFormat`` names (``maze/maze100.jsonl`` holds JSON
    lines; the others are JSON arrays; difficulty ``middle`` is our ``medium``) with its
    ``Structure.measure_record``. Families whose file is absent, or that declare no such
    reader, are skipped.
    """
    root = Path(data_dir)
    measured = []
    for family, spec in FAMILIES.items():
        if spec.paper is None or spec.structure is None or spec.structure.measure_record is None:
            continue
        file = root / spec.paper.manifest
        if not file.is_file():
            continue
        text = file.read_text(encoding="utf-8")
        if file.suffix == ".jsonl":
            records = [json.loads(line) for line in text.splitlines() if line.strip()]
        else:
            records = json.loads(text)
        for record in records:
            difficulty = _AUTHOR_DIFFICULTY[record.get("difficulty") or record["level"]]
            measured.append((family, difficulty, spec.structure.measure_record(record)))
    return measured


# ------------------------------------------------------------------------------ comparison


@dataclasses.dataclass(frozen=True, slots=True)
class Comparison:
    """One statistic of one family: per difficulty ours, the authors' and (maze) the paper's."""

    family: str
    statistic: Statistic
    ours: dict[str, float | None]
    authors: dict[str, float | None]
    paper: dict[str, float | None]

    def difference(self, difficulty: str) -> float | None:
        """Ours relative to the authors' (0.1 = 10% more), None when either is missing or 0."""
        ours, theirs = self.ours.get(difficulty), self.authors.get(difficulty)
        if ours is None or not theirs:
            return None
        return ours / theirs - 1


def _per_difficulty(means: BucketMeans, family: str, key: str) -> dict[str, float | None]:
    return {d: means.get(family, {}).get(d, {}).get(key) for d in DIFFICULTIES}


def compare(ours: BucketMeans, authors: BucketMeans | None = None) -> list[Comparison]:
    """Every family's statistics side by side (families of ``ours`` that declare them, in registry order).

    ``authors`` defaults to the figures the families declare (``authors_means``).
    """
    authors = authors_means() if authors is None else authors
    paper = {name: dict(s.paper) for name, s in _structures().items() if s.paper is not None}
    return [
        Comparison(
            family,
            stat,
            _per_difficulty(ours, family, stat.key),
            _per_difficulty(authors, family, stat.key),
            _per_difficulty(paper, family, stat.key),
        )
        for family, structure in _structures().items()
        if family in ours
        for stat in structure.statistics
    ]


def _number(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f}"


def cell_text(row: Comparison, difficulty: str) -> str:
    """``ours / authors [/ paper] (difference)`` for one bucket."""
    parts = [_number(row.ours[difficulty]), _number(row.authors[difficulty])]
    if row.paper[difficulty] is not None:
        parts.append(_number(row.paper[difficulty]))
    difference = row.difference(difficulty)
    shown = " / ".join(parts)
    return shown if difference is None else f"{shown} ({difference:+.0%})"


def markdown_table(rows: Sequence[Comparison]) -> str:
    """The comparison as a Markdown table: each cell ``ours / authors [/ paper] (difference)``."""
    lines = [
        "| family | statistic (bucket mean) | easy | medium | hard |",
        "| --- | --- | --- | --- | --- |",
    ]
    for row in rows:
        cells = " | ".join(cell_text(row, d) for d in DIFFICULTIES)
        lines.append(f"| {row.family} | {row.statistic.label} | {cells} |")
    return "\n".join(lines)
