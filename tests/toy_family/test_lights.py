"""A seventh family end to end: its own package plus one registry line, and every command takes it.

``lights`` (3x3 Lights Out, ``tests/toy_family/lights``) is registered here for the test
only, through the registry's own table, and then goes through ``vgau-data build``,
``baseline`` + ``score``, ``run`` (the scripted oracle, answering and drawing, under every
protocol the family and the scripted oracle support), ``diagnose``, and ``generate`` +
``decontam`` (training rows with stored traces), each called as the command line calls it
(``vgau_data.cli.main``, in this process and one worker, so the registration holds).
"""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow.parquet as pq
import pytest

import vgau_data
from tests.families import plays
from tests.toy_family import lights
from vgau_data import registry
from vgau_data.cli import main
from vgau_data.protocols import PROTOCOLS, budget_variant, protocol_names

SPEC = lights.SPEC
SUPPORTED = [name for name in protocol_names() if plays(SPEC, name)]
"""The toy declares no solution drawing: ``oracle_vr`` and the scripted oracle's self-VR drawing need one."""
VARIANTS = {budget_variant(name, budget) for name in SUPPORTED for budget in PROTOCOLS[name].budgets}


@pytest.fixture(scope="module")
def registered():
    """The one registry line a new family adds, for this module's tests only."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setitem(registry._FAMILIES, SPEC.name, SPEC)
        yield SPEC


@pytest.fixture(scope="module")
def built(registered, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("lights") / "dataset"
    assert main(["build", "--out", str(out), "--families", "lights", "--counts", "2", "2", "2", "--workers", "1",
                 "--no-progress"]) == 0  # fmt: skip
    return out


def test_generate__refuses_a_family_the_held_out_keys_lack(registered, tmp_path: Path, capsys) -> None:
    """Before its test instances are keyed, a new family's rows cannot be checked against them: a one-line error."""
    args = ["generate", "--families", "lights", "--n", "1", "--lengths", "1-2", "--workers", "1", "--no-progress",
            "--out", str(tmp_path / "train")]  # fmt: skip
    assert main(args) == 2
    assert "hold no lights instances" in capsys.readouterr().err


@pytest.fixture(scope="module")
def keyed(built: Path):
    """What a new family's author does before generating training rows: key its test instances into the held-out
    keys (for a family of the package, ``python -m vgau_data.training.heldout --keep-paper``; here, the toy's build,
    for this module only), so ``generate`` and ``decontam`` check its rows against them instead of refusing."""
    from vgau_data.training import catalog, decontam, heldout

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(heldout, "FAMILIES", {SPEC.name: SPEC})
        data, problems = heldout.compute_heldout_keys(built)
        assert not problems and len(data["families"][SPEC.name]) == 6
        shipped = heldout.load_heldout_keys()
        keys = heldout.HeldOutKeys({**shipped.families, **heldout.parse_heldout_keys(data).families}, shipped.sources)
        patch.undo()
        for module in (catalog, decontam):
            patch.setattr(module, "load_heldout_keys", lambda: keys)
        yield keys


