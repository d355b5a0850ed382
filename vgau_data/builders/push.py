"""Upload a built dataset folder to the Hub as one commit.

The folder is already the repo's final layout (``README.md`` with the configs block and
the Parquet files of each config), so pushing is a plain ``upload_folder``: nothing is
re-encoded on the way. What is sent is an ``UploadPlan``: a benchmark build's
(``build_plan``: the card and one file per config) by default; a folder of ``vgau-data
generate`` brings its own (``vgau_data.training.manifest.upload_plan``: the card,
``manifest.json`` and the shards the manifest lists, never its catalog or unfinished
shards), which ``vgau-data push`` picks when the folder holds a ``manifest.json``.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from vgau_data.builders.hub_folder import PARQUET_NAME, dataset_fingerprint
from vgau_data.errors import VgauError
from vgau_data.registry import FAMILIES

logger = logging.getLogger(__name__)
GENERATED_MANIFEST: Final = "manifest.json"
"""The file that marks a folder of ``vgau-data generate`` (``training.manifest.MANIFEST``)."""


@dataclass(frozen=True, slots=True)
class UploadPlan:
    """What a push sends: the configs the folder holds, the files (``upload_folder`` patterns), what made them."""

    configs: tuple[str, ...]
    patterns: tuple[str, ...]
    made_by: str


def check_folder(folder: Path) -> list[str]:
    """The configs present in a built folder; raises when it is not a complete build."""
    if (folder / GENERATED_MANIFEST).is_file():
        raise VgauError(f"{folder} was written by `vgau-data generate`: push it with `vgau-data push {folder}` "
                        "(or plan=vgau_data.training.manifest.upload_plan(folder))")
    if not (folder / "README.md").is_file():
        raise VgauError(f"{folder} has no README.md; run `vgau-data build --out {folder}` first")
    configs = [family for family in FAMILIES if (folder / family / PARQUET_NAME).is_file()]
    if not configs:
        raise VgauError(f"{folder} holds no <family>/{PARQUET_NAME}; run `vgau-data build --out {folder}` first")
    return configs


def build_plan(folder: Path) -> UploadPlan:
    """The upload of a benchmark build (``vgau-data build``): its card and every config's file."""
    return UploadPlan(tuple(check_folder(folder)), ("README.md", "*/*.parquet"), "vgau-data build")


def commit_message(folder: Path, plan: UploadPlan) -> str:
    """The push's commit message: what made the folder, its configs and its fingerprint."""
    return f"{plan.made_by} ({', '.join(plan.configs)}), fingerprint {dataset_fingerprint(folder)[:12]}"


def planned_files(folder: Path, plan: UploadPlan) -> list[tuple[str, int]]:
    """``(path, bytes)`` of each file ``upload_folder`` sends under ``plan``, matched as huggingface_hub matches.

    As ``upload_folder``, a link to a file counts as that file; special files are never sent.
    """
    from huggingface_hub.utils import DEFAULT_IGNORE_PATTERNS, filter_repo_objects

    paths = sorted(
        path.relative_to(folder).as_posix() for path in folder.rglob("*")
        if path.is_file()
    )
    sent = filter_repo_objects(paths, allow_patterns=list(plan.patterns), ignore_patterns=DEFAULT_IGNORE_PATTERNS)
    return [(path, (folder / path).stat().st_size) for path in sent]


def push_dataset(folder: str | Path, repo_id: str, *, plan: UploadPlan | None = None, token: str | None = None,
                 private: bool = False) -> str:
    """Create the dataset repo if needed and upload ``folder`` (``plan``, default ``build_plan``) in one commit.

    Returns the commit URL.
    """
    from huggingface_hub import HfApi

    folder = Path(folder)
    plan = build_plan(folder) if plan is None else plan
    message = commit_message(folder, plan)
    api = HfApi(token=token)
    api.create_repo(repo_id, repo_type="dataset", private=private, exist_ok=True)
    logger.info("uploading %s (%s) to %s", folder, ", ".join(plan.configs), repo_id)
    commit = api.upload_folder(
        repo_id=repo_id,
        repo_type="dataset",
        folder_path=str(folder),
        allow_patterns=list(plan.patterns),
        commit_message=message,
    )
    return str(getattr(commit, "commit_url", commit))
