"""Generated rows as the exporters read them: a stored trace is the one an export computes on the fly."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

from vgau_data.training.bands import parse_band
from vgau_data.training.exporters import export_training, get_exporter
from vgau_data.training.exporters.base import MANIFEST_NAME
from vgau_data.training.exporters.source import Source
from vgau_data.training.generate import GenerateConfig, generate_dataset

KINDS = ("solver", "exploratory")
"""``exploratory`` draws its detours from the row's ``trace_rng``: the seed derivation is what is checked."""


def generated(out: Path, traces: tuple[str, ...]) -> Path:
    config = GenerateConfig(out_dir=out, families=("maze",), n=4, bands=(parse_band("4-8"),), shard_rows=4,
                            traces=traces, progress=False)
    generate_dataset(config)
    return out


@pytest.fixture(scope="module")
def folders(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    root = tmp_path_factory.mktemp("shards")
    return generated(root / "stored", KINDS), generated(root / "bare", ())


def test_every_stored_trace_equals_the_one_computed_from_the_row(folders: tuple[Path, Path]) -> None:
    source = Source(folders[0])
    (group,) = source.groups
    rows = list(source.rows(group, 0, group.num_rows, KINDS))
    assert len(rows) == 4
    for row in rows:
        assert set(row.traces) == set(KINDS)
        for kind in KINDS:
            assert row.trace(kind) == dataclasses.replace(row, traces={}).trace(kind)


@pytest.mark.parametrize("kind", KINDS)
def test_an_export_is_the_same_from_stored_or_computed_traces(folders: tuple[Path, Path], kind: str,
                                                              tmp_path: Path) -> None:
    digests = []
    for folder in folders:
        out = tmp_path / folder.name
        export_training(folder, get_exporter("trl"), out, traces=kind, progress=False)
        digests.append([shard["sha256"] for shard in json.loads((out / MANIFEST_NAME).read_text())["shards"]])
    assert digests[0] == digests[1]