@pytest.fixture(scope="module")
def runs(built: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("lights-runs")
    args = ["run", "--backend", "scripted-image", "--model", "oracle", "--dataset", str(built), "--out", str(out),
            "--protocol", *SUPPORTED, "--budget", "optimal", "fixed", "--runs", "1", "--no-progress"]  # fmt: skip
    assert main(args) == 0
    return out


def test_lights__nothing_in_the_package_knows_it() -> None:
    """Adding it touched its own package and one registry line, in the tests."""
    package = Path(vgau_data.__file__).parent
    mentions = [path for path in package.rglob("*.py") if "lights" in path.read_text().lower()]
    assert mentions == []
    assert registry._FAMILIES[SPEC.name].generate is SPEC.generate  # registered by the tests, bare (tests/conftest.py)


def test_build__writes_the_toy_family_with_its_card(built: Path) -> None:
    table = pq.read_table(built / "lights" / "test-00000-of-00001.parquet")
    assert table.num_rows == 6
    assert table.column("difficulty").to_pylist() == ["easy"] * 2 + ["medium"] * 2 + ["hard"] * 2
    assert table.column("oracle_vr").to_pylist() == [None] * 6  # no solution drawing: no oracle_vr
    states = [SPEC.from_json(text) for text in table.column("state").to_pylist()]
    optima = table.column("optimal_length").to_pylist()
    assert [SPEC.solve(state).optimal_length for state in states] == optima
    card = (built / "README.md").read_text()
    assert "config_name: lights" in card and "lit lamps" in card  # its structure statistics, without the authors'


def test_baseline_and_score__the_oracle_scores_every_row(built: Path, tmp_path: Path, capsys) -> None:
    submission, results = tmp_path / "oracle.jsonl", tmp_path / "results.json"
    assert main(["baseline", "--kind", "oracle", "--dataset", str(built), "--out", str(submission),
                 "--protocols", "text_cot", "direct"]) == 0  # fmt: skip
    assert main(["score", str(submission), "--dataset", str(built), "--out", str(results)]) == 0
    assert "lights" in capsys.readouterr().out
    ((_, body),) = json.loads(results.read_text()).items()
    assert {body[protocol]["optimal_accuracy"] for protocol in ("text_cot", "direct")} == {1.0}


def test_run__the_scripted_oracle_solves_every_row_under_every_protocol_it_supports(runs: Path) -> None:
    assert set(protocol_names()) - set(SUPPORTED) == {"oracle_vr", "self_vr"}
    (model_dir,) = [path for path in runs.iterdir() if path.is_dir()]
    ((_, body),) = json.loads((model_dir / "results.json").read_text()).items()
    results = {protocol: result for protocol, result in body.items() if protocol != "META"}
    assert set(results) == VARIANTS
    assert all(result["optimal_accuracy"] == 1.0 for result in results.values()), results


def test_run__refuses_oracle_vr_for_a_family_without_a_solution_drawing(built: Path, tmp_path: Path, capsys) -> None:
    args = ["run", "--backend", "scripted", "--model", "oracle", "--dataset", str(built), "--out", str(tmp_path),
            "--protocol", "oracle_vr", "--no-progress"]  # fmt: skip
    assert main(args) == 2
    assert "lights does not declare" in capsys.readouterr().err


def test_run__refuses_self_vr_drawn_by_the_scripted_oracle_before_any_call(built: Path, tmp_path: Path, capsys) -> None:
    args = ["run", "--backend", "scripted-image", "--model", "oracle", "--dataset", str(built), "--out", str(tmp_path),
            "--protocol", "self_vr", "--no-progress"]  # fmt: skip
    assert main(args) == 2
    *_, error = capsys.readouterr().err.strip().splitlines()  # after the plan's one line
    assert "'self_vr' drawn by 'scripted-image-oracle' needs FamilySpec.vr, which lights does not declare" in error
    assert not list(tmp_path.rglob("*.jsonl"))  # refused before any episode


def test_diagnose__reads_the_toy_familys_runs(runs: Path, capsys) -> None:
    assert main(["diagnose", str(runs), "--families", "lights", "--no-progress", "--width", "400"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("oracle: optimal accuracy") and "lights" in lines[1]
    oracle_rows = [line for line in lines if line.startswith("Oracle generation")]
    assert oracle_rows[0].count("100.0 (+0.0)") == 2 * 3  # GtA, VCoT, VCoT-fixed, for lights and for all
    assert oracle_rows[1].split("|")[1].split() == ["1.00"] * 3  # its cells decoded from the images, all right


def test_generate__writes_loadable_training_rows_with_traces_and_decontam_finds_no_overlap(
    registered, keyed, tmp_path: Path, capsys
) -> None:
    """Its bands are built to their lengths, every stored solution replays as optimal, every trace kind is
    stored, a rerun makes nothing."""
    from datasets import load_dataset

    from vgau_data.training.traces import TRACE_KINDS

    out = tmp_path / "train"
    args = ["generate", "--families", "lights", "--n", "3", "--lengths", "1-2", "3-5", "--shard-rows", "4",
            "--traces", *TRACE_KINDS, "--workers", "1", "--no-progress", "--out", str(out)]  # fmt: skip
    assert main(args) == 0
    rows = load_dataset(str(out), "lights", split="train")
    assert rows.num_rows == 6 and rows["band"] == ["1-2"] * 3 + ["3-5"] * 3
    for row in rows:
        state = SPEC.from_json(row["state"])
        low, high = map(int, row["band"].split("-"))
        assert low <= row["optimal_length"] <= high and SPEC.solve(state).optimal_length == row["optimal_length"]
        replay = SPEC.replay(state, SPEC.answer_from_payload(row["solution"]))
        assert replay.feasible and replay.length == row["optimal_length"]
        assert len(row["trace_visual_cot_images"]) == row["optimal_length"] + 1  # the board, then one after each step
        assert all(row[f"trace_{kind}"] for kind in TRACE_KINDS)
    assert len({row["state"] for row in rows}) == 6
    shards = {path: path.read_bytes() for path in (out / "lights").iterdir()}
    capsys.readouterr()
    assert main(args) == 0
    assert "0 shards made, 0 already done; 0 catalog chunks made" in capsys.readouterr().out  # a complete part
    assert {path: path.read_bytes() for path in (out / "lights").iterdir()} == shards and len(shards) == 2
    assert main(["decontam", str(out), "--no-progress"]) == 0
    assert "no overlaps with the test set" in capsys.readouterr().out


def test_generate__a_band_asked_for_more_than_it_holds_is_refused_with_its_count(registered, keyed, tmp_path: Path,
                                                                                   capsys) -> None:
    """Band 1-1 holds the nine one-press boards (the toy has no symmetry: each is its own key), less the one its
    test set holds (its held-out keys, ``keyed``, ban it)."""
    args = ["generate", "--families", "lights", "--n", "10", "--lengths", "1-1", "--workers", "1", "--no-progress",
            "--out", str(tmp_path / "train")]  # fmt: skip
    assert main(args) == 2
    error = capsys.readouterr().err
    assert "lights band 1-1 holds fewer than --n 10 distinct rows: 8 in" in error and "banned as test states" in error
