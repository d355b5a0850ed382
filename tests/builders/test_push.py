"""Everything up to the upload call (no Hub here): the call is made with the right arguments."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from vgau_data.builders import build_dataset, push_dataset
from vgau_data.errors import VgauError


def test_push__creates_the_dataset_repo_and_uploads_the_folder_in_one_commit(
    tmp_path: Path, hub_calls: list[tuple[str, dict[str, Any]]]
) -> None:
    build_dataset(tmp_path, families=["maze"], counts={"easy": 1, "medium": 0, "hard": 0}, progress=False)
    url = push_dataset(tmp_path, "vgau/puzzles")
    assert url.endswith("/commit/abc")
    (create, create_kwargs), (upload, upload_kwargs) = hub_calls
    assert create == "create_repo" and create_kwargs["repo_type"] == "dataset" and create_kwargs["exist_ok"]
    assert upload == "upload_folder"
    assert upload_kwargs["repo_id"] == "vgau/puzzles" and upload_kwargs["repo_type"] == "dataset"
    assert upload_kwargs["folder_path"] == str(tmp_path)
    assert upload_kwargs["allow_patterns"] == ["README.md", "*/*.parquet"]
    assert upload_kwargs["commit_message"].startswith("vgau-data build (maze)")


def test_push__refuses_a_folder_that_is_not_a_build(tmp_path: Path) -> None:
    with pytest.raises(VgauError, match="vgau-data build"):
        push_dataset(tmp_path, "vgau/puzzles")


def test_push__sends_a_generated_folder_to_its_own_plan_not_the_build_one(tmp_path: Path) -> None:
    """The build plan would upload ``*/*.parquet`` of a generated folder; it names the right plan instead."""
    (tmp_path / "README.md").write_text("card")
    (tmp_path / "manifest.json").write_text(json.dumps({"format": "vgau-data generate"}))
    with pytest.raises(VgauError, match=r"vgau-data push .*upload_plan"):
        push_dataset(tmp_path, "me/train")


def test_planned_files__a_build_sends_its_card_and_parquet_files_as_upload_folder_would(tmp_path: Path) -> None:
    from vgau_data.builders.push import build_plan, planned_files

    build_dataset(tmp_path, families=["maze"], counts={"easy": 1, "medium": 0, "hard": 0}, progress=False)
    (tmp_path / "notes.txt").write_text("not part of the dataset")
    (tmp_path / "maze" / "linked.parquet").symlink_to(tmp_path / "maze" / "test-00000-of-00001.parquet")
    files = planned_files(tmp_path, build_plan(tmp_path))
    assert [path for path, _ in files] == ["README.md", "maze/linked.parquet", "maze/test-00000-of-00001.parquet"]
    assert files[1][1] == files[2][1] == (tmp_path / "maze" / "test-00000-of-00001.parquet").stat().st_size
