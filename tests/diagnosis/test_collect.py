"""A runs folder -> accuracy and fidelity per condition, checked against the records themselves."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from vgau_data.diagnosis.collect import (
    ALL,
    Accuracy,
    DiagnosisError,
    ImageUse,
    diagnose,
    pool,
    summarize,
)
from vgau_data.diagnosis.conditions import Condition, Source
from vgau_data.diagnosis.fidelity_cache import ImageEntry, Measured


def _verdicts(runs_dir: Path, model: str, variant: str) -> list[dict]:
    (folder,) = [p for p in runs_dir.iterdir() if p.name.startswith(model + "-")]
    lines = (folder / "records" / variant / "run-0.jsonl").read_text().splitlines()[1:]
    return [json.loads(line)["verdict"] for line in lines]


def test_diagnose__accuracy_is_the_records_verdicts_on_easy_rows(runs_dir: Path) -> None:
    diagnosis = diagnose(runs_dir, progress=False)
    assert diagnosis.families == ["maze", "sokoban", "klotski"]
    kinds = {(c.answerer, c.source.kind, c.paradigm) for c in diagnosis.accuracy}
    assert kinds == {(m, s, p) for m in ("oracle", "random") for s, p in
                     [("text", "text_cot"), ("oracle", "gta"), ("oracle", "vcot"), ("oracle", "vcot_fixed")]}  # fmt: skip
    for condition, cells in diagnosis.accuracy.items():
        variant = {"text_cot": "text_cot", "gta": "oracle_gta", "vcot": "oracle_vcot",
                   "vcot_fixed": "oracle_vcot_fixed"}[condition.paradigm]  # fmt: skip
        verdicts = [v for v in _verdicts(runs_dir, condition.answerer, variant) if v["difficulty"] == "easy"]
        for family in diagnosis.families:
            mine = [v for v in verdicts if v["task"] == family]
            assert cells[family].optimal == sum(v["optimal"] for v in mine) / len(mine)
            assert cells[family].feasible == sum(v["feasible"] for v in mine) / len(mine)
        assert cells[ALL].n == 6 and cells[ALL].optimal == sum(v["optimal"] for v in verdicts) / 6
    oracle = Condition("oracle", Source("oracle"), "gta")
    assert diagnosis.accuracy[oracle][ALL].optimal == 1.0
    assert diagnosis.reference("oracle", "maze") == Accuracy(1.0, 1.0, 2, 1)


def test_diagnose__difficulties_and_families_select_rows(runs_dir: Path) -> None:
    diagnosis = diagnose(runs_dir, difficulties=("easy", "medium"), families=["sokoban"], progress=False)
    assert diagnosis.families == ["sokoban"]
    assert {cells[ALL].n for cells in diagnosis.accuracy.values()} == {3}


def test_diagnose__oracle_protocols_show_our_own_renders(runs_dir: Path) -> None:
    diagnosis = diagnose(runs_dir, progress=False)
    (gta,) = [c for c in diagnosis.fidelity if c.answerer == "random" and c.paradigm == "gta"]
    assert diagnosis.fidelity[gta]["maze"].cell_agreement == 1.0 and diagnosis.fidelity[gta]["maze"].lpips is None
    assert not [c for c in diagnosis.fidelity if c.is_reference]


def test_diagnose__nothing_to_read_is_a_user_error(tmp_path: Path) -> None:
    with pytest.raises(DiagnosisError, match="vgau-data run"):
        diagnose(tmp_path, progress=False)


def test_diagnose__json_has_every_condition(runs_dir: Path) -> None:
    data = json.loads(json.dumps(diagnose(runs_dir, progress=False).to_json()))
    assert len(data["conditions"]) == 8
    gta = next(c for c in data["conditions"] if c["answerer"] == "random" and c["paradigm"] == "gta")
    assert gta["accuracy"][ALL]["delta_to_text_cot"] == pytest.approx(
        gta["accuracy"][ALL]["optimal"]
        - next(c for c in data["conditions"] if c["answerer"] == "random" and c["paradigm"] == "text_cot")["accuracy"][
            ALL
        ]["optimal"]
    )


def test_pool__weights_families_by_rows() -> None:
    assert pool([Accuracy(1.0, 1.0, 1, 3), Accuracy(0.0, 0.5, 3, 3)]) == Accuracy(0.25, 0.625, 4, 3)
    assert pool([]) is None


def _use(key: str, answer_feasible: bool | None = None) -> ImageUse:
    entry = ImageEntry(Path(f"{key}.png"), key, "maze", "vr", "{}")
    return ImageUse(Condition("m", Source("noise"), "vr"), "maze", "easy", entry, answer_feasible, optimal_length=4)


def test_summarize__means_routes_and_stated_answers() -> None:
    uses = [_use("a", True), _use("b", False), _use("c", True), _use("gone", True)]
    measured = Measured(records={
        uses[0].entry.key: {"cell_agreement": 1.0, "cells_exact": True, "ssim": 0.9, "route_feasible": True,
                            "route_length": 4},
        uses[1].entry.key: {"cell_agreement": 0.5, "cells_exact": False, "ssim": 0.5, "route_feasible": True,
                            "route_length": 6, "route_cells": 1},
        uses[2].entry.key: {"cell_agreement": 0.0, "cells_exact": False, "ssim": 0.1, "route_feasible": False,
                            "route_length": 1},
    })  # fmt: skip
    summary = summarize(uses, measured)
    assert (summary.images, summary.unreadable, summary.routes) == (3, 1, 3)
    assert summary.cell_agreement == pytest.approx(0.5) and summary.exact == pytest.approx(1 / 3)
    assert summary.route_feasible == pytest.approx(2 / 3) and summary.route_optimal == pytest.approx(1 / 3)
    assert summary.answer_feasible == pytest.approx(2 / 3)
    assert summary.lpips is None


def test_summarize__lpips_only_from_the_weights_in_use() -> None:
    uses = [_use("a"), _use("b")]
    model = {"trunk_sha256": "t", "heads_sha256": "h"}
    measured = Measured(lpips=model, records={
        uses[0].entry.key: {"cell_agreement": 1.0, "cells_exact": True, "ssim": 1.0, "lpips": 0.2,
                            "lpips_trunk_sha256": "t", "lpips_heads_sha256": "h"},
        uses[1].entry.key: {"cell_agreement": 1.0, "cells_exact": True, "ssim": 1.0, "lpips": 0.9,
                            "lpips_trunk_sha256": "other", "lpips_heads_sha256": "h"},
    })  # fmt: skip
    summary = summarize(uses, measured)
    assert summary.lpips == pytest.approx(0.2) and summary.lpips_images == 1


def test_diagnose__deltas_over_other_rows_are_named(dataset_dir: Path, tmp_path: Path) -> None:
    from vgau_data.cli import main

    common = ["--dataset", str(dataset_dir), "--out", str(tmp_path), "--no-progress", "--backend", "scripted"]
    assert main(["run", *common, "--model", "oracle", "--protocol", "text_cot", "--limit", "1"]) == 0
    assert main(["run", *common, "--model", "oracle", "--protocol", "oracle_gta"]) == 0
    warnings = diagnose(tmp_path, progress=False).warnings
    assert any("Oracle-GtA (Oracle generation) and its Text-CoT scored different numbers of rows" in w and
               "maze 2 vs 1" in w for w in warnings)  # fmt: skip


def test_diagnose__two_models_of_one_name_are_named(runs_dir: Path, tmp_path: Path) -> None:
    import shutil

    (oracle,) = [p for p in runs_dir.iterdir() if p.name.startswith("oracle-")]
    shutil.copytree(oracle, tmp_path / oracle.name)
    other = tmp_path / "oracle-00000000"
    shutil.copytree(oracle, other)
    for path in (other / "records").glob("*/run-*.jsonl"):
        path.write_text(path.read_text().replace(oracle.name.split("-")[1], "00000000", 1))
    warnings = diagnose(tmp_path, progress=False).warnings
    assert any("runs of 2 different models answer as 'oracle'" in w for w in warnings)
    assert any("/text_cot repeats Text-CoT of oracle" in w for w in warnings)
