"""``vgau-data push`` routes a folder to its upload plan: a build's, or a generated folder's manifest plan."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from vgau_data.cli import main


@pytest.fixture(scope="module")
def generated(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A small `vgau-data generate` folder (pushes read it, never change it)."""
    out = tmp_path_factory.mktemp("generated") / "out"
    assert main(["generate", "--families", "onet", "--n", "2", "--lengths", "4-4", "--workers", "1",
                 "--no-progress", "--out", str(out)]) == 0
    return out


def test_push__a_generated_folder_goes_through_its_manifest_plan(
    generated: Path, capsys, hub_calls: list[tuple[str, dict[str, Any]]]
) -> None:
    out = generated
    assert main(["push", str(out), "--repo", "me/train"]) == 0
    (_, upload) = hub_calls[1]
    assert upload["allow_patterns"] == ["README.md", "manifest.json", "onet/train-00000-of-00001.parquet"]
    assert upload["commit_message"].startswith("vgau-data generate (onet)")
    assert "pushed" in capsys.readouterr().out


def test_push__an_unfinished_generated_folder_is_a_one_line_error(tmp_path: Path, capsys,
                                                                   hub_calls: list[tuple[str, dict[str, Any]]]) -> None:
    (tmp_path / "manifest.json").write_text(json.dumps({
        "format": "vgau-data generate", "format_version": 1, "versions": {}, "catalog": {},
        "parts": {"onet/train": {"complete": False, "shards": []}}}))
    assert main(["push", str(tmp_path), "--repo", "me/train"]) == 2
    err = capsys.readouterr().err
    assert "unfinished parts (onet/train)" in err and len(err.strip().splitlines()) == 1
    assert hub_calls == []


def test_push__dry_run_lists_the_planned_files_and_contacts_nothing(
    generated: Path, capsys, hub_calls: list[tuple[str, dict[str, Any]]]
) -> None:
    out = generated
    capsys.readouterr()
    assert main(["push", str(out), "--repo", "me/train", "--dry-run"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert hub_calls == []
    assert lines[0].startswith(f"would push {out} to the public dataset repo me/train in one commit: 'vgau-data generate (onet)")
    listed = [line.split()[0] for line in lines[1:-1]]
    assert listed == ["README.md", "manifest.json", "onet/train-00000-of-00001.parquet"]  # not the catalog
    shard = out / "onet" / "train-00000-of-00001.parquet"
    assert f"{shard.stat().st_size:,} bytes" in lines[3]
    assert lines[-1].startswith("3 files,") and "nothing was sent" in lines[-1]
    assert main(["push", str(out), "--repo", "me/train"]) == 0  # the real push sends exactly the listed files
    assert hub_calls[1][1]["allow_patterns"] == listed
