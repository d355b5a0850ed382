"""Everything up to the upload call (no Hub here): the call is made with the right arguments."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from vgau_data.builders import build_dataset, push_dataset
from vgau_data.errors import VgauError


class FakeApi:
    calls: list[tuple[str, dict[str, Any]]] = []

    def __init__(self, token: str | None = None) -> None:
        self.token = token

    def create_repo(self, repo_id: str, **kwargs: Any) -> None:
        self.calls.append(("create_repo", {"repo_id": repo_id, **kwargs}))

    def upload_folder(self, **kwargs: Any) -> str:
        self.calls.append(("upload_folder", kwargs))
        return "https://huggingface.co/datasets/vgau/puzzles/commit/abc"


def test_push__creates_the_dataset_repo_and_uploads_the_folder_in_one_commit(tmp_path: Path, monkeypatch) -> None:
    import huggingface_hub

    build_dataset(tmp_path, families=["maze"], counts={"easy": 1, "medium": 0, "hard": 0}, progress=False)
    monkeypatch.setattr(huggingface_hub, "HfApi", FakeApi)
    FakeApi.calls = []
    url = push_dataset(tmp_path, "vgau/puzzles")
    assert url.endswith("/commit/abc")
    (create, create_kwargs), (upload, upload_kwargs) = FakeApi.calls
    assert create == "create_repo" and create_kwargs["repo_type"] == "dataset" and create_kwargs["exist_ok"]
    assert upload == "upload_folder"
    assert upload_kwargs["repo_id"] == "vgau/puzzles" and upload_kwargs["repo_type"] == "dataset"
    assert upload_kwargs["folder_path"] == str(tmp_path)
    assert "maze" in upload_kwargs["commit_message"]


def test_push__refuses_a_folder_that_is_not_a_build(tmp_path: Path) -> None:
    with pytest.raises(VgauError, match="vgau-data build"):
        push_dataset(tmp_path, "vgau/puzzles")


def test_push__uploads_a_generated_folder_its_card_manifest_and_shards_only(tmp_path: Path, monkeypatch) -> None:
    import fnmatch

    import huggingface_hub

    from vgau_data.training.bands import parse_band
    from vgau_data.training.generate import GenerateConfig, generate_dataset

    generate_dataset(GenerateConfig(out_dir=tmp_path, families=("onet",), n=3, bands=(parse_band("4-4"),),
                                    shard_rows=2, progress=False))
    monkeypatch.setattr(huggingface_hub, "HfApi", FakeApi)
    FakeApi.calls = []
    push_dataset(tmp_path, "me/train")
    (_, upload) = FakeApi.calls[1]
    files = [p.relative_to(tmp_path).as_posix() for p in tmp_path.rglob("*") if p.is_file()]
    sent = sorted(f for f in files if any(fnmatch.fnmatch(f, pattern) for pattern in upload["allow_patterns"]))
    assert sent == ["README.md", "manifest.json", "onet/train-00000-of-00002.parquet", "onet/train-00001-of-00002.parquet"]
    assert any(f.startswith(".catalog/") for f in files)
    assert upload["commit_message"].startswith("vgau-data generate (onet)")


def test_push__refuses_a_generated_folder_with_an_unfinished_part(tmp_path: Path) -> None:
    import json

    (tmp_path / "README.md").write_text("card")
    (tmp_path / "manifest.json").write_text(json.dumps({
        "format": "vgau-data generate", "format_version": 1, "versions": {}, "catalog": {},
        "parts": {"onet/train": {"complete": False, "shards": []}}}))
    with pytest.raises(VgauError, match=r"unfinished parts \(onet/train\)"):
        push_dataset(tmp_path, "me/train")
