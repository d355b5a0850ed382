"""The diagnosis of self-generation runs as `vgau-data run` writes them: scripted generators
for every image source, one scripted answerer, Table 3 with fidelity and routes."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from vgau_data.cli import main
from vgau_data.diagnosis.collect import ALL, diagnose
from vgau_data.diagnosis.conditions import Condition, Source
from vgau_data.registry import get_family
from vgau_data.runners.instances import load_instances, resolve_dataset

GENERATORS = {
    "oracle": ["self_gta", "self_vcot", "self_vr"],
    "noise": ["self_gta", "self_vr"],
    "mismatch": ["self_gta"],
    "perturbed-2": ["self_gta"],
}


@pytest.fixture(scope="module")
def self_runs(dataset_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One run of each scripted generator on the easy rows, and the scripted oracle's Text-CoT."""
    out = tmp_path_factory.mktemp("self_runs")
    common = ["--dataset", str(dataset_dir), "--out", str(out), "--difficulty", "easy", "--runs", "1", "--no-progress"]
    assert main(["run", "--backend", "scripted", "--model", "oracle", "--protocol", "text_cot", *common]) == 0
    for generator, protocols in GENERATORS.items():
        args = ["run", "--backend", "scripted-image", "--model", generator, "--protocol", *protocols, *common]
        assert main(args) == 0
    return out


def _listed_images(runs: Path, generator: str, variant: str) -> list[dict]:
    (folder,) = [p for p in runs.iterdir() if p.name.startswith(f"scripted-image-{generator}-")]
    lines = (folder / "records" / variant / "run-0.jsonl").read_text().splitlines()[1:]
    return [(json.loads(line)["task"], image) for line in lines for image in json.loads(line)["images"]]


def test_diagnose__every_source_of_one_answerer(self_runs: Path) -> None:
    diagnosis = diagnose(self_runs, progress=False)
    assert diagnosis.answerers() == ["oracle"]
    sources = {(c.source, c.paradigm) for c in diagnosis.accuracy if not c.is_reference}
    assert sources == {
        (Source("oracle", "scripted-image"), "gta"), (Source("oracle", "scripted-image"), "vcot"),
        (Source("oracle", "scripted-image"), "vr"), (Source("noise"), "gta"), (Source("noise"), "vr"),
        (Source("mismatch"), "gta"), (Source("perturbed", "2"), "gta"),
    }  # fmt: skip
    fidelity = {(c.source.kind, c.paradigm): cells for c, cells in diagnosis.fidelity.items()}
    for family in [*diagnosis.families, ALL]:
        assert fidelity[("oracle", "gta")][family].cell_agreement == 1.0
        if family in fidelity[("oracle", "vcot")]:  # one-step rows reach the goal, after which nothing is drawn
            assert fidelity[("oracle", "vcot")][family].exact == 1.0
        assert fidelity[("noise", "gta")][family].cell_agreement < 0.1
        assert fidelity[("mismatch", "gta")][family].cell_agreement < 1.0
    assert fidelity[("oracle", "gta")][ALL].images == len(_listed_images(self_runs, "oracle", "self_gta")) == 6


def test_diagnose__a_two_cell_perturbation_agrees_on_all_but_two_cells(self_runs: Path) -> None:
    diagnosis = diagnose(self_runs, progress=False)
    (perturbed,) = [c for c in diagnosis.fidelity if c.source.kind == "perturbed"]
    for family in diagnosis.families:
        expected = [1 - 2 / len(get_family(family).fidelity.cell_labels(get_family(family).from_json(image["state"])))
                    for task, image in _listed_images(self_runs, "perturbed-2", "self_gta") if task == family]  # fmt: skip
        assert diagnosis.fidelity[perturbed][family].cell_agreement == pytest.approx(sum(expected) / len(expected))


def test_diagnose__vr_routes_read_beside_the_stated_answer(self_runs: Path, dataset_dir: Path) -> None:
    diagnosis = diagnose(self_runs, progress=False)
    oracle = diagnosis.fidelity[Condition("oracle", Source("oracle", "scripted-image"), "vr", "reasoning")]
    noise = diagnosis.fidelity[Condition("oracle", Source("noise"), "vr", "reasoning")]
    assert oracle["maze"].route_optimal == 1.0 and oracle["sokoban"].route_optimal == 1.0
    assert noise["maze"].route_feasible == 0.0 and noise["maze"].answer_feasible == 1.0
    assert oracle["klotski"].routes == 0  # klotski draws arrows, not a red route
    # One push solves a sokoban easy row here: its route is the push, so noise (no stroke) is no route.
    rows = load_instances(resolve_dataset(str(dataset_dir)), families=["sokoban"], difficulties=["easy"])
    assert 1 in {row.optimal_length for row in rows}
    assert noise["sokoban"].routes == len(rows) and noise["sokoban"].route_feasible == 0.0


def test_diagnose_cli__table3_with_cell_agreement(self_runs: Path, capsys) -> None:
    assert main(["diagnose", str(self_runs), "--no-progress", "--width", "400"]) == 0
    out = capsys.readouterr().out
    agreement = out[out.index("cell agreement of the images") :]
    noise = next(line for line in agreement.splitlines() if line.startswith("Vision: Gaussian noise"))
    oracle = next(line for line in agreement.splitlines() if line.startswith("Vision: oracle image (scripted-image)"))
    assert all(float(v) < 0.1 for v in re.findall(r"\d\.\d\d", noise))
    values = re.findall(r"\d\.\d\d|(?<=\s)-(?=\s|$)", oracle.split("|", 1)[1])
    assert len(values) == 3 * 4 and set(values) <= {"1.00", "-"}  # GtA, VCoT, VR x 3 families and all
    assert values.count("-") <= 1  # a family's VCoT whose easy rows all end at the goal draws nothing
    assert "Self-VR drawings read as routes" in out
