"""verl: compute_score as verl's reward managers call it, the step tool and the interaction."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from types import SimpleNamespace
from typing import Any

import pytest

from tests.rewards.conftest import assert_board, row_spec
from vgau_data.errors import VgauError
from vgau_data.registry import FAMILIES
from vgau_data.rewards import REWARD_KINDS, RewardError
from vgau_data.rewards.verl import (
    INTERACTION_NAME,
    STEPS_FIELD,
    TOOL_NAME,
    TOOL_SCHEMA,
    PuzzleInteraction,
    PuzzleStepTool,
    compute_score,
    compute_score_batch,
    multi_turn_extra_info,
)

VERL = "verl_0.9.1.json"
KEYS = {"score", *REWARD_KINDS}
"""What ``compute_score`` returns for the ``progress`` kind; the others leave ``progress`` out (they never search)."""
PLAIN = KEYS - {"progress"}


def _extra(row: dict[str, Any]) -> dict[str, Any]:
    """The training export's ``extra_info`` as verl hands it over (it adds num_turns and rollout_reward_scores)."""
    return {"family": row["task"], "id": row["id"], "split": "train", "optimal_length": row["optimal_length"],
            "band": row["difficulty"], "protocol": "text_cot", "index": 0, "num_turns": None,
            "rollout_reward_scores": {}}  # fmt: skip


def test_recorded_calls__are_what_compute_score_takes(calls: Callable[[str], Any]) -> None:
    recorded = calls(VERL)
    naive = recorded["naive"]["calls"][0]
    assert set(naive) == {"data_source", "solution_str", "ground_truth", "extra_info", "kind"}
    assert set(recorded["batch"]["calls"][0]) == {"data_sources", "solution_strs", "ground_truths", "extra_infos", "kind"}
    # recorded when every kind was returned: the optimal kind now leaves progress out (tests/rewards/verl_loader.py
    # runs verl's managers live)
    for call, result in zip(recorded["naive"]["calls"], recorded["naive"]["results"]):
        kept = {key: value for key, value in result["reward_extra_info"].items() if key in PLAIN}
        assert compute_score(**call) == kept and set(result["reward_extra_info"]) == KEYS
    batch = [{key: value for key, value in result.items() if key in PLAIN} for result in recorded["batch"]["results"]]
    assert compute_score_batch(**recorded["batch"]["calls"][0]) == batch


def test_oracle_answer_of_every_row__scores_1_in_every_kind(reward_rows: list[dict[str, Any]]) -> None:
    for row in reward_rows:
        for extra in (_extra(row), None, {}):
            result = compute_score(data_source=f"vgau/{row['task']}", solution_str=row["answer"],
                                   ground_truth=row["state"], extra_info=extra)  # fmt: skip
            assert result == dict.fromkeys(PLAIN, 1.0), row["id"]
            result = compute_score(data_source=f"vgau/{row['task']}", solution_str=row["answer"],
                                   ground_truth=row["state"], extra_info=extra, kind="progress")  # fmt: skip
            assert result == dict.fromkeys(KEYS, 1.0), row["id"]
    batch = compute_score_batch(
        data_sources=[f"vgau/{row['task']}" for row in reward_rows], solution_strs=[row["answer"] for row in reward_rows],
        ground_truths=[row["state"] for row in reward_rows], extra_infos=[_extra(row) for row in reward_rows],
    )  # fmt: skip
    assert all(result["score"] == 1.0 for result in batch)


def test_empty_garbage_illegal_and_extra_moves__score_as_they_should(reward_rows: list[dict[str, Any]]) -> None:
    row = next(row for row in reward_rows if row["task"] == "sokoban" and row["optimal_length"] > 2)
    family = FAMILIES["sokoban"]
    oracle = family.answer_from_payload(row["solution"])
    cases = {
        "": dict.fromkeys(PLAIN, 0.0),
        "[]": dict.fromkeys(PLAIN, 0.0),
        "I think the answer is 7.": dict.fromkeys(PLAIN, 0.0),
        family.format_answer(oracle[:-1]): {"optimal": 0.0, "feasible": 0.0, "format": 1.0},
        family.format_answer((*oracle, oracle[-1])): {"optimal": 0.0, "format": 1.0,
                                                      "progress": row["optimal_length"] / (row["optimal_length"] + 1)},
    }
    for text, expected in cases.items():
        result = compute_score("vgau/sokoban", text, row["state"], _extra(row), kind="progress")
        assert {key: result[key] for key in expected} == expected, text


