"""TRL: reward functions called as GRPOTrainer calls them, the dataset, the environment, and real GRPO runs."""

from __future__ import annotations

import functools
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.rewards.conftest import assert_board, row_spec
from vgau_data.errors import VgauError
from vgau_data.puzzles import prompts
from vgau_data.registry import FAMILIES
from vgau_data.rewards import RewardError
from vgau_data.rewards.trl import (
    REWARD_FUNCTIONS,
    TOOL_NOTE,
    PuzzleEnvironment,
    conversational_dataset,
    instance_from_columns,
    optimal_reward,
)

TRL_CALLS = "trl_1.16.0.json"


def _trl_call(calls: Callable[[str], Any], fixture: str, rows: list[dict[str, Any]], texts: list[Any],
              conversational: bool = True) -> dict[str, Any]:  # fmt: skip
    """The keywords TRL passes (from the recorded call), filled with ``rows`` and completions of ``texts``."""
    recorded = calls(TRL_CALLS)[fixture]
    kwargs: dict[str, Any] = {}
    for key in recorded["keywords"]:
        if key == "prompts":
            kwargs[key] = [[{"role": "user", "content": "..."}]] * len(rows)
        elif key == "completions":
            kwargs[key] = [[{"role": "assistant", "content": t}] if conversational else t for t in texts]
        elif key == "completion_ids":
            kwargs[key] = [[1, 2]] * len(rows)
        elif key in ("trainer_state", "log_extra", "environments", "images"):
            kwargs[key] = [None] * len(rows) if key in ("environments", "images") else None
        elif key == "log_metric":
            kwargs[key] = lambda name, value: kwargs.setdefault("_logged", {}).__setitem__(name, value)
        else:
            kwargs[key] = [row.get(key) for row in rows]
    return kwargs


def test_recorded_call__is_the_convention_the_rewards_rely_on(calls: Callable[[str], Any]) -> None:
    recorded = calls(TRL_CALLS)["dataset_reward_call"]
    assert {"prompts", "completions", "completion_ids", "state", "task", "optimal_length", "log_metric"} <= set(
        recorded["keywords"]
    )
    assert recorded["completions"][0][0]["role"] == "assistant"  # conversational completions: message lists


@pytest.mark.parametrize("conversational", [True, False])
def test_oracle_answers_of_every_row__score_1_through_every_trl_reward(
    calls: Callable[[str], Any], reward_rows: list[dict[str, Any]], conversational: bool
) -> None:
    kwargs = _trl_call(calls, "dataset_reward_call", reward_rows, [row["answer"] for row in reward_rows], conversational)
    for name, function in REWARD_FUNCTIONS.items():
        assert function.__name__ == f"vgau_{name}"
        assert function(**kwargs) == [1.0] * len(reward_rows), name
    assert kwargs["_logged"] == {"vgau/parsed": 1.0, "vgau/feasible": 1.0, "vgau/optimal": 1.0}


def test_rows_of_other_tasks__get_none_and_a_family_column_works_too(
    calls: Callable[[str], Any], reward_rows: list[dict[str, Any]]
) -> None:
    maze = next(row for row in reward_rows if row["task"] == "maze")
    training_row = {"family": "maze", "state": maze["state"], "optimal_length": maze["optimal_length"]}
    rows = [
        {**maze, "task": "gsm8k", "state": "42"},  # another task in the same run
        {"task": None, "family": "maze", "state": maze["state"], "optimal_length": None},  # a training row
        {**maze, "state": None},
        maze,
    ]
    kwargs = _trl_call(calls, "dataset_reward_call", rows, [maze["answer"], maze["answer"], "x", "garbage"])
    kwargs["family"] = [row.get("family") for row in rows]
    assert optimal_reward(**kwargs) == [None, 1.0, None, 0.0]
    assert training_row["family"] == "maze"


def test_a_dataset_without_a_state_column__is_refused_with_what_to_add() -> None:
    with pytest.raises(RewardError, match="'state' column"):
        optimal_reward(prompts=[[]], completions=[[{"role": "assistant", "content": "up"}]], completion_ids=[[1]])


def test_completions_with_tool_turns__read_the_last_assistant_text(calls: Callable[[str], Any]) -> None:
    from vgau_data.rewards.trl import completion_text

    recorded = calls(TRL_CALLS)["env_reward_call"]["completions"][0]
    assert [message["role"] for message in recorded] == ["assistant", "tool"]
    assert completion_text(recorded) == ""
    assert completion_text([{"role": "assistant", "content": "a"}, {"role": "tool", "content": "b"}]) == "a"


