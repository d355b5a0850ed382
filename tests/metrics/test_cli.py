"""vgau-data score / baseline / publish-metric / convert, called through main([...])."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from vgau_data.cli import main
from vgau_data.metrics.references import ReferenceSet
from vgau_data.metrics.results import score_submission
from vgau_data.metrics.submission import read_submission, submission_lines


@pytest.fixture()
def oracle_file(scoring_dataset: Path, tmp_path: Path) -> Path:
    out = tmp_path / "oracle.jsonl"
    assert main(["baseline", "--kind", "oracle", "--dataset", str(scoring_dataset), "--out", str(out),
                 "--protocols", "direct", "text_cot"]) == 0
    return out


def test_score__results_json_equals_the_python_api(
    scoring_dataset: Path,
    references: ReferenceSet,
    oracle_file: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    results = tmp_path / "results.json"
    assert main(["score", str(oracle_file), "--dataset", str(scoring_dataset), "--out", str(results)]) == 0
    written = json.loads(results.read_text(encoding="utf-8"))
    assert written == json.loads(json.dumps(score_submission(read_submission(oracle_file), references)))
    printed = capsys.readouterr().out
    assert "baseline-oracle: optimal accuracy (%)" in printed and "baseline-oracle: feasible accuracy (%)" in printed
    rows = [line for line in printed.splitlines() if line.startswith(("direct ", "text_cot "))]
    assert len(rows) == 4
    assert all(line.count("100.0") == 3 * len(references.families) + 1 for line in rows)


def test_score__missing_rows_lower_the_printed_score(
    scoring_dataset: Path,
    references: ReferenceSet,
    oracle_file: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    lines = oracle_file.read_text(encoding="utf-8").splitlines()
    kept = [lines[0]] + [line for line in lines[1:] if "-hard-" not in line]
    partial = tmp_path / "partial.jsonl"
    partial.write_text("\n".join(kept) + "\n", encoding="utf-8")
    results = tmp_path / "results.json"
    assert main(["score", str(partial), "--dataset", str(scoring_dataset), "--out", str(results)]) == 0
    direct = json.loads(results.read_text())["baseline-oracle"]["direct"]
    n_hard = sum(r.difficulty == "hard" for r in references.rows)
    assert direct["optimal_accuracy"] == pytest.approx(1 - n_hard / len(references.rows))
    assert direct["errors"] == {"missing": n_hard}
    out = capsys.readouterr().out
    assert f"warning: direct: {n_hard} missing row(s)" in out
    assert "| 100.0 100.0   0.0 |" in out


def test_score__duplicates_exit_2_naming_the_lines(
    scoring_dataset: Path, oracle_file: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    lines = oracle_file.read_text(encoding="utf-8").splitlines()
    bad = tmp_path / "dup.jsonl"
    bad.write_text("\n".join(lines + [lines[3]]) + "\n", encoding="utf-8")
    assert main(["score", str(bad), "--dataset", str(scoring_dataset)]) == 2
    assert f"line {len(lines) + 1}: duplicate of line 4" in capsys.readouterr().err


def test_score__unknown_ids_exit_2_naming_them(
    scoring_dataset: Path, oracle_file: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    extra = json.dumps({"id": "maze-hard-0777", "protocol": "direct", "run": 0, "output": ""})
    bad = tmp_path / "unknown.jsonl"
    bad.write_text(oracle_file.read_text(encoding="utf-8") + extra + "\n", encoding="utf-8")
    assert main(["score", str(bad), "--dataset", str(scoring_dataset)]) == 2
    assert "1 id(s) are not rows of the dataset" in (err := capsys.readouterr().err) and "maze-hard-0777" in err


def test_score__wrong_fingerprint_exit_2_unless_allowed(
    scoring_dataset: Path,
    references: ReferenceSet,
    oracle_file: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    submission = read_submission(oracle_file)
    text = "\n".join(submission_lines(submission)).replace(references.fingerprint, "f" * 64, 1)
    bad = tmp_path / "fp.jsonl"
    bad.write_text(text + "\n", encoding="utf-8")
    assert main(["score", str(bad), "--dataset", str(scoring_dataset)]) == 2
    err = capsys.readouterr().err
    assert "f" * 64 in err and references.fingerprint in err and "--allow-fingerprint-mismatch" in err
    assert main(["score", str(bad), "--dataset", str(scoring_dataset), "--allow-fingerprint-mismatch"]) == 0
    assert "warning: submission fingerprint" in capsys.readouterr().out


def test_score__families_subset_and_details(
    scoring_dataset: Path, oracle_file: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    results, details = tmp_path / "r.json", tmp_path / "d.jsonl"
    assert main(["score", str(oracle_file), "--dataset", str(scoring_dataset), "--families", "maze", "path",
                 "--out", str(results), "--details", str(details)]) == 0
    body = json.loads(results.read_text())["baseline-oracle"]
    assert body["META"]["families"] == ["maze", "path"]
    assert list(body["direct"]["per_family"]) == ["maze", "path"]
    verdicts = [json.loads(line) for line in details.read_text().splitlines()]
    assert {v["task"] for v in verdicts} == {"maze", "path"}
    assert len(verdicts) == 2 * body["direct"]["n"]


def test_score__plot_writes_one_png_per_protocol(scoring_dataset: Path, oracle_file: Path, tmp_path: Path) -> None:
    pytest.importorskip("matplotlib")
    plots = tmp_path / "plots"
    assert main(["score", str(oracle_file), "--dataset", str(scoring_dataset), "--plot", "--plot-dir", str(plots)]) == 0
    pngs = sorted(p.name for p in plots.iterdir())
    assert pngs == ["baseline-oracle_direct.png", "baseline-oracle_text_cot.png"]
    assert (plots / pngs[0]).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_score__bad_dataset_path_exit_2(oracle_file: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["score", str(oracle_file), "--dataset", str(tmp_path)]) == 2
    assert "build the dataset first" in capsys.readouterr().err


def test_baseline__empty_scores_zero_through_the_cli(
    scoring_dataset: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out, results = tmp_path / "empty.jsonl.gz", tmp_path / "r.json"
    dataset = str(scoring_dataset)
    assert main(["baseline", "--kind", "empty", "--dataset", dataset, "--out", str(out), "--runs", "3"]) == 0
    assert main(["score", str(out), "--dataset", str(scoring_dataset), "--out", str(results)]) == 0
    direct = json.loads(results.read_text())["baseline-empty"]["direct"]
    assert (direct["optimal_accuracy"], direct["runs"], direct["optimal_accuracy_std"]) == (0.0, 3, 0.0)


def test_publish_metric__writes_the_space_folder(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from vgau_data import __version__

    space = tmp_path / "space"
    assert main(["publish-metric", str(space)]) == 0
    assert sorted(p.name for p in space.iterdir()) == ["README.md", "app.py", "requirements.txt", "solver_accuracy.py"]
    assert f"vgau-data=={__version__}" in (space / "requirements.txt").read_text().splitlines()
    assert 'evaluate.load("vgau/solver_accuracy")' in (space / "app.py").read_text()
    card = (space / "README.md").read_text(encoding="utf-8")
    assert card.startswith("---\n") and "app_file: app.py" in card and "evaluate.load(" in card
    assert main(["publish-metric", str(space), "--requirement", "vgau-data @ git+https://example.org/v.git"]) == 0
    assert "vgau-data @ git+https://example.org/v.git" in (space / "requirements.txt").read_text()
    assert "ready to upload to the Space vgau/solver_accuracy" in capsys.readouterr().out


def test_publish_metric__space_folder_loads_with_evaluate(tmp_path: Path, references: ReferenceSet) -> None:
    evaluate = pytest.importorskip("evaluate")
    from vgau_data.metrics.space import write_metric_space

    space = tmp_path / "solver_accuracy"
    write_metric_space(space)
    metric = evaluate.load(str(space), keep_in_memory=True)
    row = references.rows[0]
    from vgau_data.metrics.baselines import oracle_output

    result = metric.compute(predictions=[oracle_output(row)], references=[row.reference_json()])
    assert result["optimal_accuracy"] == 1.0


@pytest.mark.parametrize("dataset", ["no/such/thing", "nope.parquet", "vgau/not-a-cached-repo"])
def test_score__unreachable_dataset_exit_2(
    oracle_file: Path, dataset: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    import huggingface_hub.constants

    monkeypatch.setattr(huggingface_hub.constants, "HF_HUB_OFFLINE", True)
    assert main(["score", str(oracle_file), "--dataset", dataset]) == 2
    err = capsys.readouterr().err
    assert dataset in err and ("neither a built folder" in err or "could not get the dataset repo" in err)