def test_reward_kwargs_kind__chooses_the_score(reward_rows: list[dict[str, Any]]) -> None:
    row = next(row for row in reward_rows if row["task"] == "maze" and row["optimal_length"] > 1)
    family = FAMILIES["maze"]
    half = family.format_answer(family.answer_from_payload(row["solution"])[:1])
    assert compute_score("vgau/maze", half, row["state"], _extra(row))["score"] == 0.0
    progress = compute_score("vgau/maze", half, row["state"], _extra(row), kind="progress")
    assert progress["score"] == pytest.approx(1 / row["optimal_length"]) == progress["progress"]
    with pytest.raises(RewardError, match="unknown reward kind"):
        compute_score("vgau/maze", half, row["state"], kind="accuracy")


@pytest.mark.parametrize("source", ["openai/gsm8k", "maze", "vgau/chess", None])
def test_a_foreign_data_source__is_refused_naming_ours(reward_rows: list[dict[str, Any]], source: object) -> None:
    with pytest.raises(RewardError, match=r"not implemented for data_source=.*vgau/maze, vgau/sokoban, vgau/path"):
        compute_score(source, "up", reward_rows[0]["state"])  # type: ignore[arg-type]


def test_image_score__takes_what_verl_omnis_visual_manager_passes(
    calls: Callable[[str], Any], reward_rows: list[dict[str, Any]]
) -> None:
    import numpy as np

    from vgau_data.rewards.verl import compute_image_score

    recorded = calls("verl_omni_visual.json")
    row = next(row for row in reward_rows if row["task"] == "maze")
    family = FAMILIES["maze"]
    state = family.from_json(row["state"])
    step = family.oracle_steps(state)[0]
    pixels = np.asarray(family.render(family.apply_step(state, step))).transpose(2, 0, 1)  # uint8 (C, H, W)
    values = {"data_source": "vgau/maze", "solution_image": pixels, "ground_truth": row["state"],
              "extra_info": {"purpose": "next_state", "step": family.format_step(step), "num_turns": None,
                             "rollout_reward_scores": {}}}  # fmt: skip
    result = compute_image_score(**{key: values[key] for key in recorded["keywords"]})
    assert result["score"] == result["next_state"] == result["move"] == 1.0
    assert set(result) == {"score", "next_state", "move", "aid", "cells", "grid"}


# ---------------------------------------------------------------------------- multi-turn


def _tool_call(tool: PuzzleStepTool, agent_data: Any, move: str) -> tuple[Any, float, dict]:
    """One call as verl 0.8/0.9's ``ToolAgentLoop._call_tool`` makes it: create, execute, release."""

    async def call() -> tuple[Any, float, dict]:
        kwargs = agent_data.tools_kwargs.get(tool.name, {})
        instance_id, _ = await tool.create(create_kwargs=kwargs.get("create_kwargs", {}))
        try:
            return await tool.execute(instance_id, {"move": move}, agent_data=agent_data)
        finally:
            await tool.release(instance_id)

    return asyncio.run(call())


def _steps(row: dict[str, Any]) -> list[str]:
    family = FAMILIES[row["task"]]
    return [family.format_step(step) for step in family.oracle_steps(family.from_json(row["state"]),
                                                                       family.answer_from_payload(row["solution"]))]


def test_step_tool__plays_every_rows_oracle_episode_and_compute_score_pays_it(
    calls: Callable[[str], Any], reward_rows: list[dict[str, Any]]
) -> None:
    recorded = calls(VERL)["tool"]
    assert recorded["schema"] == {**TOOL_SCHEMA, "function": {**TOOL_SCHEMA["function"], "strict": False}}
    tool = PuzzleStepTool({"type": "native"}, tool_schema=SimpleNamespace(function=SimpleNamespace(name=TOOL_NAME)))
    for row in reward_rows:
        extra = multi_turn_extra_info(f"vgau/{row['task']}", row["state"], _extra(row))
        agent_data = SimpleNamespace(tools_kwargs=extra["tools_kwargs"], extra_fields={})
        steps = _steps(row)
        for i, step in enumerate(steps):
            response, reward, _ = _tool_call(tool, agent_data, step)
            assert len(response.image) == 1 and reward == 0.0
            assert ("episode is over" in response.text) == (i == len(steps) - 1)
        assert agent_data.extra_fields[STEPS_FIELD] == steps
        merged = {**extra, **agent_data.extra_fields, "turn_scores": [], "num_turns": 2 * len(steps) + 1}
        assert compute_score(f"vgau/{row['task']}", "I am done.", row["state"], merged) == dict.fromkeys(PLAIN, 1.0)
    assert tool._rows == {}  # every call released its instance


