"""The shipped lmms-eval tasks: files in step with their generator, hooks that reuse the protocols and scorer."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from vgau_data.cli import main
from vgau_data.integrations.lmms_eval import hooks, tasks_dir
from vgau_data.integrations.lmms_eval.task_files import task_files
from vgau_data.integrations.prompts import protocol_episode
from vgau_data.metrics.scoring import make_reference, score_answer
from vgau_data.registry import FAMILIES
from vgau_data.runners.instances import instance_from_row
from vgau_data.runners.messages import ImagePart
from vgau_data.runners.policies import make_policy
from vgau_data.integrations.lmms_eval.task_files import TASK_PROTOCOLS
from vgau_data.integrations.prompts import is_interactive


class _FunctionTag(yaml.SafeLoader):
    """Reads ``!function`` tags as plain strings (lmms-eval imports them; we only look)."""


_FunctionTag.add_constructor("!function", lambda loader, node: f"!function {loader.construct_scalar(node)}")


def load_task(name: str) -> dict[str, Any]:
    """A task file with its includes merged, as lmms-eval resolves them."""
    config = yaml.load((Path(tasks_dir()) / name).read_text(encoding="utf-8"), Loader=_FunctionTag)
    if "include" in config:
        return {**load_task(config.pop("include")), **config}
    return config


def test_lmms_eval_tasks__shipped_files_equal_the_generator() -> None:
    shipped = {path.name: path.read_text(encoding="utf-8") for path in Path(tasks_dir()).glob("*.yaml")}
    assert shipped == task_files(), "run: python -m vgau_data.integrations.lmms_eval.task_files"


def test_lmms_eval_tasks__one_task_per_family_and_protocol_and_a_group_per_protocol(
    capsys: pytest.CaptureFixture[str],
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
    for family, rows in decoded_rows.items():
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
            return "Step.\n" + oracle(Conversation(messages, f"{instance.id}/{protocol}/run0", "step"))

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
