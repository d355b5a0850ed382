"""The dataset folder exactly as it goes to the Hub repo ``vgau/puzzles``.

Layout: ``README.md`` (YAML ``configs:`` block, one config per family, maze default, then
the dataset card) and ``<family>/test-00000-of-00001.parquet`` with PNG bytes embedded.
``datasets`` no longer runs loading scripts, so the YAML block is what makes
``load_dataset(folder_or_repo, "maze")`` find the configs.
"""

from __future__ import annotations

import hashlib
import re
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

import yaml

from vgau_data import __version__
from vgau_data.puzzles.base import DIFFICULTIES
from vgau_data.registry import FAMILIES

PARQUET_NAME = "test-00000-of-00001.parquet"
ROW_ID_PATTERN = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,99}")
"""What a row id may be: ours (``maze-hard-0042``) or the authors' (``sokoban_000``)."""
CITATION = """@article{vgau2026,
  title   = {When Does Visual Generation Help Visual Understanding in Unified Multimodal Models?},
  journal = {arXiv preprint arXiv:2608.22174},
  year    = {2026}
}"""


GENERATED_HOW_MADE = """Generators follow the paper's construction: tree mazes grown from a sampled path,
retrograde search over Sokoban and parking states, boards solvable by construction for
onet, backward walks and targeted placement for klotski, followed in every case by an
exhaustive solver that fixes `optimal_length`. Per-instance seeds are hashed from the
master seed with `numpy.random.SeedSequence`; the same seed gives identical Parquet bytes:

```bash
vgau-data build --out vgau_puzzles --seed {seed}   # vgau_data {version}
```"""


@dataclass(frozen=True, slots=True)
class CardOrigin:
    """Where a build's rows come from, as its card says: a phrase for the opening
    paragraph, the body of the "How it was made" section, and the card's pretty name."""

    summary: str
    how_made: str
    pretty_name: str = "VGAU-Diag puzzles"

    @classmethod
    def generated(cls, master_seed: int) -> CardOrigin:
        """Rows made by our generators from ``master_seed``."""
        return cls(f"master seed {master_seed}", GENERATED_HOW_MADE.format(seed=master_seed, version=__version__))


def features() -> Any:
    """The ``datasets.Features`` of a row (SPEC §4)."""
    from datasets import Features, Image, List, Value

    return Features(
        {
            "id": Value("string"),
            "task": Value("string"),
            "difficulty": Value("string"),
            "optimal_length": Value("int32"),
            "image": Image(),
            "oracle_aid": Image(),
            "oracle_states": List(Image()),
            "oracle_aug_states": List(Image()),
            "oracle_vr": Image(),
            "state": Value("string"),
            "solution": Value("string"),
            "question": Value("string"),
            "seed": Value("int64"),
        }
    )


def parquet_path(out_dir: Path, family: str) -> Path:
    return out_dir / family / PARQUET_NAME


def write_parquet(rows: Sequence[Mapping[str, Any]], path: Path) -> None:
    """Write one config's rows; the same rows give the same bytes."""
    import datasets

    path.parent.mkdir(parents=True, exist_ok=True)
    dataset = datasets.Dataset.from_list(list(rows), features=features())
    tmp = path.with_suffix(".parquet.tmp")
    bars_were_on = not datasets.are_progress_bars_disabled()
    datasets.disable_progress_bars()  # the build shows its own bars; one per write is noise
    try:
        dataset.to_parquet(str(tmp))
    finally:
        if bars_were_on:
            datasets.enable_progress_bars()
    tmp.replace(path)


def length_histogram(lengths: Sequence[int]) -> str:
    """``"18×3 19×5"``: each optimal length with its row count."""
    return " ".join(f"{length}×{count}" for length, count in sorted(Counter(lengths).items()))


def card_metadata(families: Sequence[str], n_rows: int, pretty_name: str = "VGAU-Diag puzzles") -> dict[str, Any]:
    """The YAML header of the Hub README."""
    size = "n<1K" if n_rows < 1000 else "1K<n<10K"
    default = "maze" if "maze" in families else families[0]
    return {
        "license": "cc-by-4.0",
        "language": ["en"],
        "pretty_name": pretty_name,
        "task_categories": ["visual-question-answering", "image-text-to-text"],
        "size_categories": [size],
        "tags": ["visual-planning", "puzzles", "multimodal", "unified-multimodal-models", "benchmark"],
        "configs": [
            {
                "config_name": family,
                "data_files": [{"split": "test", "path": f"{family}/test-*.parquet"}],
                **({"default": True} if family == default else {}),
            }
            for family in families
        ],
    }


def stats_table(lengths: Mapping[tuple[str, str], Sequence[int]]) -> str:
    """Markdown table: rows, optimal-length range and histogram per family x bucket."""
    lines = [
        "| family | difficulty | bucket | rows | achieved range | histogram (length×rows) |",
        "| --- | --- | --- | --- | --- | --- |",
    ]
    for family in FAMILIES:
        for difficulty in DIFFICULTIES:
            values = lengths.get((family, difficulty))
            if not values:
                continue
            low, high = FAMILIES[family].buckets[difficulty]
            lines.append(
                f"| {family} | {difficulty} | {low}-{high} | {len(values)} | {min(values)}-{max(values)} "
                f"| {length_histogram(values)} |"
            )
    return "\n".join(lines)


def write_readme(
    out_dir: Path,
    lengths: Mapping[tuple[str, str], Sequence[int]],
    master_seed: int = 0,
    *,
    origin: CardOrigin | None = None,
) -> Path:
    """Write ``README.md``: YAML metadata, the dataset card, and the achieved histograms.

    ``origin`` says where the rows come from (default: our generators from ``master_seed``).
    """
    origin = origin or CardOrigin.generated(master_seed)
    families = [f for f in FAMILIES if any(key[0] == f for key in lengths)]
    n_rows = sum(len(v) for v in lengths.values())
    header = yaml.safe_dump(card_metadata(families, n_rows, origin.pretty_name), sort_keys=False, allow_unicode=True)
    card = resources.files("vgau_data").joinpath("dataset_card.md").read_text(encoding="utf-8")
    body = card.format(
        version=__version__,
        origin=origin.summary,
        how_made=origin.how_made,
        n_rows=n_rows,
        stats_table=stats_table(lengths),
        citation=CITATION,
    )
    path = out_dir / "README.md"
    path.write_text(f"---\n{header}---\n\n{body}", encoding="utf-8")
    return path


def dataset_fingerprint(folder: str | Path) -> str:
    """sha256 over every config's Parquet bytes (and relative path): what a submission pins."""
    root = Path(folder)
    paths = sorted(root.glob("*/*.parquet"))
    if not paths:
        raise FileNotFoundError(f"no <config>/*.parquet files under {root}; build the dataset first (vgau-data build)")
    digest = hashlib.sha256()
    for path in paths:
        digest.update(path.relative_to(root).as_posix().encode())
        digest.update(b"\0")
        digest.update(path.read_bytes())
    return digest.hexdigest()
