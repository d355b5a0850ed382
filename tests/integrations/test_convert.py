"""lmms-eval runs -> submissions: repeats as runs, the run's settings in the header, on files lmms-eval 0.7.3 wrote.

``tests/data/harness_outputs/lmms_eval_0.7.3_tasks_v2`` (see its README): ``full`` (all five
protocols, ``-n 2``, some requests failing), ``limit`` (``--limit 2``), ``v1_repeats``
(``-n 2`` with the version-1 task files, which logged one response per row) and
``qwen2_vl_v1`` / ``qwen2_vl_v2`` (lmms-eval's local ``qwen2_vl`` class on a tiny model
that always gives a multi-paragraph reply, under the version-1 and version-2 tasks).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tests.integrations.conftest import HARNESS_V2
from vgau_data.cli import main
from vgau_data.errors import SubmissionError
from vgau_data.integrations.convert import convert, lmms_eval_settings, lmms_task
from vgau_data.metrics.references import ReferenceSet, load_references
from vgau_data.metrics.results import protocol_results, score_submission
from vgau_data.metrics.scoring import score_answer


def run_folder(name: str) -> Path:
    (folder,) = (HARNESS_V2 / name).iterdir()
    return folder


def samples_of(folder: Path) -> list[Path]:
    return sorted(folder.glob("*_samples_vgau_*.jsonl"))


def lines_of(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


@pytest.fixture(scope="module")
def references(harness_v2_dataset: Path) -> ReferenceSet:
    return load_references(harness_v2_dataset)


def test_lmms_eval_repeats__become_runs_whose_verdicts_equal_lmms_evals_per_row_means(references: ReferenceSet) -> None:
    folder = run_folder("full")
    files = samples_of(folder)
    assert len(files) == 30
    submission, converted = convert("lmms-eval", files, references, model="test-model")
    assert not converted.warnings
    assert {r.run for r in submission.records} == {0, 1}
    failed = {line.split(" ")[0] for line in converted.failed}
    assert {"path-hard-0000", "parking-hard-0000", "klotski-hard-0000", "sokoban-hard-0000"} <= failed
    outputs = {r.key: r.output for r in submission.records}
    by_id = references.by_id
    compared = 0
    for path in files:
        _, _, protocol = lmms_task(path)
        for sample in lines_of(path):
            runs = [outputs.get((sample["target"], protocol, k)) for k in (0, 1)]
            optimal = [score_answer(o, by_id[sample["target"]].reference).optimal if o is not None else False for o in runs]
            assert sum(optimal) / 2 == sample["optimal_accuracy"], (path.name, sample["target"])
            compared += 1
    assert compared == 30 * 4
    lmms = json.loads(next(folder.glob("*_results.json")).read_text(encoding="utf-8"))["results"]
    ours = protocol_results(score_submission(submission, references))[2]
    for protocol, result in ours.items():
        assert result["runs"] == 2 and result["coverage"]["complete"] is False  # the failed requests
        assert result["optimal_accuracy"] == pytest.approx(lmms[f"vgau_{protocol}"]["optimal_accuracy,none"])
    assert ours["text_cot"]["per_run"][0]["optimal_accuracy"] > ours["text_cot"]["per_run"][1]["optimal_accuracy"]


def test_lmms_eval_failed_requests__are_failed_records_so_the_subset_is_lmms_evals_number(references: ReferenceSet) -> None:
    """A row whose every request failed still counts in lmms-eval's mean (as 0): ``--subset`` keeps it."""
    folder = run_folder("full")
    submission, converted = convert("lmms-eval", samples_of(folder), references, model="test-model")
    failed = [r for r in submission.records if r.failed]
    assert len(failed) == len(converted.failed) and all(r.meta["error"].startswith("[LMMS_EVAL_REQUEST_FAILED")
                                                        or "backend_error" not in r.meta["error"] for r in failed)
    keys = {(r.id, r.protocol) for r in failed}
    never_answered = {k for k in keys if all(r.failed for r in submission.records if (r.id, r.protocol) == k)}
    assert never_answered  # rows whose both repeats failed: dropping them would raise the subset's score
    lmms = json.loads(next(folder.glob("*_results.json")).read_text(encoding="utf-8"))["results"]
    subset = protocol_results(score_submission(submission, references, subset=True))[2]
    for protocol, result in subset.items():
        assert result["optimal_accuracy"] == pytest.approx(lmms[f"vgau_{protocol}"]["optimal_accuracy,none"]), protocol
        assert result["feasible_accuracy"] == pytest.approx(lmms[f"vgau_{protocol}"]["feasible_accuracy,none"]), protocol
        answered = sum(result["coverage"]["answered"])
        assert answered == 2 * len(references.rows) - sum(1 for r in failed if r.protocol == protocol)


def test_lmms_eval_settings__every_recorded_setting_reaches_the_header(references: ReferenceSet) -> None:
    folder = run_folder("full")
    results_path = next(folder.glob("*_results.json"))
    submission, _ = convert("lmms-eval", samples_of(folder), references, model="test-model")
    settings = submission.header.settings
    run = settings["lmms_eval"][results_path.name]
    assert (run["model"], run["cli_repeats"], run["limit"], run["model_name"]) == ("openai", 2, None, "test-model")
    assert "lmms_eval_version" in run and "date" in run and run["model_args"].startswith("model_version=test-model")
    assert len(settings["tasks"]) == 30
    for task, recorded in settings["tasks"].items():
        assert recorded["protocol"] == lmms_task(f"x_samples_{task}.jsonl")[2]
        assert recorded["repeats"] == 2 and recorded["task_version"] == 2
        assert recorded["generation_kwargs"]["until"] == [] and recorded["generation_kwargs"]["temperature"] == 0.0
    hashes = {t: s["config_sha256"] for t, s in settings["tasks"].items()}
    assert len(set(hashes.values())) == 30  # one config per task
    again = lmms_eval_settings(results_path)[1]
    assert {t: s["config_sha256"] for t, s in again.items()} == hashes  # function addresses do not enter the hash