def test_step_tool__an_unreadable_step_ends_the_episode_and_later_calls_change_nothing(
    reward_rows: list[dict[str, Any]]
) -> None:
    row = next(row for row in reward_rows if row["task"] == "parking" and row["optimal_length"] > 1)
    tool = PuzzleStepTool(tool_schema=SimpleNamespace(function=SimpleNamespace(name=TOOL_NAME)))
    extra = multi_turn_extra_info("vgau/parking", row["state"], _extra(row), protocol="oracle_aug_vcot")
    agent_data = SimpleNamespace(tools_kwargs=extra["tools_kwargs"], extra_fields={})
    first, *_ = _steps(row)
    assert "was applied" in _tool_call(tool, agent_data, first)[0].text
    assert "could not be read" in _tool_call(tool, agent_data, "move the red car")[0].text
    assert "no more steps" in _tool_call(tool, agent_data, first)[0].text
    merged = {**extra, **agent_data.extra_fields}
    result = compute_score("vgau/parking", "", row["state"], merged, kind="progress")
    assert result["optimal"] == 0.0 and result["progress"] == pytest.approx(1 / row["optimal_length"])


def test_step_tool__draws_a_styled_export_rows_boards_in_its_style(
    styled_export: Callable[[str], list[dict[str, Any]]]
) -> None:
    """``multi_turn_extra_info`` of a --render-variety export's row passes its style on: every board the
    tool returns (annotated for Aug-VCoT) is the row's styled board of the true state."""
    for row in styled_export("verl"):
        extra, truth = row["extra_info"], row["reward_model"]["ground_truth"]
        spec = row_spec(extra["family"], extra["render_style"])
        state = spec.from_json(truth)
        answer = spec.solve(state).answer
        for protocol in ("oracle_vcot", "oracle_aug_vcot"):
            info = multi_turn_extra_info(row["data_source"], truth, extra, protocol=protocol)
            assert info["tools_kwargs"][TOOL_NAME]["create_kwargs"].get("render_style") == extra["render_style"]
            tool = PuzzleStepTool(tool_schema=SimpleNamespace(function=SimpleNamespace(name=TOOL_NAME)))
            agent_data = SimpleNamespace(tools_kwargs=info["tools_kwargs"], extra_fields={})
            trajectory = spec.trajectory(state, answer)
            for step, shown in zip(spec.oracle_steps(state, answer), trajectory, strict=True):
                response, _, _ = _tool_call(tool, agent_data, spec.format_step(step))
                assert_board(spec, response.image[0], shown, annotated=protocol == "oracle_aug_vcot")
            merged = {**info, **agent_data.extra_fields}
            assert compute_score(row["data_source"], "", truth, merged)["score"] == 1.0


def test_multi_turn_extra_info__of_a_benchmark_row_is_unchanged_and_a_bad_style_names_the_row(
    reward_rows: list[dict[str, Any]]
) -> None:
    row = reward_rows[0]
    info = multi_turn_extra_info(f"vgau/{row['task']}", row["state"], _extra(row))
    assert set(info["tools_kwargs"][TOOL_NAME]["create_kwargs"]) == {"family", "state", "protocol", "optimal_length"}
    beside_styled = multi_turn_extra_info(f"vgau/{row['task']}", row["state"], {**_extra(row), "render_style": None})
    assert beside_styled["tools_kwargs"] == info["tools_kwargs"]  # a null style (a benchmark-style split's row)
    with pytest.raises(VgauError, match=f"^row '{row['id']}': not a render style"):
        multi_turn_extra_info(f"vgau/{row['task']}", row["state"], {**_extra(row), "render_style": "faded"})


def test_interaction__runs_as_verl_0_7_calls_it(calls: Callable[[str], Any], reward_rows: list[dict[str, Any]]) -> None:
    recorded = calls("verl_0.7.1_interaction.json")
    interaction = PuzzleInteraction({"name": INTERACTION_NAME, "kind": "progress"})
    kwargs = recorded["interaction_kwargs"]
    messages: list[dict[str, Any]] = []

    async def play() -> list[tuple[bool, str, float, dict]]:
        await interaction.start_interaction("request-0", **kwargs)
        out = []
        for turn in recorded["turns"]:
            messages.append({"role": "assistant", "content": turn["reply"]})
            out.append(await interaction.generate_response("request-0", messages, **kwargs))
        return out

    for turn, (done, text, score, extra) in zip(recorded["turns"], asyncio.run(play())):
        assert (done, text, score, extra) == (turn["done"], turn["response"], turn["turn_score"], turn["extra"])
    asyncio.run(interaction.finalize_interaction("request-0"))
    with pytest.raises(RewardError, match="no interaction"):
        asyncio.run(interaction.calculate_score("request-0"))
    # the reward worker only sees the turn scores: the last one is the episode's score
    row = reward_rows[0]
    extra = {**multi_turn_extra_info("vgau/maze", row["state"]), "turn_scores": [0.5, 1.0]}
    assert compute_score("vgau/maze", "Next, move one step up.", row["state"], extra)["score"] == 1.0
