"""The dataset folder exactly as it goes to the Hub repo ``vgau/puzzles``.

Layout: ``README.md`` (YAML ``configs:`` block, one config per family, maze default, then
the dataset card) and ``<family>/test-00000-of-00001.parquet`` with image bytes embedded.
``datasets`` no longer runs loading scripts, so the YAML block is what makes
``load_dataset(folder_or_repo, "maze")`` find the configs.

The Parquet files are written with pyarrow directly, with the features recorded in the
schema metadata in the spelling every ``datasets`` release reads: ``datasets`` 4+ writes
a list of images as ``List``, which 3.x (still allowed by lmms-eval) rejects with
"Feature type 'List' not found"; the older ``Sequence`` spelling loads as ``List`` in
4+ and as ``Sequence`` in 3.x, over the same Arrow storage.
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

from vgau_data import __version__, safe_io
from vgau_data.puzzles.base import DIFFICULTIES
from vgau_data.registry import FAMILIES

PARQUET_NAME = "test-00000-of-00001.parquet"
CITATION = """@article{vgau2026,
  title   = {When Does Visual Generation Help Visual Understanding in Unified Multimodal Models?},
  journal = {arXiv preprint arXiv:2608.22174},
  year    = {2026}
}"""


GENERATED_HOW_MADE = """Generators follow the paper's construction (appendix A.1): mazes grown by leaf cells
around a depth-first-search path inside a wall border; sokoban rooms with a wall ring and
scattered walls, searched backward from the solved states; path routes laid by
depth-first search and grown into a road tree; onet boards of random pairs kept when the
solver clears them; parking boards scrambled backward from a parked red car; klotski
boards laid out as the authors' and searched by BFS. Among a few candidates per row,
generators keep the one nearest the authors' structure (the paper's Tables 5-6 for
maze). An exhaustive solver then fixes every `optimal_length`. Per-instance seeds are
hashed from the master seed with `numpy.random.SeedSequence`; the same seed gives
identical Parquet bytes:

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


ROW_GROUP_BYTES = 100 * 2**20
"""Largest row group, as ``datasets`` sizes them (the Hub viewer reads one row group at a time)."""
CONTENT_DEFINED_CHUNKING = {"min_chunk_size": 256 * 1024, "max_chunk_size": 1024 * 1024, "norm_level": 0}
"""``datasets``' own page chunking: an unchanged image keeps its bytes, so the Hub's storage dedupes re-uploads."""


def features() -> Any:
    """The ``datasets.Features`` of a row (docs/contract/columns.md)."""
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


def _portable_feature_dict(value: Any) -> Any:
    """A ``Features.to_dict()`` tree with every ``List`` spelled ``Sequence`` (readable by datasets 3.x)."""
    if isinstance(value, dict):
        return {k: ("Sequence" if k == "_type" and v == "List" else _portable_feature_dict(v)) for k, v in value.items()}
    return value


def arrow_schema(feats: Any = None) -> Any:
    """The Parquet schema of ``feats`` (default: a benchmark row's): the features' Arrow types
    plus their portable ``huggingface`` metadata."""
    feats = features() if feats is None else feats
    info = {"info": {"features": _portable_feature_dict(feats.to_dict())}}
    return feats.arrow_schema.with_metadata({"huggingface": json.dumps(info)})


def image_columns(feats: Any) -> list[str]:
    """The columns of ``feats`` that hold images (an ``Image`` or a list of them), in order."""
    from datasets import Image

    def holds_image(feature: Any) -> bool:
        if feature is None:
            return False
        return isinstance(feature, Image) or holds_image(getattr(feature, "feature", None))

    return [name for name, feature in feats.items() if holds_image(feature)]


def _leaf_paths(path: str, arrow_type: Any) -> list[str]:
    """Parquet leaf column names under ``path`` (``oracle_states.list.element.bytes``...)."""
    import pyarrow as pa

    if pa.types.is_struct(arrow_type):
        return [leaf for child in arrow_type for leaf in _leaf_paths(f"{path}.{child.name}", child.type)]
    if pa.types.is_list(arrow_type):
        return _leaf_paths(f"{path}.list.element", arrow_type.value_type)
    return [path]


