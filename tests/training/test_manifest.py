"""A generated folder's upload plan: the card, the manifest and exactly the shards it lists, each verified."""

from __future__ import annotations

import fnmatch
import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from vgau_data.builders import push_dataset
from vgau_data.errors import DatasetError, VgauError
from vgau_data.training.manifest import MANIFEST, upload_plan

SHARDS = ["onet/train-00000-of-00002.parquet", "onet/train-00001-of-00002.parquet"]


@pytest.fixture(scope="module")
def generated(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Three onet rows in two shards, as ``vgau-data generate`` leaves them (catalog included)."""
    from vgau_data.training.bands import parse_band
    from vgau_data.training.generate import GenerateConfig, generate_dataset

    out = tmp_path_factory.mktemp("generated") / "out"
    generate_dataset(GenerateConfig(out_dir=out, families=("onet",), n=3, bands=(parse_band("4-4"),),
                                    shard_rows=2, progress=False))
    return out


def copy_of(folder: Path, tmp_path: Path) -> Path:
    return Path(shutil.copytree(folder, tmp_path / "copy"))


def edit_manifest(folder: Path, edit) -> None:
    path = folder / MANIFEST
    data = json.loads(path.read_text())
    edit(data)
    path.write_text(json.dumps(data))


def test_upload_plan__names_the_card_the_manifest_and_each_listed_shard(generated: Path) -> None:
    plan = upload_plan(generated)
    assert plan.configs == ("onet",) and plan.made_by == "vgau-data generate"
    assert plan.patterns == ("README.md", MANIFEST, *SHARDS)


def test_push__uploads_a_generated_folder_its_card_manifest_and_shards_only(
    generated: Path, hub_calls: list[tuple[str, dict[str, Any]]]
) -> None:
    push_dataset(generated, "me/train", plan=upload_plan(generated))
    (_, upload) = hub_calls[1]
    files = [p.relative_to(generated).as_posix() for p in generated.rglob("*") if p.is_file()]
    sent = sorted(f for f in files if any(fnmatch.fnmatch(f, pattern) for pattern in upload["allow_patterns"]))
    assert sent == ["README.md", MANIFEST, *SHARDS]
    assert any(f.startswith(".catalog/") for f in files)
    assert upload["commit_message"].startswith("vgau-data generate (onet)")


def test_upload_plan__refuses_an_unfinished_part(generated: Path, tmp_path: Path) -> None:
    folder = copy_of(generated, tmp_path)
    edit_manifest(folder, lambda data: data["parts"]["onet/train"].update(complete=False))
    with pytest.raises(VgauError, match=r"unfinished parts \(onet/train\)"):
        upload_plan(folder)


def test_upload_plan__refuses_a_folder_with_no_part_or_no_manifest(generated: Path, tmp_path: Path) -> None:
    folder = copy_of(generated, tmp_path)
    edit_manifest(folder, lambda data: data["parts"].clear())
    with pytest.raises(VgauError, match=r"unfinished parts \(none made\)"):
        upload_plan(folder)
    with pytest.raises(VgauError, match="run `vgau-data generate"):
        upload_plan(tmp_path)


def test_upload_plan__refuses_a_shard_changed_after_generate(generated: Path, tmp_path: Path) -> None:
    folder = copy_of(generated, tmp_path)
    shard = folder / SHARDS[1]
    shard.write_bytes(shard.read_bytes()[:-1])
    with pytest.raises(DatasetError, match=r"train-00001-of-00002.parquet is missing or is not the file"):
        upload_plan(folder)


@pytest.mark.parametrize("name", ["../onet/train", "onet/../../x", "chess/train"])
def test_upload_plan__refuses_a_part_that_is_not_a_family_and_split(generated: Path, tmp_path: Path,
                                                                    name: str) -> None:
    folder = copy_of(generated, tmp_path)
    edit_manifest(folder, lambda data: data["parts"].update({name: data["parts"].pop("onet/train")}))
    with pytest.raises(DatasetError, match="is not a family/split with shards"):
        upload_plan(folder)
