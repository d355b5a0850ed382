"""``vgau-data push`` routes a folder to its upload plan: a build's, or a generated folder's manifest plan."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from vgau_data.cli import main


def test_push__a_generated_folder_goes_through_its_manifest_plan(
    tmp_path: Path, capsys, hub_calls: list[tuple[str, dict[str, Any]]]
) -> None:
    out = tmp_path / "out"
    assert main(["generate", "--families", "onet", "--n", "2", "--lengths", "4-4", "--workers", "1",
                 "--no-progress", "--out", str(out)]) == 0
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
