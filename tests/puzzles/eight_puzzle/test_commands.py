"""The 8-puzzle through every command, with every capability: build, baseline + score, run (the scripted oracle
under every protocol, drawing included) and diagnose, called as the command line calls them (in this process).

It runs when the suite runs with the 8-puzzle registered (``VGAU_TEST_EXTRA_FAMILY=tests.eight_puzzle``,
docs/adding-a-family.md): it is the end-to-end half of checking the worked example against the whole suite, and
too slow for the default run, where the toy (``tests/toy_family/test_lights.py``) takes every command bare.
"""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from tests.families import plays
from tests.toy_family import EXTRA
from vgau_data.cli import main
from vgau_data.protocols import PROTOCOLS, budget_variant, protocol_names
from vgau_data.registry import FAMILIES

pytestmark = pytest.mark.skipif("eight_puzzle" not in EXTRA, reason="runs with VGAU_TEST_EXTRA_FAMILY=tests.eight_puzzle")


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("eight") / "dataset"
    assert main(["build", "--out", str(out), "--families", "eight_puzzle", "--counts", "2", "1", "1", "--workers",
                 "1", "--no-progress"]) == 0  # fmt: skip
    return out


@pytest.fixture(scope="module")
def runs(built: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("eight-runs")
    args = ["run", "--backend", "scripted-image", "--model", "oracle", "--dataset", str(built), "--out", str(out),
            "--protocol", "all", "--budget", "optimal", "fixed", "--runs", "1", "--no-progress"]  # fmt: skip
    assert main(args) == 0
    return out


def test_build__writes_rows_with_their_drawn_solutions(built: Path) -> None:
    spec = FAMILIES["eight_puzzle"]
    table = pq.read_table(built / "eight_puzzle" / "test-00000-of-00001.parquet")
    assert table.column("difficulty").to_pylist() == ["easy"] * 2 + ["medium", "hard"]
    assert all(table.column("oracle_vr").to_pylist())  # it declares a solution drawing
    optima = [spec.solve(spec.from_json(text)).optimal_length for text in table.column("state").to_pylist()]
    assert optima == table.column("optimal_length").to_pylist()
    assert "misplaced tiles" in (built / "README.md").read_text()  # its structure statistics on the card


def test_baseline_and_score__the_oracle_scores_every_row(built: Path, tmp_path: Path) -> None:
    submission, results = tmp_path / "oracle.jsonl", tmp_path / "results.json"
    assert main(["baseline", "--kind", "oracle", "--dataset", str(built), "--out", str(submission),
                 "--protocols", "text_cot", "direct"]) == 0  # fmt: skip
    assert main(["score", str(submission), "--dataset", str(built), "--out", str(results)]) == 0
    ((_, body),) = json.loads(results.read_text()).items()
    assert {body[protocol]["optimal_accuracy"] for protocol in ("text_cot", "direct")} == {1.0}


def test_run_and_diagnose__the_scripted_oracle_plays_every_protocol(runs: Path, capsys) -> None:
    spec = FAMILIES["eight_puzzle"]
    assert all(plays(spec, name) for name in protocol_names())  # every capability: nothing is refused
    (model_dir,) = [path for path in runs.iterdir() if path.is_dir()]
    ((_, body),) = json.loads((model_dir / "results.json").read_text()).items()
    results = {protocol: result for protocol, result in body.items() if protocol != "META"}
    assert set(results) == {budget_variant(name, budget) for name in protocol_names() for budget in PROTOCOLS[name].budgets}
    assert all(result["optimal_accuracy"] == 1.0 for result in results.values()), results
    assert main(["diagnose", str(runs), "--families", "eight_puzzle", "--no-progress", "--width", "400"]) == 0
    assert "eight_puzzle" in capsys.readouterr().out