# ---------------------------------------------------------------------------- the dataset


def test_conversational_dataset__holds_each_protocols_prompt_with_image_placeholders(maze_dataset: Path) -> None:
    from vgau_data.runners.instances import load_instances

    (first, _) = load_instances(str(maze_dataset))
    maze = FAMILIES["maze"]
    for protocol, images in (("text_cot", 1), ("direct", 1), ("oracle_gta", 2)):
        rows = conversational_dataset(str(maze_dataset), protocol=protocol)
        assert set(rows.column_names) == {"prompt", "images", "id", "task", "difficulty", "optimal_length", "state",
                                          "reference"}  # fmt: skip
        assert len(rows) == 2 and rows[0]["id"] == first.id and rows[0]["state"] == first.state
        (message,) = rows[0]["prompt"]
        parts = message["content"]
        assert message["role"] == "user" and [part["type"] for part in parts] == ["image"] * images + ["text"]
        assert len(rows[0]["images"]) == images and rows[0]["images"][0].size == maze.geometry.size
        expected = {"text_cot": prompts.text_cot, "direct": prompts.direct, "oracle_gta": prompts.with_aid}[protocol]
        assert parts[-1]["text"] == expected(maze, first.initial_state())
    interactive = conversational_dataset(str(maze_dataset), protocol="oracle_vcot")
    assert "images" not in interactive.column_names
    assert interactive[0]["prompt"][0]["content"] == [{"type": "text", "text": TOOL_NOTE}]


def test_conversational_dataset__from_rows_with_state_and_family_columns(reward_rows: list[dict[str, Any]]) -> None:
    rows = [{"family": row["task"], "state": row["state"], "id": row["id"]} for row in reward_rows[:3]]
    built = conversational_dataset(rows)
    assert built["task"] == [row["task"] for row in reward_rows[:3]]
    assert built["optimal_length"] == [row["optimal_length"] for row in reward_rows[:3]]  # solved
    with pytest.raises(RewardError, match="protocol must be one of"):
        conversational_dataset(rows, protocol="self_vcot")
    with pytest.raises(RewardError, match="names no family"):
        instance_from_columns({"state": reward_rows[0]["state"]})


# ---------------------------------------------------------------------------- the environment


def _oracle_steps(row: dict[str, Any]) -> list[str]:
    family = FAMILIES[row["task"]]
    state = family.from_json(row["state"])
    return [family.format_step(step) for step in family.oracle_steps(state, family.answer_from_payload(row["solution"]))]


def test_environment__plays_the_oracle_episode_of_every_row_to_reward_1(reward_rows: list[dict[str, Any]]) -> None:
    for protocol in ("oracle_vcot", "oracle_aug_vcot"):
        env = PuzzleEnvironment(protocol=protocol)
        for row in reward_rows:
            first = env.reset(**row)
            images = [part for part in first if part["type"] == "image"]
            assert len(images) == (2 if protocol == "oracle_aug_vcot" else 1)
            steps = _oracle_steps(row)
            for i, step in enumerate(steps):
                shown = env.step(step)
                assert any(part["type"] == "image" for part in shown)
                assert ("over" in shown[0]["text"]) == (i == len(steps) - 1), (row["id"], i, shown[0]["text"])
            assert env.get_reward() == 1.0, row["id"]
            assert "no more steps" in env.step(steps[0])[0]["text"]  # after the end nothing changes
            assert env.get_reward() == 1.0


def test_environment__an_illegal_or_unreadable_step_ends_the_episode_unsolved(reward_rows: list[dict[str, Any]]) -> None:
    row = next(row for row in reward_rows if row["task"] == "maze" and row["optimal_length"] > 1)
    env = PuzzleEnvironment(kind="progress")
    env.reset(**row)
    assert "could not be read" in env.step("I am not sure")[0]["text"]
    assert env.get_reward() == 0.0 and "no more steps" in env.step(_oracle_steps(row)[0])[0]["text"]
    env.reset(**row)
    env.step(_oracle_steps(row)[0])
    assert env.get_reward() == pytest.approx(1 / row["optimal_length"])  # progress: one step of the optimum
    with pytest.raises(RewardError, match="plays oracle_vcot or oracle_aug_vcot"):
        PuzzleEnvironment(protocol="text_cot")


