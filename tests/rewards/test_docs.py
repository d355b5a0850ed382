"""docs/rewards.md names only what the package ships, and its tables are the registries."""

from __future__ import annotations

import importlib
import re
import shlex
from pathlib import Path

DOC = (Path(__file__).resolve().parents[2] / "docs" / "rewards.md").read_text(encoding="utf-8")


def test_every_import_in_the_docs__exists() -> None:
    imports = re.findall(r"^from (vgau_data[\w.]*) import ([\w, ]+)$", DOC, flags=re.MULTILINE)
    assert len(imports) >= 4
    for module, names in imports:
        loaded = importlib.import_module(module)
        for name in names.split(","):
            assert hasattr(loaded, name.strip()), f"{module}.{name.strip()}"
    for path in re.findall(r"class_name: (vgau_data[\w.]+)", DOC):
        module, name = path.rsplit(".", 1)
        assert hasattr(importlib.import_module(module), name), path


def test_every_vgau_data_command_in_the_docs__parses() -> None:
    from vgau_data.cli import build_parser

    parser = build_parser()
    commands = [line.split("#")[0].strip() for line in DOC.splitlines() if line.startswith("vgau-data ")]
    commands += [" ".join(inline.split()) for inline in re.findall(r"`(vgau-data [^`]+)`", DOC)]
    used = {parser.parse_args(shlex.split(command)[1:]).command for command in commands}
    assert used == {"serve-reward", "export-training"}


def test_the_kind_tables__are_the_registries_and_the_limits_the_defaults() -> None:
    from vgau_data.rewards import REWARD_KINDS, STATE_CACHE_SIZE
    from vgau_data.rewards.images import GRID_MIN_SHARE, IMAGE_REWARD_KINDS, MAX_IMAGE_PIXELS
    from vgau_data.rewards.server import ServerLimits

    def table(header: str) -> list[str]:
        section = DOC[DOC.index(header) :].split("\n\n")[0]
        return re.findall(r"^\| `(\w+)`", section, flags=re.MULTILINE)

    assert table("| kind | pays | why |\n|---|---|---|\n| `optimal`") == list(REWARD_KINDS)
    assert table("| kind | pays |\n|---|---|\n| `next_state`") == list(IMAGE_REWARD_KINDS)
    limits = ServerLimits()
    assert f"| {limits.max_body_bytes // 2**20} MiB |" in DOC and f"| {limits.request_timeout_s:g} s |" in DOC
    assert f"| {limits.max_connections:,} each |" in DOC and f"| {limits.read_timeout_s:g} s |" in DOC
    assert f"| {limits.max_samples:,} |" in DOC and f"{STATE_CACHE_SIZE:,}" in DOC
    assert f"| {limits.solve_seconds:g} s, " in DOC and f"| {limits.worker_memory_mb:,} MiB |" in DOC
    assert f"{int(GRID_MIN_SHARE * 100)}%" in DOC and f"{int(MAX_IMAGE_PIXELS ** 0.5)} x" in DOC
