"""The shipped lmms-eval tasks: files in step with their generator, hooks that reuse the protocols and scorer."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.families import SHIPPED
from tests.toy_family import unshipped_spec
from vgau_data import registry
from vgau_data.cli import main
from vgau_data.integrations.lmms_eval import hooks, tasks_dir
from vgau_data.integrations.lmms_eval.task_files import TASK_PROTOCOLS, task_files
from vgau_data.integrations.prompts import protocol_episode
from vgau_data.metrics.scoring import make_reference, score_answer
from vgau_data.protocols import is_interactive
from vgau_data.registry import FAMILIES
from vgau_data.runners.instances import instance_from_row
from vgau_data.runners.messages import ImagePart
from vgau_data.runners.policies import make_policy


class _FunctionTag(yaml.SafeLoader):
    """Reads ``!function`` tags as plain strings (lmms-eval imports them; we only look)."""


_FunctionTag.add_constructor("!function", lambda loader, node: f"!function {loader.construct_scalar(node)}")


def load_task(name: str) -> dict[str, Any]:
    """A task file with its includes merged, as lmms-eval resolves them."""
    config = yaml.load((Path(tasks_dir()) / name).read_text(encoding="utf-8"), Loader=_FunctionTag)
    if "include" in config:
        return {**load_task(config.pop("include")), **config}
    return config


@pytest.fixture
def shipped_only() -> Iterator[None]:
    """The registry as the package ships it: without the families tests register (the toy, any extra family),
    which come back afterwards in their order (``ENV_IDS`` and other tables follow the registry's order)."""
    registered = dict(registry._FAMILIES)
    for name in set(FAMILIES) - set(SHIPPED):
        del registry._FAMILIES[name]
    try:
        yield
    finally:
        registry._FAMILIES.clear()
        registry._FAMILIES.update(registered)


def test_lmms_eval_tasks__shipped_files_equal_the_generator(shipped_only: None) -> None:
    shipped = {path.name: path.read_text(encoding="utf-8") for path in Path(tasks_dir()).glob("*.yaml")}
    assert shipped == task_files(), "run: python -m vgau_data.integrations.lmms_eval.task_files"


def test_lmms_eval_tasks__a_family_without_shipped_tasks_is_a_one_line_error(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setitem(registry._FAMILIES, "unshipped", unshipped_spec())
    assert main(["lmms-eval-tasks"]) == 2
    error = capsys.readouterr().err
    assert re.search("have none for .*unshipped", error) and "python -m vgau_data.integrations.lmms_eval.task_files" in error


def test_lmms_eval_tasks__one_task_per_family_and_protocol_and_a_group_per_protocol(
    shipped_only: None, capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["lmms-eval-tasks"]) == 0
    assert capsys.readouterr().out.strip() == tasks_dir()
    for protocol in TASK_PROTOCOLS:
        group = load_task(f"vgau_{protocol}.yaml")
        assert group["task"] == [f"vgau_{family}_{protocol}" for family in FAMILIES]
        for family in FAMILIES:
            task = load_task(f"vgau_{family}_{protocol}.yaml")
            assert (task["task"], task["dataset_name"]) == (f"vgau_{family}_{protocol}", family)
            assert task["lmms_eval_specific_kwargs"]["default"]["protocol"] == protocol
            expected = "generate_until_agentic" if is_interactive(protocol) else "generate_until"
            assert task["output_type"] == expected
            for key in ("doc_to_visual", "doc_to_text", "process_results", "doc_to_target", "dataset_path"):
                name = task[key].removeprefix(f"!function {hooks.__name__}.")
                assert callable(getattr(hooks, name)) or isinstance(getattr(hooks, name), str)


def test_lmms_eval_hooks__dataset_path_follows_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("VGAU_PUZZLES", raising=False)
    assert hooks.DATASET_PATH == "vgau/puzzles"
    monkeypatch.setenv("VGAU_PUZZLES", "/data/build")
    assert hooks.DATASET_PATH == "/data/build"


@pytest.mark.parametrize("protocol", ["direct", "text_cot", "oracle_gta"])
def test_lmms_eval_hooks__single_turn_prompt_is_the_protocols_first_message(
    decoded_rows: dict[str, list[dict[str, Any]]], protocol: str
) -> None:
    kwargs = load_task(f"vgau_maze_{protocol}.yaml")["lmms_eval_specific_kwargs"]["default"]
    for rows in decoded_rows.values():
        row = rows[0]
        message = protocol_episode(row, protocol).request().messages[0]
        images = getattr(hooks, f"visual_{protocol}")(row)
        assert hooks.doc_to_text(row, kwargs) == message.text
        expected = [part.image for part in message.parts if isinstance(part, ImagePart)]
        assert [im.tobytes() for im in images] == [im.tobytes() for im in expected]
        assert len(images) == (2 if protocol == "oracle_gta" else 1)
        assert hooks.doc_to_target(row) == row["id"]


def test_lmms_eval_hooks__process_results_reports_our_verdict_per_difficulty(
    decoded_rows: dict[str, list[dict[str, Any]]],
) -> None:
    from vgau_data.metrics.baselines import oracle_output
    from vgau_data.metrics.references import rows_from_records

    row = decoded_rows["sokoban"][2]
    reference = rows_from_records([row])[0]
    metrics = hooks.process_results(row, [oracle_output(reference)])
    assert metrics["optimal_accuracy"] == metrics["feasible_accuracy"] == metrics["medium_optimal"] == 1.0
    assert metrics["easy_optimal"] is None and metrics["hard_feasible"] is None
    wrong = hooks.process_results(row, ["<ANSWER_JSON>[]</ANSWER_JSON>", oracle_output(reference)])
    assert wrong["optimal_accuracy"] == 0.5  # the mean over --repeats outputs
    assert hooks.mean_of_rows([metrics["medium_optimal"], None, 0.0]) == 0.5


def run_agentic(row: dict[str, Any], protocol: str, reply: Any, max_steps: int = 64) -> tuple[str, list[Any]]:
    """lmms-eval's ``generate_until_agentic`` loop (evaluator._run_generate_until_agentic), reduced."""
    kwargs = {"protocol": protocol}
    text = hooks.agentic_doc_to_text(row, kwargs)
    visuals = getattr(hooks, f"visual_{protocol}")(row)
    outputs: list[str] = []
    info = None
    sent = []
    for round_idx in range(max_steps):
        sent.append((list(visuals), text))
        outputs.append(reply(visuals, text))
        payload = hooks.agentic_doc_to_text(row, kwargs, previous_output=outputs, round_idx=round_idx + 1,
                                            previous_round_info=info)
        visuals_next, text_next, terminal, updated, info = payload
        outputs = list(updated)
        if terminal:
            break
        text = text_next
        visuals = visuals_next
    return outputs[-1], sent


@pytest.mark.parametrize("protocol", [p for p in TASK_PROTOCOLS if is_interactive(p)])
def test_lmms_eval_hooks__agentic_episode_with_the_oracle_reaches_the_goal(
    decoded_rows: dict[str, list[dict[str, Any]]], protocol: str
) -> None:
    for family, rows in decoded_rows.items():
        row = rows[2]
        instance = instance_from_row(row)
        oracle = make_policy("oracle", [instance])

        def reply(visuals: list[Any], text: str) -> str:
            from vgau_data.runners.messages import Conversation, Message, TextPart

            turns = text.count("Your reply:")
            messages = (Message("user", (TextPart(text),)),) + (Message("assistant", (TextPart("x"),)),) * turns
            return "Step.\n" + oracle(Conversation(messages, f"{instance.id}/{protocol}/run0", "step"))  # noqa: B023 - called within this iteration

        final, sent = run_agentic(row, protocol, reply)
        payload = hooks.read_episode(final)
        assert payload is not None and payload["end"] == "goal", family
        assert score_answer(payload["answer"], make_reference(row)).optimal
        assert hooks.agentic_process_results(row, [final])["optimal_accuracy"] == 1.0
        # each round shows every board so far, with markers in the transcript
        assert len(sent) == row["optimal_length"]
        assert len(sent[-1][0]) == len(sent[0][0]) + len(sent) - 1
        assert f"<image {len(sent[-1][0])}>" in sent[-1][1]


def test_lmms_eval_hooks__a_failed_request_ends_the_episode_as_a_backend_error(
    decoded_rows: dict[str, list[dict[str, Any]]],
) -> None:
    row = decoded_rows["maze"][0]
    final, _ = run_agentic(row, "oracle_vcot", lambda v, t: "[LMMS_EVAL_REQUEST_FAILED after 1 retries] 500")
    payload = hooks.read_episode(final)
    assert payload["end"] == "backend_error" and payload["error"].startswith("[LMMS_EVAL_REQUEST_FAILED")
    assert hooks.agentic_process_results(row, [final])["optimal_accuracy"] == 0.0


# ---------------------------------------------------------------- the real lmms-eval 0.7.3 (tests/external.py)


PROBE = Path(__file__).with_name("lmms_eval_probe.py")


def reasoned_replies(row: dict[str, Any]) -> list[str]:
    """Text-CoT-style replies that put paragraphs, blank lines and other separators before the answer."""
    from vgau_data.metrics.baselines import oracle_output
    from vgau_data.metrics.references import rows_from_records

    answer = oracle_output(rows_from_records([row])[0]).splitlines()[-1]
    return [
        f"1) The start and the goal.\n\nThe plan.\n\n2) {answer}",
        f"Step 1:\n\n\n- check\r\n\r\n- check again\n \n{answer}",
        f"<think>long\n\nthought</think>\n\nQ: done? A: yes.\n\n### Answer\n{answer}\n\n",
    ]


def cut_like_lmms_eval(reply: str, until: list[str]) -> str:
    """The stop handling of lmms-eval's local model classes (``for term in until: ans = ans.split(term)[0]``)."""
    for term in until:
        if term:
            reply = reply.split(term)[0]
    return reply


@pytest.fixture(scope="module")
def probed(lmms_eval_python: str, bridge_dataset: Path) -> dict[str, Any]:
    """Every shipped task as lmms-eval's own TaskManager loads it (see ``lmms_eval_probe``)."""
    import json
    import os
    import subprocess

    from vgau_data.integrations.lmms_eval.task_files import task_names

    names = [name for name in task_names() if name.count("_") >= 2 and name.split("_")[1] in SHIPPED]
    built = [name for name in names if name.endswith("_text_cot")]  # the rest: configs only (fast)
    config_only = [name for name in names if name not in built]
    env = {**os.environ, "VGAU_PUZZLES": str(bridge_dataset), "HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1"}
    done = subprocess.run([lmms_eval_python, str(PROBE), tasks_dir(), *config_only, "--", *built],
                          capture_output=True, text=True, env=env, timeout=600, check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    result = json.loads(done.stdout.splitlines()[-1])
    assert sorted(result) == sorted(names)
    return result


def test_lmms_eval_real__every_task_sets_stop_strings_no_reasoned_reply_reaches_before_its_answer(
    probed: dict[str, Any], decoded_rows: dict[str, list[dict[str, Any]]]
) -> None:
    for name, task in probed.items():
        family = name.split("_")[1]
        kwargs = task["config"]["generation_kwargs"]  # as lmms-eval logs it in results.json, its defaults applied
        assert "until" in kwargs and kwargs["until"] == [], name
        assert kwargs["max_new_tokens"] == 8192 and kwargs["temperature"] == 0.0, name
        for row in decoded_rows[family]:
            for reply in reasoned_replies(row):
                assert score_answer(cut_like_lmms_eval(reply, kwargs["until"]), make_reference(row)).optimal, (name, reply)
    # the check can fail: lmms-eval's default stop string cuts the same replies before their answers
    row = decoded_rows["maze"][0]
    assert not any(score_answer(cut_like_lmms_eval(r, ["\n\n"]), make_reference(row)).parsed for r in reasoned_replies(row))


def test_lmms_eval_real__a_local_model_class_keeps_a_multi_paragraph_reply_whole(probed: dict[str, Any]) -> None:
    single_turn = {name: task for name, task in probed.items() if "kept" in task}
    assert len(single_turn) == len(SHIPPED)
    for name, task in single_turn.items():
        assert "\n\n" in task["reply"].split("2)")[0]
        assert task["kept"] == task["reply"], name  # glm4v.generate_until under the task's own stop strings
        assert task["scores"]["kept"]["optimal_accuracy"] == 1.0, name
        assert task["cut"] == task["reply"].split("\n\n")[0], name  # ... and under lmms-eval's default ["\n\n"]
        assert task["scores"]["cut"]["optimal_accuracy"] == 0.0 and task["scores"]["cut"]["parse_rate"] == 0.0


def test_lmms_eval_real__every_repeat_reaches_process_results_and_the_log(probed: dict[str, Any]) -> None:
    for name, task in probed.items():
        assert task["config"]["metadata"]["version"] == 2
        assert [f["name"] for f in task["config"]["filter_list"]] == ["none"], name
        if "repeats" in task:
            from tests.integrations.lmms_eval_probe import WRONG

            assert task["repeats"]["filtered"] == {"none": [task["reply"], WRONG]}, name
            assert task["repeats"]["scores"]["none"]["optimal_accuracy"] == 0.5, name  # the mean of the two


def test_lmms_eval_real__repeats_become_runs_and_settings_reach_the_submission(
    lmms_eval_python: str, bridge_dataset: Path, decoded_rows: dict[str, list[dict[str, Any]]], fake_server: Any,
    tmp_path: Path,
) -> None:
    """``python -m lmms_eval -n 2 --limit 2`` against a loopback server, then convert and score."""
    import json
    import os
    import subprocess

    from tests.integrations.conftest import OracleByBoard
    from vgau_data.integrations.convert import convert
    from vgau_data.metrics.references import load_references
    from vgau_data.metrics.results import protocol_results, score_submission

    server = fake_server(OracleByBoard(decoded_rows))
    env = {**os.environ, "VGAU_PUZZLES": str(bridge_dataset), "HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1",
           "OPENAI_API_KEY": "EMPTY"}
    command = [lmms_eval_python, "-m", "lmms_eval", "--model", "openai",
               "--model_args", f"model_version=served,base_url={server.url},max_retries=1",
               "--tasks", "vgau_text_cot,vgau_maze_oracle_vcot", "--include_path", tasks_dir(),
               "--output_path", str(tmp_path / "logs"), "--log_samples", "-n", "2", "--limit", "2"]
    done = subprocess.run(command, capture_output=True, text=True, env=env, cwd=tmp_path, timeout=600, check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    (results_path,) = (tmp_path / "logs" / "served").glob("*_results.json")
    lmms = json.loads(results_path.read_text(encoding="utf-8"))
    samples = sorted((tmp_path / "logs" / "served").glob("*_samples_vgau_*.jsonl"))
    assert len(samples) == len(SHIPPED) + 1
    assert all(len(json.loads(line)["filtered_resps"]) == 2 for p in samples for line in p.read_text().splitlines())

    references = load_references(bridge_dataset)
    submission, converted = convert("lmms-eval", samples, references, model="served")
    assert not converted.failed and not converted.warnings
    assert {(r.protocol, r.run) for r in submission.records} == {(p, k) for p in ("text_cot", "oracle_vcot") for k in (0, 1)}
    settings = submission.header.settings
    assert list(settings["lmms_eval"]) == [results_path.name]
    assert settings["lmms_eval"][results_path.name]["cli_repeats"] == 2
    assert settings["lmms_eval"][results_path.name]["limit"] == 2
    assert settings["lmms_eval"][results_path.name]["lmms_eval_package"] == "0.7.3"  # not its "unknown@unknown"
    task = settings["tasks"]["vgau_maze_text_cot"]
    assert (task["protocol"], task["repeats"], task["task_version"]) == ("text_cot", 2, 2)
    assert task["generation_kwargs"]["until"] == [] and task["generation_kwargs"]["max_new_tokens"] == 8192
    assert settings["tasks"]["vgau_maze_oracle_vcot"]["generation_kwargs"]["max_agentic_steps"] == 64
    assert len({t["config_sha256"] for t in settings["tasks"].values()}) == len(settings["tasks"])

    full = protocol_results(score_submission(submission, references))[2]
    subset = protocol_results(score_submission(submission, references, subset=True))[2]
    text_cot = full["text_cot"]
    assert text_cot["runs"] == 2 and [run["optimal_accuracy"] for run in text_cot["per_run"]][1] == 0.0
    assert text_cot["coverage"] == {"answered": [12, 12], "rows": len(references.rows), "complete": False}
    # lmms-eval scores --limit rows only: `score --subset` gives its number, the default counts every row
    assert subset["text_cot"]["optimal_accuracy"] == pytest.approx(lmms["results"]["vgau_text_cot"]["optimal_accuracy,none"])
    assert subset["text_cot"]["optimal_accuracy"] == 0.5 and text_cot["optimal_accuracy"] == pytest.approx(6 / len(references.rows))
    assert subset["oracle_vcot"]["optimal_accuracy"] == 1.0


def test_lmms_eval_real__with_failed_requests_score_subset_equals_lmms_evals_number(
    lmms_eval_python: str, bridge_dataset: Path, decoded_rows: dict[str, list[dict[str, Any]]], fake_server: Any,
    tmp_path: Path,
) -> None:
    """``--limit 2`` against a server that fails (HTTP 400, no client retry) every request about each family's first
    row: lmms-eval counts those rows 0, so ``score --subset`` must keep them (dropping them read 100 for 50)."""
    import base64
    import io
    import json
    import os
    import subprocess

    from PIL import Image

    from tests.integrations.conftest import OracleByBoard, pixel_key
    from vgau_data.cli import main as cli

    oracle = OracleByBoard(decoded_rows)
    failing = {rows[0]["id"] for rows in decoded_rows.values()}

    def status_for(body: dict[str, Any]) -> int:
        parts = [p for m in body["messages"] if isinstance(m["content"], list) for p in m["content"]]
        url = next(p["image_url"]["url"] for p in parts if p.get("type") == "image_url")
        board = pixel_key(Image.open(io.BytesIO(base64.b64decode(url.split(",", 1)[1]))))
        return 400 if oracle.by_board[board] in failing else 200

    server = fake_server(oracle, status_for=status_for)
    env = {**os.environ, "VGAU_PUZZLES": str(bridge_dataset), "HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1",
           "OPENAI_API_KEY": "EMPTY"}
    command = [lmms_eval_python, "-m", "lmms_eval", "--model", "openai",
               "--model_args", f"model_version=served,base_url={server.url},max_retries=1,retry_backoff_s=0",
               "--tasks", "vgau_direct", "--include_path", tasks_dir(),
               "--output_path", str(tmp_path / "logs"), "--log_samples", "--limit", "2"]
    done = subprocess.run(command, capture_output=True, text=True, env=env, cwd=tmp_path, timeout=600, check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    lmms = json.loads(next((tmp_path / "logs" / "served").glob("*_results.json")).read_text(encoding="utf-8"))
    samples = sorted((tmp_path / "logs" / "served").glob("*_samples_vgau_*.jsonl"))
    logged = [json.loads(line) for p in samples for line in p.read_text(encoding="utf-8").splitlines()]
    assert sum(s["filtered_resps"].startswith(hooks.REQUEST_FAILED) for s in logged) == len(SHIPPED)
    out, scored = tmp_path / "sub.jsonl", tmp_path / "scored.json"
    assert cli(["convert", "--from", "lmms-eval", *map(str, samples), "--dataset", str(bridge_dataset), "--model",
                "served", "--out", str(out)]) == 0
    assert cli(["score", str(out), "--dataset", str(bridge_dataset), "--subset", "--out", str(scored)]) == 0
    ours = json.loads(scored.read_text(encoding="utf-8"))["served"]["direct"]
    assert lmms["results"]["vgau_direct"]["optimal_accuracy,none"] == pytest.approx(0.5)
    assert ours["optimal_accuracy"] == pytest.approx(lmms["results"]["vgau_direct"]["optimal_accuracy,none"])
    assert ours["coverage"]["answered"] == [len(SHIPPED)]  # the failed requests are asked, never answered


def test_lmms_eval_hooks__vgau_reader_picks_the_reader_and_episodes_carry_it(
    decoded_rows: dict[str, list[dict[str, Any]]], monkeypatch: pytest.MonkeyPatch
) -> None:
    row = decoded_rows["maze"][2]
    instance = instance_from_row(row)
    untagged = str(list(instance.family.solve(instance.initial_state()).answer)).replace("'", '"')
    assert hooks.process_results(row, [untagged])["optimal_accuracy"] == 0.0  # ours needs the tags
    monkeypatch.setenv("VGAU_READER", "authors")
    assert hooks.process_results(row, [untagged])["optimal_accuracy"] == 1.0  # the authors' code reads a bare list
    final, sent = run_agentic(row, "oracle_vcot", lambda visuals, text: "Next, move one step up. Or left.")
    payload = hooks.read_episode(final)
    assert payload is not None and payload["reader"] == "authors" and payload["end"] in ("illegal", "off_optimum")
    monkeypatch.setenv("VGAU_READER", "nobody")
    with pytest.raises(ValueError, match="unknown reader 'nobody'"):
        hooks.process_results(row, [untagged])
