"""A generated folder's ``manifest.json`` and dataset card: what was asked, what was made, and proof.

The manifest records the package versions the bytes depend on, each part's arguments
(one family and split), every catalog chunk's and shard's sha256, and per band what the
draws gave. It is the only thing a rerun trusts: a file whose sha256 is in the manifest is
finished; any other file is made again. It is rewritten whole (a synced temporary file
renamed over it) as tasks finish, at most once a second, and at the end of each phase.

A part's shards are written to ``.partial/`` and moved beside the card only when all of
them are done, so a folder's visible Parquet files are always complete parts; the card
(``README.md``, with a ``configs:`` block so ``load_dataset(folder, family,
split="train")`` works) lists the complete parts only.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import platform
import time
import zlib
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from importlib import metadata, resources
from pathlib import Path
from typing import Any, Final

import yaml

from vgau_data.builders.push import GENERATED_MANIFEST, UploadPlan
from vgau_data.errors import DatasetError, VgauError
from vgau_data.registry import FAMILIES
from vgau_data.safe_io import write_bytes

MANIFEST: Final = GENERATED_MANIFEST
FORMAT: Final = "vgau-data generate"
FORMAT_VERSION: Final = 1
PARTIAL_DIR: Final = ".partial"
LOCK: Final = ".generate.lock"
SAVE_EVERY_SECONDS: Final = 1.0
MAX_MANIFEST_BYTES: Final = 256 * 2**20
VERSIONED: Final = ("vgau-data", "numpy", "pyarrow", "pillow", "datasets")
"""Distributions whose version changes what ``generate`` writes (a rerun refuses to mix versions)."""


def versions() -> dict[str, str]:
    """What the bytes depend on: these distributions' versions, Python's, and the test keys' sha256."""
    found = {name: metadata.version(name) for name in VERSIONED}
    found["python"] = platform.python_version()
    found["zlib"] = zlib.ZLIB_RUNTIME_VERSION  # the PNG encoder's deflate
    keys = resources.files("vgau_data.training").joinpath("data").joinpath("heldout_keys.json").read_bytes()
    found["heldout_keys"] = hashlib.sha256(keys).hexdigest()
    return found


def part_name(family: str, split: str) -> str:
    return f"{family}/{split}"


class Manifest:
    """The manifest of one output folder, loaded, updated and saved by the driver."""

    def __init__(self, out_dir: Path, data: dict[str, Any]) -> None:
        self.out_dir = out_dir
        self.data = data
        self._saved_at = 0.0

    @classmethod
    def load(cls, out_dir: Path) -> Manifest:
        """The folder's manifest, or a new empty one when it has none.

        Raises:
            DatasetError: the file is not a manifest of this format.
        """
        path = out_dir / MANIFEST
        if not path.is_file():
            return cls(out_dir, {"format": FORMAT, "format_version": FORMAT_VERSION, "versions": versions(),
                                 "catalog": {}, "parts": {}})
        if path.stat().st_size > MAX_MANIFEST_BYTES:
            raise DatasetError(f"{path} is over {MAX_MANIFEST_BYTES // 2**20} MiB; it is not a generate manifest")
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (ValueError, UnicodeDecodeError, RecursionError) as error:
            raise DatasetError(f"{path} is not valid JSON ({error}); remove the folder or choose another --out") from None
        if not isinstance(data, dict) or data.get("format") != FORMAT or data.get("format_version") != FORMAT_VERSION:
            raise DatasetError(f"{path} is not a {FORMAT!r} manifest of version {FORMAT_VERSION}")
        for key in ("catalog", "parts", "versions"):
            if not isinstance(data.get(key), dict):
                raise DatasetError(f"{path}: {key!r} must be an object")
        return cls(out_dir, data)

    @property
    def parts(self) -> dict[str, Any]:
        return self.data["parts"]

    @property
    def catalog(self) -> dict[str, Any]:
        return self.data["catalog"]

    def save(self, *, force: bool = True) -> None:
        """Write the manifest whole (unless ``force`` is False and it was written under a second ago)."""
        now = time.monotonic()
        if not force and now - self._saved_at < SAVE_EVERY_SECONDS:
            return
        text = json.dumps(self.data, indent=1, sort_keys=True) + "\n"
        write_bytes(self.out_dir / MANIFEST, text.encode("utf-8"))
        self._saved_at = now

    def finished(self, relative: str, sha256: str | None) -> bool:
        """The file ``relative`` (to the folder) exists and has the sha256 the manifest recorded."""
        from vgau_data.safe_io import sha256_of

        path = self.out_dir / relative
        return sha256 is not None and path.is_file() and not path.is_symlink() and sha256_of(path) == sha256


