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
