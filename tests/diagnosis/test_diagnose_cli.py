"""``vgau-data diagnose`` end to end on scripted runs."""

from __future__ import annotations

import json
from pathlib import Path

from tests.runners.test_perceptual import weights  # noqa: F401  (the random LPIPS weights fixture)
from vgau_data.cli import main


def test_diagnose__prints_table3_for_each_answerer(runs_dir: Path, capsys) -> None:
    assert main(["diagnose", str(runs_dir), "--no-progress", "--width", "400"]) == 0
    out = capsys.readouterr().out
    assert "oracle: optimal accuracy (%), (delta to Text-CoT); easy rows, mean over runs" in out
    assert "random: optimal accuracy (%)" in out
    oracle_row = next(line for line in out.splitlines() if line.startswith("Oracle generation") and "100.0" in line)
    assert oracle_row.count("100.0 (+0.0)") == 3 * 4  # GtA, VCoT, VCoT-fixed for 3 families and all
    assert "LPIPS: not computed; pass --lpips-weights" in out


def test_diagnose__paper_layout_json_and_plot(runs_dir: Path, tmp_path: Path, capsys) -> None:
    args = ["diagnose", str(runs_dir), "--layout", "models", "--families", "maze", "--no-progress",
            "--out", str(tmp_path / "d.json"), "--plot", "--plot-dir", str(tmp_path / "fig")]  # fmt: skip
    assert main(args) == 0
    out = capsys.readouterr().out
    assert out.startswith("maze: optimal accuracy") and "  Oracle-VCoT-fixed" in out
    assert json.loads((tmp_path / "d.json").read_text())["families"] == ["maze"]
    assert (tmp_path / "fig" / "figure3_all.png").is_file()


def test_diagnose__paired_from_runs(runs_dir: Path, capsys) -> None:
    oracle, random = sorted(p.name for p in runs_dir.iterdir() if p.is_dir())
    assert main(["diagnose", "--paired", str(runs_dir / random), str(runs_dir / oracle), "--no-progress"]) == 0
    out = capsys.readouterr().out
    assert "Paired comparison (UniG2U): random against its base VLM oracle" in out


def test_diagnose__user_errors_are_one_line(tmp_path: Path, capsys) -> None:
    assert main(["diagnose", str(tmp_path)]) == 2
    assert main(["diagnose"]) == 2
    assert main(["diagnose", str(tmp_path), "--lpips-weights", str(tmp_path / "alexnet.pth")]) == 2
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 3 and all(line.startswith("vgau-data diagnose: error:") for line in err)
    assert "alexnet-owt-7be5be79.pth" in err[2]


def test_diagnose__lpips_with_weights(runs_dir: Path, weights, capsys) -> None:  # noqa: F811
    """The oracle protocols show our own renderings: LPIPS 0 by construction, and the weights are named."""
    args = ["diagnose", str(runs_dir), "--measures", "lpips", "--lpips-weights", str(weights[0]),
            "--lpips-heads", str(weights[1]), "--no-progress", "--width", "400"]  # fmt: skip
    assert main(args) == 0
    out = capsys.readouterr().out
    assert "LPIPS against the oracle image" in out and "not torchvision's release" in out
    oracle_row = next(line for line in out.splitlines() if line.startswith("Oracle generation"))
    assert oracle_row.count("0.000") == 3 * 4
