"""Benchmark instances as the runners need them: reference fields plus decoded images.

``load_instances`` reads a dataset built by ``vgau-data build`` (a local folder) or the
Hub repo (downloaded once, Parquet files read directly), keeps the requested families and difficulties, takes the
first ``limit`` rows of each family, and returns them in registry family order then file
order. ``shard_instances`` then splits that list for multi-process runs.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any

from vgau_data.builders.load import read_config_columns
from vgau_data.errors import VgauError
from vgau_data.metrics.scoring import make_reference
from vgau_data.puzzles.base import DIFFICULTIES
from vgau_data.registry import FAMILIES, get_family
from vgau_data.render_styles import STYLE_COLUMN, RenderStyle, parse_render_style

if TYPE_CHECKING:
    from PIL import Image

    from vgau_data.metrics.references import ReferenceSet
    from vgau_data.puzzles.base import FamilySpec

logger = logging.getLogger(__name__)

DEFAULT_DATASET = "vgau/puzzles"


class SelectionError(VgauError, ValueError):
    """A ``--families``/``--difficulty``/``--limit``/``--shard`` choice that selects nothing or is malformed."""


@dataclass(frozen=True, slots=True)
class Instance:
    """One dataset row: the reference fields (docs/contract/records.md), its board image and oracle aid.

    Images are held as the dataset's PNG bytes and decoded on access (a whole run's
    boards as pixels would take a gigabyte); a PIL image may be given instead.

    ``render_style`` is the look a training row is drawn in (its ``render_style`` column,
    docs/render-styles.md); None, as for every benchmark row, is the benchmark's look.
    ``family`` is the family as drawn in that style, so every board, aid and reading an
    episode makes after the first matches the row's own image.
    """

    id: str
    task: str
    difficulty: str
    optimal_length: int
    state: str
    image_data: bytes | Image.Image = field(compare=False, repr=False)
    oracle_aid_data: bytes | Image.Image | None = field(default=None, compare=False, repr=False)
    oracle_vr_data: bytes | Image.Image | None = field(default=None, compare=False, repr=False)
    render_style: RenderStyle | None = None

    @property
    def image(self) -> Image.Image:
        """The board as the model sees it."""
        return _as_image(self.image_data)

    @property
    def oracle_aid(self) -> Image.Image | None:
        """The dataset's oracle aid, if the row has one."""
        return None if self.oracle_aid_data is None else _as_image(self.oracle_aid_data)

    @property
    def family(self) -> FamilySpec:
        """The row's family, drawn in the row's style (``FamilySpec.styled``, cached)."""
        spec = get_family(self.task)
        return spec if self.render_style is None else spec.styled(self.render_style)

    @property
    def reference(self) -> str:
        """The reference JSON string."""
        return make_reference(
            {
                "id": self.id,
                "task": self.task,
                "difficulty": self.difficulty,
                "optimal_length": self.optimal_length,
                "state": self.state,
            }
        )

    def initial_state(self) -> Any:
        return self.family.from_json(self.state)

    def aid(self) -> Image.Image:
        """The oracle aid: the dataset's column, or drawn now when the row has none."""
        if self.oracle_aid is not None:
            return self.oracle_aid
        from vgau_data.oracle_aids import oracle_aid

        return oracle_aid(self.family, self.initial_state())

    def vr_drawing(self) -> Image.Image:
        """The drawn optimal solution (Oracle-VR): the dataset's ``oracle_vr``, or drawn now when the row has none."""
        if self.oracle_vr_data is not None:
            return _as_image(self.oracle_vr_data)
        from vgau_data.oracle_aids import oracle_image

        return oracle_image(self.family, self.initial_state(), "vr")


INSTANCE_COLUMNS: tuple[str, ...] = (
    "id", "task", "difficulty", "optimal_length", "state", "image", "oracle_aid", "oracle_vr",
)  # fmt: skip
IMAGE_COLUMNS: tuple[str, ...] = ("image", "oracle_aid", "oracle_vr")


def _as_image(data: bytes | Image.Image) -> Image.Image:
    """A dataset image cell decoded through ``image_gate`` (a Hub dataset may be anyone's)."""
    if not isinstance(data, bytes):
        return data
    from vgau_data import image_gate

    return image_gate.decode(data, at="a dataset image")


def _image_data(value: Any) -> bytes | Image.Image | None:
    """An ``Image()`` cell (``{"bytes": ..., "path": ...}`` raw, or PIL as ``datasets`` decodes it)."""
    if isinstance(value, dict):
        return value.get("bytes") or None
    return value


