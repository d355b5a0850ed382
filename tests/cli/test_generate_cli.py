"""``vgau-data generate`` on the command line: a table of what it made, one-line errors."""

from __future__ import annotations

from pathlib import Path

import pytest

from vgau_data.cli import main


def test_generate_prints_each_band_and_writes_the_folder(tmp_path: Path, capsys) -> None:
    out = tmp_path / "out"
    assert main(["generate", "--families", "onet", "--n", "3", "--lengths", "4-5", "--shard-rows", "2",
                 "--workers", "1", "--no-progress", "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "onet/train        4-5            3" in printed
    assert sorted(p.name for p in (out / "onet").iterdir()) == ["train-00000-of-00002.parquet",
                                                                 "train-00001-of-00002.parquet"]


@pytest.mark.parametrize(("arguments", "message"), [
    (["--lengths", "9-3"], "1 <= LO <= HI"),
    (["--lengths", "11-11"], "onet generates no optimal length in 11-11"),
    (["--split", "test"], "--split must be one of train, validation, validation_ood"),
    (["--prompt", "self_vr"], "--prompt must be one of text_cot, direct, oracle_gta"),
    (["--traces", "nope"], "unknown trace kind"),
    (["--families", "chess"], "unknown family"),
    (["--benchmark-style"], "--benchmark-style needs --render-variety"),
    (["--split", "validation_ood", "--render-variety"], "drop --render-variety"),
])
def test_bad_arguments_are_one_line_errors(tmp_path: Path, capsys, arguments: list[str], message: str) -> None:
    base = ["generate", "--families", "onet", "--n", "3", "--no-progress", "--out", str(tmp_path / "o")]
    assert main(base + arguments) == 2
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1
