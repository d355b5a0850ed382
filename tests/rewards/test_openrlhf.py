"""OpenRLHF: reward_func as its single-turn executor calls it, the prompt cut from queries, labels."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.external import require_tool
from tests.rewards.server.conftest import health
from tests.training.exporters.readers import INSTALL
from vgau_data.rewards import RewardError
from vgau_data.rewards.openrlhf import KIND_VARIABLE, read_label, response_text, reward_func, reward_payload
from vgau_data.rewards.server.launch import launched

OPENRLHF = "openrlhf_0.11.2.json"
TEMPLATE = "<|im_start|>user\n{prompt}<|im_end|>\n<|im_start|>assistant\n"
HERE = Path(__file__).parent


def test_recorded_calls__score_as_openrlhf_kept_them(calls: Callable[[str], Any]) -> None:
    recorded = calls(OPENRLHF)
    for call, kept in zip(recorded["file"]["received"], recorded["file"]["kept"]):
        assert call["kwargs"] == []  # OpenRLHF passes the three lists only
        result = reward_func(call["queries"], call["prompts"], call["labels"])
        assert result["rewards"].tolist() == kept["reward"] and result["scores"].tolist() == kept["scores"]
        assert {key: value.tolist() for key, value in result["extra_logs"].items()} == kept["extra_logs"]
    assert recorded["url"]["kept"] == recorded["file"]["kept"] and recorded["url"]["served"] == 2


def test_a_vlm_query_as_openrlhf_builds_it__is_cut_after_the_prompt(calls: Callable[[str], Any]) -> None:
    """Our TRL dataset written to Parquet, read by OpenRLHF's PromptDataset, tokenised by its VLM path."""
    vlm = calls(OPENRLHF)["vlm"]
    assert vlm["images"] == ["PngImageFile"] and vlm["prompt"].count("<|image_pad|>") == 1
    assert vlm["query"].count("<|image_pad|>") > 1 and not vlm["query"].startswith(vlm["prompt"])
    assert response_text(vlm["query"], vlm["prompt"]) == '<ANSWER_JSON>["left"]</ANSWER_JSON><|im_end|>'
    assert reward_payload([vlm["query"]], [vlm["prompt"]], [vlm["label"]])["rewards"] == [1.0]


def test_oracle_answer_of_every_row__pays_1_and_the_prompt_is_never_read_as_the_answer(
    reward_rows: list[dict[str, Any]]
) -> None:
    prompts, queries, labels = [], [], []
    for row in reward_rows:
        # the prompt shows the answer format, with an example answer that must not count
        prompt = TEMPLATE.format(prompt=f"Answer like this: {row['answer']}")
        prompts += [prompt, prompt]
        queries += [prompt + row["answer"] + "<|im_end|>", prompt + "I give up.<|im_end|>"]
        labels += [row["state"], row["state"]]
    result = reward_payload(queries, prompts, labels)
    assert result["rewards"] == [1.0, 0.0] * len(reward_rows) == result["scores"]
    assert result["extra_logs"]["vgau_parsed"] == [1.0, 0.0] * len(reward_rows)


def test_vlm_queries__cut_after_the_prompts_tail_where_image_tokens_expanded() -> None:
    prompt = TEMPLATE.format(prompt="<|vision_start|><|image_pad|><|vision_end|>Solve it.")
    query = prompt.replace("<|image_pad|>", "<|image_pad|>" * 64) + "the answer<|im_end|>"
    assert response_text(query, prompt) == "the answer<|im_end|>"
    assert response_text("no prompt here", "something else entirely, longer than thirty-two characters") == "no prompt here"
    assert response_text(None, prompt) == ""


def test_labels__state_reference_or_verl_reward_model(reward_rows: list[dict[str, Any]]) -> None:
    from vgau_data.metrics.scoring import make_reference

    row = reward_rows[0]
    for label in (row["state"], make_reference(row), {"style": "rule", "ground_truth": row["state"]},
                  json.dumps({"style": "rule", "ground_truth": row["state"]}), {"state": row["state"], "task": "maze"}):
        truth, _, _ = read_label(label)
        assert reward_payload([TEMPLATE.format(prompt="q") + row["answer"]], [TEMPLATE.format(prompt="q")], [label])[
            "rewards"] == [1.0], label  # fmt: skip
    with pytest.raises(RewardError, match="ground_truth"):
        read_label(42)
    with pytest.raises(RewardError, match="one each per sample"):
        reward_payload(["a"], [], [])


def test_the_kind__comes_from_the_environment(reward_rows: list[dict[str, Any]], monkeypatch: pytest.MonkeyPatch) -> None:
    row = next(row for row in reward_rows if row["task"] == "maze" and row["optimal_length"] > 1)
    from vgau_data.registry import FAMILIES

    family = FAMILIES["maze"]
    half = family.format_answer(family.answer_from_payload(row["solution"])[:1])
    monkeypatch.setenv(KIND_VARIABLE, "progress")
    assert reward_func([half], [""], [row["state"]])["rewards"].tolist() == pytest.approx([1 / row["optimal_length"]])
    monkeypatch.setenv(KIND_VARIABLE, "accuracy")
    with pytest.raises(RewardError, match="VGAU_REWARD_KIND"):
        reward_func([half], [""], [row["state"]])


def test_openrlhfs_own_http_client__gets_the_rewards_from_a_real_server(
    reward_rows: list[dict[str, Any]], tmp_path: Path
) -> None:
    """OpenRLHF 0.11.2's ``_fetch_rewards_via_http`` (aiohttp), in its venv, against ``vgau-data serve-reward`` on
    127.0.0.1, given the URL twice as ``--reward.remote_url`` may list servers: each gets its shard of the samples.
    Labels as the OpenRLHF export writes them and as bare states; each row's oracle answer and a refusal."""
    python = require_tool("VGAU_OPENRLHF_PYTHON", install=INSTALL["VGAU_OPENRLHF_PYTHON"])
    prompt = TEMPLATE.format(prompt="Solve it.")
    queries, labels = [], []
    for i, row in enumerate(reward_rows):
        label = row["state"] if i % 2 else json.dumps({"ground_truth": row["state"], "family": row["task"],
                                                       "optimal_length": row["optimal_length"]})  # fmt: skip
        queries += [prompt + row["answer"] + "<|im_end|>", prompt + "I give up.<|im_end|>"]
        labels += [label, label]
    (tmp_path / "payload.json").write_text(json.dumps({"query": queries, "prompts": [prompt] * len(queries),
                                                       "labels": labels}), encoding="utf-8")  # fmt: skip
    with launched("--workers", "1") as server:
        run = subprocess.run([python, str(HERE / "openrlhf_remote.py"), str(tmp_path / "out.json"),
                              str(tmp_path / "payload.json"), server.url, server.url],
                             capture_output=True, text=True, timeout=300, check=False)  # fmt: skip
        assert run.returncode == 0, run.stderr[-3000:]
        served = health(server)["served"]
    replies = json.loads((tmp_path / "out.json").read_text(encoding="utf-8"))["replies"]
    assert len(replies) == 2 and served == 2  # one POST a shard, each answered 200 the first time
    expected = [1.0, 0.0] * len(reward_rows)
    assert [value for reply in replies for value in reply["rewards"]] == expected
    assert [value for reply in replies for value in reply["scores"]] == expected
    for key in ("vgau_parsed", "vgau_feasible", "vgau_optimal"):
        assert [value for reply in replies for value in reply["extra_logs"][key]] == expected, key
    assert [value for reply in replies for value in reply["extra_logs"]["vgau_over_budget"]] == [0.0] * len(expected)