def write_parquet(rows: Sequence[Mapping[str, Any]], path: Path, feats: Any = None) -> None:
    """Write rows of ``feats`` (default: a benchmark row's) to ``path``; the same rows give the same bytes.

    Image cells are ``{"bytes": ..., "path": None}``. Image columns are stored PLAIN and
    uncompressed (the bytes are already compressed images), the others snappy, as
    ``datasets`` writes them. The file appears whole or not at all: it is written to a
    temporary file beside ``path``, synced, then renamed over it.
    """
    import pyarrow as pa
    import pyarrow.parquet as pq

    feats = features() if feats is None else feats
    schema = arrow_schema(feats)
    table = pa.Table.from_pylist(list(rows), schema=schema)
    image_names = image_columns(feats)
    images = [leaf for name in image_names for leaf in _leaf_paths(name, schema.field(name).type)]
    others = [name for name in schema.names if name not in image_names]
    rows_per_group = max(1, table.num_rows * ROW_GROUP_BYTES // max(table.nbytes, 1))
    with safe_io.atomic_writer(path) as sink, pq.ParquetWriter(
        sink,
        schema,
        compression={leaf: "none" for leaf in images} | {name: "snappy" for name in others},
        use_dictionary=others,
        column_encoding={leaf: "PLAIN" for leaf in images},
        use_content_defined_chunking=CONTENT_DEFINED_CHUNKING,
        write_page_index=True,
    ) as writer:
        writer.write_table(table, row_group_size=rows_per_group)


def length_histogram(lengths: Sequence[int]) -> str:
    """``"18×3 19×5"``: each optimal length with its row count."""
    return " ".join(f"{length}×{count}" for length, count in sorted(Counter(lengths).items()))


def row_counts(lengths: Mapping[tuple[str, str], Sequence[int]]) -> dict[str, dict[str, int]]:
    """``{family: {difficulty: rows}}`` of a build, in registry order (absent families left out)."""
    counts = {f: {d: len(lengths.get((f, d), ())) for d in DIFFICULTIES} for f in FAMILIES}
    return {family: per for family, per in counts.items() if any(per.values())}


def split_summary(counts: Mapping[str, Mapping[str, int]]) -> str:
    """The card's sentence on configs and row counts, from what was really built.

    Example:
        >>> split_summary({"maze": {"easy": 2, "medium": 1, "hard": 0}})
        'One config, `maze`, with a single `test` split of 3 rows: 2 easy, 1 medium, 0 hard.'
    """
    def rows(per: Mapping[str, int]) -> str:
        return f"{sum(per.values())} rows: " + ", ".join(f"{per[d]} {d}" for d in DIFFICULTIES)

    names = ", ".join(f"`{family}`" for family in counts)
    lead = f"One config, {names}," if len(counts) == 1 else f"{len(counts)} families, one config each: {names}."
    if len({tuple(per.values()) for per in counts.values()}) == 1:
        joiner = " with" if len(counts) == 1 else " Each has"
        return f"{lead}{joiner} a single `test` split of {rows(next(iter(counts.values())))}."
    return f"{lead} Each has a single `test` split: " + "; ".join(
        f"{family} {rows(per)}" for family, per in counts.items()
    ) + "."


def parquet_sizes(path: Path) -> tuple[int, int]:
    """(bytes on disk, uncompressed bytes) of one Parquet file: ``download_size`` and ``num_bytes``."""
    import pyarrow.parquet as pq

    meta = pq.ParquetFile(path).metadata
    return path.stat().st_size, sum(meta.row_group(i).total_byte_size for i in range(meta.num_row_groups))


def card_metadata(
    counts: Mapping[str, Mapping[str, int]],
    sizes: Mapping[str, tuple[int, int]],
    pretty_name: str = "VGAU-Diag puzzles",
) -> Any:
    """The YAML header of the Hub README, a ``huggingface_hub.DatasetCardData``: its ``dataset_info``
    (real row counts, sizes and the row ``features``) written by ``datasets``' own ``DatasetInfosDict``,
    as ``push_to_hub`` writes it."""
    from datasets import DatasetInfo, SplitDict, SplitInfo
    from datasets.info import DatasetInfosDict
    from huggingface_hub import DatasetCardData

    families = list(counts)
    n_rows = sum(sum(per.values()) for per in counts.values())
    default = "maze" if "maze" in families else families[0]
    data = DatasetCardData(
        license="cc-by-4.0",
        language=["en"],
        pretty_name=pretty_name,
        task_categories=["visual-question-answering", "image-text-to-text"],
        size_categories=["n<1K" if n_rows < 1000 else "1K<n<10K"],
        tags=["visual-planning", "puzzles", "multimodal", "unified-multimodal-models", "benchmark"],
        configs=[
            {"config_name": family, "data_files": [{"split": "test", "path": f"{family}/test-*.parquet"}],
             **({"default": True} if family == default else {})}
            for family in families
        ],
    )
    infos = {}
    for family in families:
        splits = SplitDict()
        splits.add(SplitInfo(name="test", num_bytes=sizes[family][1], num_examples=sum(counts[family].values())))
        infos[family] = DatasetInfo(features=features(), splits=splits, download_size=sizes[family][0],
                                    dataset_size=sizes[family][1])
    DatasetInfosDict(infos).to_dataset_card_data(data)
    for info in data.dataset_info if isinstance(data.dataset_info, list) else [data.dataset_info]:
        info["features"] = [_portable_yaml_feature(feature) for feature in info["features"]]
    return data


def _portable_yaml_feature(feature: dict[str, Any]) -> dict[str, Any]:
    """A card feature with ``list:`` spelled ``sequence:``: datasets 3.x reads the card's features over the
    Parquet metadata, and loads ``list:`` as a plain Python list, not ``Sequence``."""
    return {("sequence" if key == "list" else key): value for key, value in feature.items()}


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
    validation_table: str = "",
) -> Path:
    """Write ``README.md``: YAML metadata, the dataset card, and the achieved histograms.

    ``origin`` says where the rows come from (default: our generators from ``master_seed``);
    ``validation_table`` is the build's structure beside the authors' (``structure.markdown_table``).
    Call it after the Parquet files are written: their sizes go into ``dataset_info``.
    """
    origin = origin or CardOrigin.generated(master_seed)
    counts = row_counts(lengths)
    sizes = {family: parquet_sizes(parquet_path(out_dir, family)) for family in counts}
    header = card_metadata(counts, sizes, origin.pretty_name).to_yaml() + "\n"
    card = resources.files("vgau_data").joinpath("dataset_card.md").read_text(encoding="utf-8")
    body = card.format(
        version=__version__,
        origin=origin.summary,
        how_made=origin.how_made,
        n_rows=sum(sum(per.values()) for per in counts.values()),
        split_summary=split_summary(counts),
        stats_table=stats_table(lengths),
        validation_table=validation_table or "(not measured for this build)",
        citation=CITATION,
    )
    path = out_dir / "README.md"
    safe_io.write_text(path, f"---\n{header}---\n\n{body}")
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
        with safe_io.open_regular(path, inside=root, what="Parquet file") as handle:  # a dataset may be anyone's
            while block := handle.read(safe_io.CHUNK):
                digest.update(block)
    return digest.hexdigest()