def instance_from_row(row: dict[str, Any]) -> Instance:
    """An ``Instance`` from a dataset row dict (raw Parquet cells or decoded ``datasets`` rows).

    A row without an image gets its board rendered from the state, in the row's
    ``render_style`` when it has one (a style's JSON or a ``RenderStyle``; anything else is a
    one-line ``VgauError`` naming the row).
    """
    family = get_family(str(row["task"]))
    style = parse_render_style(row.get(STYLE_COLUMN), f"row {row.get('id')!r:.60}")
    if style is not None:
        family = family.styled(style)
    image = _image_data(row.get("image"))
    if image is None:
        image = family.render(family.from_json(str(row["state"])))
    return Instance(
        id=str(row["id"]),
        task=family.name,
        difficulty=str(row["difficulty"]),
        optimal_length=int(row["optimal_length"]),
        state=str(row["state"]),
        image_data=image,
        oracle_aid_data=_image_data(row.get("oracle_aid")),
        oracle_vr_data=_image_data(row.get("oracle_vr")),
        render_style=style,
    )


@dataclass(frozen=True)
class DatasetSource:
    """Where instances come from: the name given, the local folder and its fingerprint."""

    source: str
    local_dir: str
    fingerprint: str
    revision: str | None = None

    @cached_property
    def families(self) -> list[str]:
        return [name for name in FAMILIES if any((Path(self.local_dir) / name).glob("test-*.parquet"))]


def resolve_dataset(dataset: str) -> DatasetSource:
    """A local dataset folder, or a Hub repo id downloaded to the cache, with its fingerprint."""
    from vgau_data.metrics.references import load_references

    return source_of(load_references(dataset))


def source_of(references: ReferenceSet) -> DatasetSource:
    """Where the instances of the dataset ``references`` were loaded from are read."""
    if references.local_dir is None:
        raise SelectionError(f"dataset {references.source!r} has no local copy to read images from")
    return DatasetSource(references.source, references.local_dir, references.fingerprint, references.revision)


def load_instances(
    dataset: str | DatasetSource,
    *,
    families: Sequence[str] | None = None,
    difficulties: Sequence[str] | None = None,
    limit: int | None = None,
) -> list[Instance]:
    """Instances of a built dataset, in registry family order then row order.

    Args:
        dataset: a folder built by ``vgau-data build``, a Hub repo id, or a resolved source.
        families: family names (default: every family in the dataset).
        difficulties: ``easy``/``medium``/``hard`` (default: all).
        limit: keep the first ``limit`` selected rows of each family (smoke runs).
    """
    source = dataset if isinstance(dataset, DatasetSource) else resolve_dataset(dataset)
    wanted = [get_family(name).name for name in families] if families else source.families
    missing = [name for name in wanted if name not in source.families]
    if missing:
        raise SelectionError(f"dataset {source.source!r} has no config for {missing}; it has {source.families}")
    levels = list(difficulties) if difficulties else list(DIFFICULTIES)
    unknown = [level for level in levels if level not in DIFFICULTIES]
    if unknown:
        raise SelectionError(f"unknown difficulty {unknown}; choose from {list(DIFFICULTIES)}")
    if limit is not None and limit < 1:
        raise SelectionError(f"--limit must be >= 1, got {limit}")
    instances: list[Instance] = []
    for name in FAMILIES:
        if name not in wanted:
            continue
        rows = [row for row in read_config_columns(source.local_dir, name, INSTANCE_COLUMNS) if row["difficulty"] in levels]
        instances.extend(instance_from_row(row) for row in rows[:limit])
    if not instances:
        raise SelectionError(f"no rows of {wanted} with difficulty in {levels} in {source.source!r}")
    logger.info("loaded %d instances from %s", len(instances), source.source)
    return instances


def parse_shard(text: str) -> tuple[int, int]:
    """``"i/N"`` -> ``(i, N)`` with ``0 <= i < N``.

    Example:
        >>> parse_shard("1/4")
        (1, 4)
    """
    index, slash, count = text.partition("/")
    try:
        shard = (int(index), int(count))
    except ValueError:
        shard = (-1, 0)
    if not slash or shard[1] < 1 or not 0 <= shard[0] < shard[1]:
        raise SelectionError(f"--shard must be i/N with 0 <= i < N (e.g. 0/4), got {text!r}")
    return shard


def shard_instances(instances: Iterable[Instance], index: int, count: int) -> list[Instance]:
    """Every ``count``-th instance starting at ``index`` (round robin keeps shards balanced).

    Example:
        >>> [i for i in shard_instances(range(7), 1, 3)]
        [1, 4]
    """
    if count < 1 or not 0 <= index < count:
        raise SelectionError(f"shard {index}/{count} is not valid; need 0 <= i < N")
    return [instance for position, instance in enumerate(instances) if position % count == index]