def _episode_images(env: PuzzleEnvironment, row: dict[str, Any], steps: list[str]) -> list[Any]:
    """Every image the environment returns for ``row``: the first board(s), then one board per step."""
    images = [part["image"] for part in env.reset(**row) if part["type"] == "image"]
    for step in steps:
        shown = [part["image"] for part in env.step(step) if part["type"] == "image"]
        assert len(shown) == 1
        images += shown
    return images


def test_environment__draws_every_board_of_a_styled_export_row_in_its_style(
    styled_export: Callable[[str], list[dict[str, Any]]]
) -> None:
    """A TRL export of --render-variety / validation / validation_ood rows: each later board (and
    Aug-VCoT's annotation) is the row's styled board of the true state, at the styled size."""
    rows = styled_export("trl")
    styles = {row["render_style"] for row in rows}
    assert None in styles and len(styles) > 2  # benchmark-style rows beside styled ones
    resized = 0
    for row in rows:
        spec = row_spec(row["family"], row["render_style"])
        resized += spec.geometry.size != FAMILIES[row["family"]].geometry.size
        state = spec.from_json(row["state"])
        answer = spec.solve(state).answer
        trajectory = spec.trajectory(state, answer)
        steps = [spec.format_step(step) for step in spec.oracle_steps(state, answer)]
        for protocol, annotated in (("oracle_vcot", False), ("oracle_aug_vcot", True)):
            env = PuzzleEnvironment(protocol=protocol)
            first, *later = _episode_images(env, row, steps)
            assert_board(spec, first, state)
            if annotated:
                aid, *later = later
                assert_board(spec, aid, state, annotated=True)
            assert len(later) == len(trajectory)
            for image, shown in zip(later, trajectory):
                assert_board(spec, image, shown, annotated=annotated)
            assert env.get_reward() == 1.0, row["id"]
    assert resized > len(rows) // 2  # most styles change the cell size, so the board's


def test_environment__a_benchmark_row_is_drawn_by_the_benchmark_family(reward_rows: list[dict[str, Any]]) -> None:
    """A row with no render_style: the registry's own family, its boards and no style column anywhere."""
    for row in reward_rows[::4]:
        instance = instance_from_columns(row)
        assert instance.render_style is None and instance.family is FAMILIES[row["task"]]
        spec, env = FAMILIES[row["task"]], PuzzleEnvironment(protocol="oracle_aug_vcot")
        state = spec.from_json(row["state"])
        answer = spec.answer_from_payload(row["solution"])
        _, aid, *later = _episode_images(env, row, _oracle_steps(row))
        assert_board(spec, aid, state, annotated=True)
        for image, shown in zip(later, spec.trajectory(state, answer), strict=True):
            assert_board(spec, image, shown, annotated=True)
    assert "render_style" not in conversational_dataset(reward_rows[:2]).column_names


def test_instance_from_columns__a_style_that_is_not_one_is_a_one_line_error_naming_the_row(
    reward_rows: list[dict[str, Any]]
) -> None:
    row = {**reward_rows[0], "render_style": '{"palette": "neon", "line_scale": 1, "cell_scale": 1}'}
    with pytest.raises(VgauError, match=rf"^row '{reward_rows[0]['id']}': unknown palette 'neon'") as caught:
        PuzzleEnvironment().reset(**row)
    assert "\n" not in str(caught.value)
    for garbage in ("soft", 3, '{"palette": ["soft"], "line_scale": 1, "cell_scale": 1}'):
        with pytest.raises(VgauError, match=f"^row '{reward_rows[0]['id']}': "):
            instance_from_columns({**row, "render_style": garbage})


def test_conversational_dataset__keeps_each_rows_style_for_the_environment_and_rewards(
    styled_export: Callable[[str], list[dict[str, Any]]]
) -> None:
    rows = styled_export("trl")
    dataset = conversational_dataset(rows, protocol="oracle_vcot")
    assert dataset["render_style"] == [row["render_style"] for row in rows]
    row = next(row for row in dataset if row["render_style"] is not None)
    spec = row_spec(row["task"], row["render_style"])
    first = next(part["image"] for part in PuzzleEnvironment().reset(**row) if part["type"] == "image")
    assert_board(spec, first, spec.from_json(row["state"]))  # the dataset holds no image: drawn in the style


def test_environment__public_methods_are_the_tool_and_trls_hooks_only() -> None:
    import inspect

    public = {name for name, _ in inspect.getmembers(PuzzleEnvironment, inspect.isfunction) if not name.startswith("_")}
    assert public == {"reset", "step", "get_reward"}