@contextmanager
def folder_lock(out_dir: Path) -> Iterator[None]:
    """Hold the folder's lock: two ``generate`` runs never write one folder at once.

    Raises:
        DatasetError: another run holds it.
    """
    out_dir.mkdir(parents=True, exist_ok=True)
    handle = os.open(out_dir / LOCK, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise DatasetError(f"another `vgau-data generate` is writing {out_dir}; wait for it or choose another --out") from None
        yield
    finally:
        os.close(handle)


# ---------------------------------------------------------------------------- the card


def _complete_parts(manifest: Manifest) -> dict[str, dict[str, Any]]:
    return {name: part for name, part in manifest.parts.items() if part.get("complete")}


def card_metadata(manifest: Manifest) -> dict[str, Any]:
    """The card's YAML header: one config per family, one split per generated split, real sizes."""
    parts = _complete_parts(manifest)
    by_family: dict[str, list[dict[str, Any]]] = {}
    for part in parts.values():
        by_family.setdefault(part["arguments"]["family"], []).append(part)
    families = [family for family in FAMILIES if family in by_family]
    rows = sum(shard["rows"] for part in parts.values() for shard in part["shards"])
    size = next(label for limit, label in ((1e3, "n<1K"), (1e4, "1K<n<10K"), (1e5, "10K<n<100K"), (1e6, "100K<n<1M"),
                                           (1e7, "1M<n<10M"), (float("inf"), "n>10M")) if rows < limit)
    default = "maze" if "maze" in families else (families[0] if families else None)
    return {
        "license": "cc-by-4.0",
        "language": ["en"],
        "pretty_name": "VGAU-Diag training puzzles",
        "task_categories": ["visual-question-answering", "image-text-to-text"],
        "size_categories": [size],
        "tags": ["visual-planning", "puzzles", "multimodal", "synthetic", "training-data"],
        "configs": [
            {
                "config_name": family,
                "data_files": [{"split": part["arguments"]["split"],
                                "path": f"{family}/{part['arguments']['split']}-*.parquet"}
                               for part in sorted(by_family[family], key=lambda p: p["arguments"]["split"])],
                **({"default": True} if family == default else {}),
            }
            for family in families
        ],
        "dataset_info": [
            {
                "config_name": family,
                "splits": [{"name": part["arguments"]["split"],
                            "num_bytes": sum(s["bytes"] for s in part["shards"]),
                            "num_examples": sum(s["rows"] for s in part["shards"])}
                           for part in sorted(by_family[family], key=lambda p: p["arguments"]["split"])],
            }
            for family in families
        ],
    }


def command_line(arguments: Mapping[str, Any]) -> str:
    """The ``vgau-data generate`` command that makes a part (engine and workers change no byte)."""
    words = ["vgau-data generate", f"--families {arguments['family']}", f"--split {arguments['split']}",
             f"--n {arguments['n']}", f"--lengths {' '.join(arguments['bands'])}", f"--seed {arguments['seed']}",
             f"--shard-rows {arguments['shard_rows']}", f"--prompt {arguments['prompt']}"]
    if arguments["traces"]:
        words.append(f"--traces {' '.join(arguments['traces'])}")
    if arguments["oracle_aid"]:
        words.append("--oracle-aid")
    if arguments.get("look", "benchmark").startswith("variety"):
        words.append("--render-variety" + (" --benchmark-style" if arguments["look"] == "variety+benchmark" else ""))
    return " ".join(words) + " --out DIR"


def _parts_table(parts: Mapping[str, Mapping[str, Any]]) -> str:
    lines = ["| family | split | band | rows | draws | unique yield | duplicates | banned (test set) | failed | estimated capacity |",
             "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    for part in parts.values():
        arguments = part["arguments"]
        for band, tally in part["bands"].items():
            capacity = tally["capacity_estimate"]
            lines.append(
                f"| {arguments['family']} | {arguments['split']} | {band} | {tally['rows']} | {tally['draws']} "
                f"| {tally['unique_yield']:.1%} | {tally['duplicates']} | {tally['banned']} | {tally['failed']} "
                f"| {'-' if capacity is None else f'{capacity:,}'} |"
            )
    return "\n".join(lines)


def write_card(manifest: Manifest) -> Path:
    """Write ``README.md`` for the folder's complete parts (YAML header, then the card)."""
    parts = _complete_parts(manifest)
    header = yaml.safe_dump(card_metadata(manifest), sort_keys=False, allow_unicode=True)
    commands = "\n".join(sorted({command_line(part["arguments"]) for part in parts.values()}))
    template = resources.files("vgau_data.training").joinpath("training_card.md").read_text(encoding="utf-8")
    body = template.format(
        version=manifest.data["versions"]["vgau-data"],
        commands=commands,
        parts_table=_parts_table(parts),
        rows=sum(shard["rows"] for part in parts.values() for shard in part["shards"]),
    )
    path = manifest.out_dir / "README.md"
    write_bytes(path, f"---\n{header}---\n\n{body}".encode())
    return path


def upload_plan(folder: Path) -> UploadPlan:
    """What ``vgau-data push`` sends of a generated folder: the card, ``manifest.json`` and every listed shard.

    Each shard is named exactly and checked against the manifest's sha256 first, so a folder
    whose files were changed or half-copied after ``generate`` is refused rather than pushed.

    Raises:
        VgauError: the folder has no manifest, a part is unfinished, or none was made.
        DatasetError: the manifest is unreadable or a listed shard is missing or changed.
    """
    if not (folder / MANIFEST).is_file():
        raise VgauError(f"{folder} has no {MANIFEST}; run `vgau-data generate --out {folder}` first")
    manifest = Manifest.load(folder)
    parts = manifest.parts
    unfinished = sorted(name for name, part in parts.items() if not (isinstance(part, dict) and part.get("complete")))
    if unfinished or not parts:
        raise VgauError(f"{folder} holds unfinished parts ({', '.join(unfinished) or 'none made'}); rerun the "
                        "`vgau-data generate` command that made them, then push")
    shards = [shard for name, part in parts.items() for shard in _listed_shards(manifest, name, part)]
    configs = tuple(family for family in FAMILIES if any(name.split("/")[0] == family for name in parts))
    return UploadPlan(configs, ("README.md", MANIFEST, *shards), FORMAT)


def _listed_shards(manifest: Manifest, name: str, part: Mapping[str, Any]) -> list[str]:
    """The shard paths of one complete part, each a finished file (name and sha256 as the manifest says)."""
    family, _, split = name.partition("/")
    shards = part.get("shards")
    if family not in FAMILIES or not split.isidentifier() or not isinstance(shards, list) or not shards:
        raise DatasetError(f"{manifest.out_dir / MANIFEST}: part {name!r} is not a family/split with shards")
    paths = []
    for index, shard in enumerate(shards):
        path = f"{name}-{index:05d}-of-{len(shards):05d}.parquet"
        listed = isinstance(shard, dict) and shard.get("path") == path
        if not (listed and manifest.finished(path, shard.get("sha256"))):
            raise DatasetError(f"{manifest.out_dir / path} is missing or is not the file {MANIFEST} lists; rerun "
                               "the `vgau-data generate` command that made it, then push")
        paths.append(path)
    return paths
