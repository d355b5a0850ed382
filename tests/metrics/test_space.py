"""The metric Space folder: a shipped wheel named by its Space URL, working pins, evaluate's full card."""

from __future__ import annotations

import zipfile
from pathlib import Path

import pytest
import yaml

from vgau_data import __version__
from vgau_data.cli import main
from vgau_data.metrics.references import ReferenceSet
from vgau_data.metrics.space import GRADIO_VERSION, SPACE_URL


@pytest.fixture(scope="module")
def space(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("space") / "solver_accuracy"
    assert main(["publish-metric", str(out)]) == 0
    return out


def test_publish_metric__ships_a_wheel_the_requirements_name_by_url(space: Path) -> None:
    wheel = space / f"vgau_data-{__version__}-py3-none-any.whl"
    assert sorted(p.name for p in space.iterdir()) == sorted(
        ["README.md", "app.py", "requirements.txt", "solver_accuracy.py", wheel.name]
    )
    requirements = (space / "requirements.txt").read_text(encoding="utf-8").splitlines()
    assert f"vgau-data @ {SPACE_URL}/resolve/main/{wheel.name}" in requirements
    assert "evaluate>=0.4.6" in requirements and not any(line.startswith("gradio") for line in requirements)
    assert f"\nsdk_version: {GRADIO_VERSION}\n" in (space / "README.md").read_text(encoding="utf-8")
    names = zipfile.ZipFile(wheel).namelist()
    for data in ("vgau_data/metrics/solver_accuracy/solver_accuracy.py", "vgau_data/metrics/leaderboard.html",
                 "vgau_data/integrations/lmms_eval/tasks/vgau_maze_direct.yaml", "vgau_data/dataset_card.md"):
        assert data in names
    assert 'HERE / "solver_accuracy.py"' in (space / "app.py").read_text(encoding="utf-8")


def test_publish_metric__requirement_or_wheel_instead_of_building(space: Path, tmp_path: Path) -> None:
    other = tmp_path / "s"
    assert main(["publish-metric", str(other), "--requirement", "vgau-data @ git+https://example.org/v.git"]) == 0
    assert "vgau-data @ git+https://example.org/v.git" in (other / "requirements.txt").read_text(encoding="utf-8")
    assert not list(other.glob("*.whl"))
    wheel = next(space.glob("*.whl"))
    assert main(["publish-metric", str(other), "--wheel", str(wheel)]) == 0
    assert (other / wheel.name).read_bytes() == wheel.read_bytes()


def test_metric_card__has_evaluates_sections_and_dataset_metadata(space: Path) -> None:
    text = (space / "README.md").read_text(encoding="utf-8")
    meta = yaml.safe_load(text.split("---")[1])
    assert meta["datasets"] == ["vgau/puzzles"] and meta["sdk"] == "gradio" and meta["app_file"] == "app.py"
    headings = [line.lstrip("#").strip() for line in text.splitlines() if line.startswith("#")]
    for section in ("Metric Description", "How to Use", "Inputs", "Output Values", "Values from Popular Papers",
                    "Examples", "Limitations and Bias", "Citation", "Further References"):
        assert section in headings


def test_publish_metric__space_folder_loads_with_evaluate(space: Path, references: ReferenceSet) -> None:
    import evaluate

    from vgau_data.metrics.baselines import oracle_output

    metric = evaluate.load(str(space / "solver_accuracy.py"), keep_in_memory=True)
    row = references.rows[0]
    result = metric.compute(predictions=[oracle_output(row), "no"], references=[row.reference_json()] * 2)
    assert result["optimal_accuracy"] == 0.5


def test_publish_metric__a_forks_repo_gets_its_own_wheel_url_and_script_name(
    space: Path, references: ReferenceSet, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import evaluate

    from vgau_data.metrics.baselines import oracle_output
    from vgau_data.metrics.space import space_url

    wheel = next(space.glob("*.whl"))
    fork = tmp_path / "fork"
    assert main(["publish-metric", str(fork), "--wheel", str(wheel), "--repo", "alice/my_metric"]) == 0
    assert "ready to upload to the Space alice/my_metric" in capsys.readouterr().out
    assert sorted(p.name for p in fork.iterdir()) == sorted(["README.md", "app.py", "requirements.txt", "my_metric.py",
                                                             wheel.name])
    requirements = (fork / "requirements.txt").read_text(encoding="utf-8").splitlines()
    assert f"vgau-data @ https://huggingface.co/spaces/alice/my_metric/resolve/main/{wheel.name}" in requirements
    assert space_url("alice/my_metric") == "https://huggingface.co/spaces/alice/my_metric"
    assert not any("vgau/solver_accuracy" in line for line in requirements)
    assert 'HERE / "my_metric.py"' in (fork / "app.py").read_text(encoding="utf-8")
    card = (fork / "README.md").read_text(encoding="utf-8")
    assert 'evaluate.load("alice/my_metric")' in card and 'evaluate.load("vgau/solver_accuracy")' not in card
    metric = evaluate.load(str(fork / "my_metric.py"), keep_in_memory=True)
    row = references.rows[0]
    assert metric.compute(predictions=[oracle_output(row)], references=[row.reference_json()])["optimal_accuracy"] == 1
    assert main(["publish-metric", str(tmp_path / "bad"), "--wheel", str(wheel), "--repo", "alice/my-metric"]) == 2
    assert "NAME a Python identifier" in capsys.readouterr().err