# ---------------------------------------------------------------------------- real GRPO runs


def _grpo(model_dir: Path, dataset: Any, tmp_path: Path, **options: Any) -> list[dict[str, Any]]:
    """Two GRPO optimisation steps on CPU; the per-step logs."""
    os.environ["TRL_EXPERIMENTAL_SILENCE"] = "1"
    import trl  # in the test extra: a missing TRL fails here
    from transformers import AutoModelForImageTextToText

    from vgau_data.runners.backends.hf import load_processor

    processor, _ = load_processor(model_dir)
    processor.tokenizer.padding_side = "left"
    if "environment_factory" in options:  # tool calls need a template that renders them (and a parser for them)
        from trl.chat_template_utils import qwen3_vl_chat_template

        processor.chat_template = processor.tokenizer.chat_template = qwen3_vl_chat_template
    args = trl.GRPOConfig(
        output_dir=str(tmp_path), per_device_train_batch_size=2, num_generations=2, max_completion_length=1024,
        max_steps=2, logging_steps=1, report_to=[], use_cpu=True, save_strategy="no", bf16=False, seed=0,
        max_tool_calling_iterations=2, learning_rate=1e-3,
    )  # fmt: skip
    model = AutoModelForImageTextToText.from_pretrained(str(model_dir))
    trainer = trl.GRPOTrainer(model=model, args=args, train_dataset=dataset, processing_class=processor, **options)
    trainer.train()
    return [log for log in trainer.state.log_history if "reward" in log]


def test_grpo_trainer__trains_two_steps_on_our_dataset_and_logs_our_reward(
    maze_dataset: Path, tiny_model: Callable[[str], Path], tmp_path: Path
) -> None:
    """A tiny VLM that always answers ["left"]: optimal on maze-easy-0000, one move short on maze-easy-0001."""
    dataset = conversational_dataset(str(maze_dataset))
    model_dir = tiny_model('<ANSWER_JSON>["left"]</ANSWER_JSON>')
    logs = _grpo(model_dir, dataset, tmp_path, reward_funcs=[REWARD_FUNCTIONS["optimal"], REWARD_FUNCTIONS["progress"]])
    assert len(logs) == 2
    assert sorted(log["rewards/vgau_optimal/mean"] for log in logs) == [0.0, 1.0]
    assert sorted(log["rewards/vgau_progress/mean"] for log in logs) == [0.5, 1.0]
    assert all(log["vgau/parsed"] == 1.0 for log in logs)


def test_grpo_trainer__plays_the_environment_through_tool_calls(
    maze_dataset: Path, tiny_model: Callable[[str], Path], tmp_path: Path
) -> None:
    """A tiny VLM that always calls step("left"): solved in one step on one row, illegal on the other's second."""
    dataset = conversational_dataset(str(maze_dataset), protocol="oracle_vcot")
    model_dir = tiny_model('<tool_call>\n{"name": "step", "arguments": {"move": "Next, move one step left."}}\n</tool_call>')
    logs = _grpo(model_dir, dataset, tmp_path, environment_factory=functools.partial(PuzzleEnvironment))
    assert len(logs) == 2
    assert sorted(log["rewards/PuzzleEnvironment/mean"] for log in logs) == [0.0, 1.0]
    assert all(log["tools/call_frequency"] == 2.0 and log["tools/failure_frequency"] == 0.0 for log in logs)


@pytest.mark.parametrize("column", ["state", "optimal_length", "task"])
def test_a_column_with_fewer_values_than_completions__is_a_reward_error_naming_the_row(
    reward_rows: list[dict[str, Any]], column: str
) -> None:
    from vgau_data.rewards import RewardError
    from vgau_data.rewards.trl import optimal_reward

    rows = reward_rows[:3]
    columns = {"state": [row["state"] for row in rows], "optimal_length": [row["optimal_length"] for row in rows],
               "task": [row["task"] for row in rows]}  # fmt: skip
    columns[column] = columns[column][:2]
    with pytest.raises(RewardError, match=rf"^column '{column}' has 2 values for 3 completions: row 2 of the batch"):
        optimal_reward(completions=[row["answer"] for row in rows], **columns)
    with pytest.raises(RewardError, match=r"'optimal_length' must be an int >= 0"):
        optimal_reward(completions=[rows[0]["answer"]], state=[rows[0]["state"]], optimal_length=["3"])
