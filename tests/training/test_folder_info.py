"""``vgau-data info``: a folder's rows, lengths and records, read from its files; unreadable input is a one-line error."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from vgau_data.builders import build_dataset
from vgau_data.cli import main


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("built")
    build_dataset(out, families=["maze", "onet"], counts={"easy": 2, "medium": 1, "hard": 0}, progress=False)
    return out


def test_info__a_build_counts_rows_per_family_and_difficulty_with_length_histograms(built: Path, capsys) -> None:
    assert main(["info", str(built)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].endswith("written by `vgau-data build`")
    for family in ("maze", "onet"):
        table = pq.read_table(built / family / "test-00000-of-00001.parquet", columns=["difficulty", "optimal_length"])
        for difficulty in ("easy", "medium"):
            lengths = sorted(r["optimal_length"] for r in table.to_pylist() if r["difficulty"] == difficulty)
            histogram = " ".join(f"{n}:{lengths.count(n)}" for n in sorted(set(lengths)))
            assert any(line.split()[:4] == [family, "test", difficulty, str(len(lengths))]
                       and line.endswith(histogram) for line in out), (family, difficulty, out)  # fmt: skip
    assert out[-2].split() == ["total", "6"]
    assert out[-1].startswith("versions: vgau-data ")


def test_info__a_generated_folder_adds_yield_test_set_drops_and_versions(tmp_path: Path, capsys) -> None:
    out_dir = tmp_path / "gen"
    assert main(["generate", "--families", "onet", "--n", "3", "--lengths", "4-5", "--workers", "1",
                 "--no-progress", "--out", str(out_dir)]) == 0  # fmt: skip
    capsys.readouterr()
    assert main(["info", str(out_dir)]) == 0
    text = capsys.readouterr().out
    manifest = json.loads((out_dir / "manifest.json").read_text())
    tally = manifest["parts"]["onet/train"]["bands"]["4-5"]
    assert f"onet     train   4-5             3{tally['draws']:>8}" in text
    assert "decontamination: 0 draws were test instances" in text and "not recorded" in text
    assert f"numpy {manifest['versions']['numpy']}" in text


@pytest.mark.parametrize(
    ("setup", "message"),
    [
        (lambda root: None, "holds no <family>/*.parquet"),
        (
            lambda root: (root / "maze").mkdir() or (root / "maze" / "test-0.parquet").write_bytes(b"PAR1 not really"),
            "is not a readable Parquet file",
        ),
        (
            lambda root: (root / "maze").mkdir() or (root / "maze" / "test-0.parquet").symlink_to("/etc/hostname"),
            "is not a readable Parquet file",
        ),  # a link to a regular file is followed (a Hub cache snapshot is all links), and read as a shard
        (
            lambda root: (root / "maze").mkdir() or os.mkfifo(root / "maze" / "test-0.parquet"),
            "not a regular file (a FIFO)",
        ),
    ],
)
def test_info__unreadable_folders_are_one_line_errors(tmp_path: Path, capsys, setup, message: str) -> None:
    setup(tmp_path)
    assert main(["info", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1


def test_info__a_broken_manifest_is_a_one_line_error(built: Path, tmp_path: Path, capsys) -> None:
    folder = tmp_path / "copy"
    (folder / "maze").mkdir(parents=True)
    (folder / "maze" / "train-00000-of-00001.parquet").write_bytes(
        (built / "maze" / "test-00000-of-00001.parquet").read_bytes()
    )
    (folder / "manifest.json").write_text(json.dumps({"format": "vgau-data generate", "format_version": 1,
                                                      "versions": {}, "catalog": {}, "parts": {"maze/train": 3}}))  # fmt: skip
    assert main(["info", str(folder)]) == 2
    err = capsys.readouterr().err
    assert "part 'maze/train' has no bands" in err and len(err.strip().splitlines()) == 1