def test_lmms_eval_limit__coverage_in_full_scoring_and_lmms_evals_number_as_a_subset(
    references: ReferenceSet, harness_v2_dataset: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = run_folder("limit")
    out = tmp_path / "limit.jsonl"
    files = [str(p) for p in samples_of(folder)]
    assert main(["convert", "--from", "lmms-eval", *files, "--dataset", str(harness_v2_dataset), "--model", "m",
                 "--out", str(out)]) == 0
    lmms = json.loads(next(folder.glob("*_results.json")).read_text(encoding="utf-8"))["results"]
    scored = {}
    for flag in ([], ["--subset"]):
        result = tmp_path / f"r{len(flag)}.json"
        assert main(["score", str(out), "--dataset", str(harness_v2_dataset), "--out", str(result), *flag]) == 0
        scored[bool(flag)] = protocol_results(json.loads(result.read_text()))[2]
    printed = capsys.readouterr().out
    for protocol in ("direct", "text_cot"):
        lmms_number = lmms[f"vgau_{protocol}"]["optimal_accuracy,none"]
        assert scored[True][protocol]["optimal_accuracy"] == pytest.approx(lmms_number)
        assert scored[False][protocol]["optimal_accuracy"] == pytest.approx(lmms_number * 12 / 24)
        assert scored[False][protocol]["coverage"] == {"answered": [12], "rows": 24, "complete": False}
    assert printed.count("12/24") == 8 and "not comparable" in printed


def test_lmms_eval_old_tasks__repeats_lost_by_lmms_evals_default_filter_are_named(references: ReferenceSet) -> None:
    folder = run_folder("v1_repeats")
    submission, converted = convert("lmms-eval", samples_of(folder), references, model="m")
    assert {r.run for r in submission.records} == {0}
    assert len(converted.warnings) == 12  # one per samples file
    assert all("says repeats=2 but 2 sample(s) carry fewer responses" in w for w in converted.warnings)
    recorded = submission.header.settings["tasks"]["vgau_maze_text_cot"]
    assert recorded["generation_kwargs"]["until"] == ["\n\n"] and recorded["task_version"] == 1


def test_lmms_eval_local_model__the_reply_the_old_tasks_cut_is_whole_under_the_new_ones(
    references: ReferenceSet,
) -> None:
    verdicts = {}
    for version in ("v1", "v2"):
        folder = run_folder(f"qwen2_vl_{version}")
        submission, _ = convert("lmms-eval", samples_of(folder), references, model="tiny")
        (record,) = submission.records
        verdicts[version] = score_answer(record.output, references.by_id[record.id].reference)
        until = submission.header.settings["tasks"]["vgau_maze_text_cot"]["generation_kwargs"]["until"]
        assert until == (["\n\n"] if version == "v1" else [])
    assert verdicts["v1"].error == "no_answer" and verdicts["v2"].optimal


def test_lmms_eval_settings__missing_results_file_warns_and_secrets_are_redacted(
    references: ReferenceSet, tmp_path: Path
) -> None:
    source = run_folder("limit")
    sample = next(iter(samples_of(source)))
    alone = tmp_path / "alone"
    alone.mkdir()
    shutil.copyfile(sample, alone / sample.name)
    _, converted = convert("lmms-eval", [alone / sample.name], references, model="m")
    assert len(converted.warnings) == 1 and "no lmms-eval results.json beside" in converted.warnings[0]
    results = json.loads(next(source.glob("*_results.json")).read_text(encoding="utf-8"))
    results["config"]["model_args"] = "model_version=m,api_key=sk-secret,base_url=http://u:pw-9@h/v1?key=gw-secret#f"
    (alone / next(source.glob("*_results.json")).name).write_text(json.dumps(results), encoding="utf-8")
    submission, converted = convert("lmms-eval", [alone / sample.name], references, model="m")
    assert not converted.warnings
    header = json.dumps(submission.header.to_json_obj())
    assert not [secret for secret in ("sk-secret", "gw-secret", "pw-9") if secret in header]
    (run,) = submission.header.settings["lmms_eval"].values()
    assert run["model_args"] == "model_version=m,api_key=<redacted>,base_url=http://h/v1"


@pytest.mark.parametrize(("content", "message"), [(b"[1]", "expected a JSON object"), (b"{", "not valid JSON"),
                                                   (b"\xff", "not UTF-8"), (b"[" * 3000 + b"]" * 3000, "nested more")])
def test_lmms_eval_settings__a_hostile_results_file_is_a_one_line_error(
    harness_v2_dataset: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], content: bytes, message: str
) -> None:
    sample = samples_of(run_folder("limit"))[0]
    shutil.copyfile(sample, tmp_path / sample.name)
    (tmp_path / sample.name.replace("_samples_vgau_klotski_direct.jsonl", "_results.json")).write_bytes(content)
    code = main(["convert", "--from", "lmms-eval", str(tmp_path / sample.name), "--dataset", str(harness_v2_dataset),
                 "--model", "m", "--out", str(tmp_path / "o.jsonl")])
    err = capsys.readouterr().err
    assert code == 2 and message in err and len(err.strip().splitlines()) == 1
    with pytest.raises(SubmissionError):
        lmms_eval_settings(next(tmp_path.glob("*_results.json")))
