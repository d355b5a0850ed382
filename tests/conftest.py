"""Shared test setup: a private `datasets` cache, ``--run-slow`` for long runs, a recording Hub.

`datasets` (5.2) caches a local dataset folder under its base name and config only, so a
folder rebuilt with other contents, or another folder with the same name, loads stale
rows from ``~/.cache``. Every test session therefore gets an empty cache of its own, and
its own ``vgau_data`` cache folder (the key that seals cache lines, ``vgau_data.signing``).

``VGAU_TEST_EXTRA_FAMILY=package[,package]`` registers those family packages for the whole
run, as their line in ``vgau_data/registry.py`` would (docs/adding-a-family.md): the check
that a new family passes the registry-wide tests before it is added to the package.
"""

from __future__ import annotations

import os
import tempfile
from typing import Any

import pytest

_CACHE = tempfile.TemporaryDirectory(prefix="vgau-hf-datasets-")

from tests.toy_family import register_bare, register_extra  # noqa: E402

register_bare()
register_extra(os.environ.get("VGAU_TEST_EXTRA_FAMILY", ""))


def pytest_configure(config: pytest.Config) -> None:
    os.environ["HF_DATASETS_CACHE"] = _CACHE.name
    os.environ["VGAU_DATA_CACHE_DIR"] = os.path.join(_CACHE.name, "vgau_data")
    os.environ.setdefault("HF_HUB_OFFLINE", "1")


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--run-slow", action="store_true", help="run tests marked slow")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if config.getoption("--run-slow"):
        return
    skip = pytest.mark.skip(reason="slow: pass --run-slow")
    for item in items:
        if "slow" in item.keywords or "gpu" in item.keywords:
            item.add_marker(skip)


class RecordingHfApi:
    """``huggingface_hub.HfApi`` for pushes (no Hub here): each call is recorded, the upload returns a commit URL."""

    calls: list[tuple[str, dict[str, Any]]]

    def __init__(self, token: str | None = None) -> None:
        self.token = token

    def create_repo(self, repo_id: str, **kwargs: Any) -> None:
        self.calls.append(("create_repo", {"repo_id": repo_id, **kwargs}))

    def upload_folder(self, **kwargs: Any) -> str:
        self.calls.append(("upload_folder", kwargs))
        return f"https://huggingface.co/datasets/{kwargs['repo_id']}/commit/abc"


@pytest.fixture
def hub_calls(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, dict[str, Any]]]:
    """The calls a push makes to ``HfApi``, in order (``HfApi`` replaced by ``RecordingHfApi``)."""
    import huggingface_hub

    calls: list[tuple[str, dict[str, Any]]] = []
    monkeypatch.setattr(huggingface_hub, "HfApi", type("HfApi", (RecordingHfApi,), {"calls": calls}))
    return calls
