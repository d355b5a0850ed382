"""Upload a built dataset folder to the Hub as one commit.

The folder is already the repo's final layout (``README.md`` with the configs block and
the Parquet files of each config), so pushing is a plain ``upload_folder``: nothing is
re-encoded on the way. A benchmark build uploads its one file per config; a folder of
``vgau-data generate`` uploads its card, ``manifest.json`` and the shards the manifest
lists (never its catalog or unfinished shards), and only when every part is complete.
"""

from __future__ import annotations

import logging
from pathlib import Path

from vgau_data.builders.hub_folder import PARQUET_NAME, dataset_fingerprint
from vgau_data.errors import VgauError
from vgau_data.registry import FAMILIES

logger = logging.getLogger(__name__)


def check_folder(folder: Path) -> list[str]:
    """The configs present in a built folder; raises when it is not a complete build."""
    if not (folder / "README.md").is_file():
        raise VgauError(f"{folder} has no README.md; run `vgau-data build --out {folder}` first")
    configs = [family for family in FAMILIES if (folder / family / PARQUET_NAME).is_file()]
    if not configs:
        raise VgauError(f"{folder} holds no <family>/{PARQUET_NAME}; run `vgau-data build --out {folder}` first")
    return configs


def generated_files(folder: Path) -> tuple[list[str], list[str]]:
    """(configs, files to upload) of a ``vgau-data generate`` folder; raises when a part is unfinished."""
    from vgau_data.training.manifest import MANIFEST, Manifest

    manifest = Manifest.load(folder)
    unfinished = sorted(name for name, part in manifest.parts.items() if not part.get("complete"))
    if unfinished or not manifest.parts:
        raise VgauError(f"{folder} holds unfinished parts ({', '.join(unfinished) or 'none made'}); rerun the "
                        "`vgau-data generate` command that made them, then push")
    patterns = [f"{name}-?????-of-{len(part['shards']):05d}.parquet" for name, part in manifest.parts.items()]
    configs = [family for family in FAMILIES if any(name.split("/")[0] == family for name in manifest.parts)]
    return configs, ["README.md", MANIFEST, *patterns]


def push_dataset(folder: str | Path, repo_id: str, *, token: str | None = None, private: bool = False) -> str:
    """Create the dataset repo if needed and upload ``folder`` in one commit; return the commit URL."""
    from huggingface_hub import HfApi

    folder = Path(folder)
    if (folder / "manifest.json").is_file():
        configs, patterns = generated_files(folder)
        what = "vgau-data generate"
    else:
        configs, patterns = check_folder(folder), ["README.md", "*/*.parquet"]
        what = "vgau-data build"
    fingerprint = dataset_fingerprint(folder)
    api = HfApi(token=token)
    api.create_repo(repo_id, repo_type="dataset", private=private, exist_ok=True)
    logger.info("uploading %s (%s) to %s", folder, ", ".join(configs), repo_id)
    commit = api.upload_folder(
        repo_id=repo_id,
        repo_type="dataset",
        folder_path=str(folder),
        allow_patterns=patterns,
        commit_message=f"{what} ({', '.join(configs)}), fingerprint {fingerprint[:12]}",
    )
    return str(getattr(commit, "commit_url", commit))
