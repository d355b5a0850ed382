"""GRPO learns from our reward: a tiny random VLM whose sampling walks the maze answer grammar gets better.

The model is a tiny Qwen2-VL built from a config (random weights, nothing downloaded), its
vocabulary extended with one token per maze move (``<ANSWER_JSON>["left"]``, ...) and one
that closes the answer (``]</ANSWER_JSON>`` written as ``</ANSWER_JSON>`` after the move's
``"]``). A forward hook masks its logits to the grammar (next token allowed by the token
before it: a move after the prompt, the close after a move, the end of turn after the
close), so every completion is a one-move answer, chosen by the policy, and the policy's
log-probabilities are those of the masked distribution, in generation and in the loss
alike. TRL's ``GRPOTrainer`` then trains it on maze-easy rows whose optimum is one move
(all needing one move, see ``_rows``), with our ``optimal`` reward. Rewards vary within groups,
and the mean optimal reward of the last steps beats that of the first steps by
``MARGIN``; with a constant reward in its place (``optimal`` still logged, weight 0)
nothing is learned and the test fails (see ``train``). About a minute of CPU.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from vgau_data.registry import FAMILIES
from vgau_data.rewards.trl import conversational_dataset, optimal_reward

MOVES = ("up", "down", "left", "right")
CLOSE = '"]</ANSWER_JSON>'
STEPS = 16
WINDOW = 4
MARGIN = 0.3
"""The optimal reward's mean over the last ``WINDOW`` steps must beat the first ``WINDOW`` steps' by this much."""


def _move_token(move: str) -> str:
    return f'<ANSWER_JSON>["{move}'


def _tool_call_token(move: str) -> str:
    """One whole call of ``PuzzleEnvironment.step`` with the maze step ``move``, as Qwen3-VL's template writes it."""
    step = FAMILIES["maze"].format_step(move)
    return f'<tool_call>\n{{"name": "step", "arguments": {{"move": "{step}"}}}}\n</tool_call>'


def _rows(count: int, move: str = "left") -> list[dict[str, Any]]:
    """Maze-easy boards whose one optimal answer is the one move ``move`` (distinct boards, distinct prompts).

    One needed move for all: a policy this tiny learns a move from the reward in a few dozen
    steps, but not yet to read the board for it (tried: four rows needing four directions
    reached 0.25, the best a board-blind policy gets, in 40 steps).
    """
    from vgau_data.seeding import rng_for

    maze = FAMILIES["maze"]
    rows, seen = [], set()
    for seed in range(2000):
        state = maze.generate("easy", rng_for(seed))
        solution = maze.solve(state)
        if solution.optimal_length != 1 or solution.answer[0] != move or seed in seen:
            continue
        seen.add(seed)
        rows.append({"id": f"maze-easy-{seed}", "task": "maze", "difficulty": "easy", "optimal_length": 1,
                     "state": maze.to_json(state), "image": maze.render(state)})  # fmt: skip
        if len(rows) == count:
            return rows
    raise AssertionError("too few one-move maze boards")


def _grammar_model(folder: Path) -> Path:
    """The tiny VLM with both grammars' tokens added (their embeddings random, as the rest)."""
    import transformers

    from vgau_data.testing.tiny_models import build_tiny_vlm

    build_tiny_vlm("qwen2_vl", folder, seed=0)
    tokenizer = transformers.AutoTokenizer.from_pretrained(str(folder))
    tokenizer.add_tokens([_move_token(move) for move in MOVES] + [CLOSE] + [_tool_call_token(move) for move in MOVES])
    model = transformers.AutoModelForImageTextToText.from_pretrained(str(folder))
    model.resize_token_embeddings(len(tokenizer))
    model.save_pretrained(str(folder))
    tokenizer.save_pretrained(str(folder))
    return folder


def _mask_to_grammar(model: Any, tokenizer: Any, *, tool_calls: bool) -> None:
    """Mask the model's logits so each next token is one the grammar allows after the token before it.

    The answer grammar: a move token, the close, the end of turn. The tool-call grammar: one
    ``step`` call, the end of turn (after the tool's reply, another call).
    """
    import torch

    token = _tool_call_token if tool_calls else _move_token
    moves = [tokenizer.convert_tokens_to_ids(token(move)) for move in MOVES]
    close, end = tokenizer.convert_tokens_to_ids(CLOSE), tokenizer.convert_tokens_to_ids("<|im_end|>")
    size = model.get_output_embeddings().weight.shape[0]
    allowed = torch.full((size, size), float("-inf"))
    allowed[:, moves] = 0.0  # after any prompt token: a move
    for move in moves:
        allowed[move] = float("-inf")
        allowed[move, end if tool_calls else close] = 0.0
    allowed[close] = float("-inf")
    allowed[close, end] = 0.0
    allowed[end] = float("-inf")
    allowed[end, end] = 0.0

    def hook(module: Any, args: Any, kwargs: dict[str, Any], output: Any) -> Any:
        ids = kwargs.get("input_ids")
        if ids is None or getattr(output, "logits", None) is None:
            return output
        logits = output.logits
        before = ids[:, -logits.shape[1] :]
        output.logits = logits + allowed.to(logits.dtype)[before]
        return output

    model.register_forward_hook(hook, with_kwargs=True)


def train(reward: Callable[..., list[float | None]], folder: Path, out: Path) -> list[float]:
    """GRPO with ``reward`` (weight 1) and ``optimal_reward`` logged beside it (weight 0 unless it is the reward):
    the optimal reward's mean per step."""
    funcs = [reward] if reward is optimal_reward else [reward, optimal_reward]
    logs = _grpo(folder, out, conversational_dataset(_rows(4)), reward_funcs=funcs,
                 reward_weights=[1.0] + [0.0] * (len(funcs) - 1))  # fmt: skip
    assert all(log["vgau/parsed"] == 1.0 for log in logs)  # the grammar: every completion is an answer
    assert sum(log["rewards/vgau_optimal/std"] > 0 for log in logs[:WINDOW]) >= WINDOW // 2  # rewards vary in groups
    return [log["rewards/vgau_optimal/mean"] for log in logs]


def train_environment(kind: str, folder: Path, out: Path) -> list[float]:
    """GRPO through ``PuzzleEnvironment`` (``oracle_vcot``) paying the ``kind`` reward: its mean per step."""
    import functools

    from vgau_data.rewards.trl import PuzzleEnvironment

    rows = conversational_dataset(_rows(4), protocol="oracle_vcot")
    factory = functools.partial(PuzzleEnvironment, protocol="oracle_vcot", kind=kind)
    logs = _grpo(folder, out, rows, environment_factory=factory, max_tool_calling_iterations=1)
    assert all(log["tools/call_frequency"] >= 1.0 for log in logs)  # the grammar: every completion calls the tool
    return [log["rewards/PuzzleEnvironment/mean"] for log in logs]


def _grpo(folder: Path, out: Path, dataset: Any, **options: Any) -> list[dict[str, Any]]:
    """``STEPS`` GRPO steps of one prompt and 8 completions each, on CPU; the per-step logs."""
    os.environ["TRL_EXPERIMENTAL_SILENCE"] = "1"
    import torch

    torch.manual_seed(0)
    threads = torch.get_num_threads()
    torch.set_num_threads(1)  # one thread: the same reductions, so the same curve, on any machine
    try:
        return _train(folder, out, dataset, **options)
    finally:
        torch.set_num_threads(threads)


def _train(folder: Path, out: Path, dataset: Any, **options: Any) -> list[dict[str, Any]]:
    import trl
    from transformers import AutoModelForImageTextToText

    from vgau_data.runners.backends.hf import load_processor

    processor, _ = load_processor(folder)
    processor.tokenizer.padding_side = "left"
    tool_calls = "environment_factory" in options
    if tool_calls:  # a template that renders tool calls, and that TRL parses them back from
        from trl.chat_template_utils import qwen3_vl_chat_template

        processor.chat_template = processor.tokenizer.chat_template = qwen3_vl_chat_template
    model = AutoModelForImageTextToText.from_pretrained(str(folder))
    _mask_to_grammar(model, processor.tokenizer, tool_calls=tool_calls)
    config = {key: options.pop(key) for key in ("reward_weights", "max_tool_calling_iterations") if key in options}
    args = trl.GRPOConfig(
        output_dir=str(out), per_device_train_batch_size=8, num_generations=8, max_completion_length=64,
        max_steps=STEPS, logging_steps=1, report_to=[], use_cpu=True, save_strategy="no", bf16=False, seed=0,
        learning_rate=0.005, beta=0.0, **config,
    )  # fmt: skip
    trainer = trl.GRPOTrainer(model=model, args=args, train_dataset=dataset, processing_class=processor, **options)
    trainer.train()
    logs = [log for log in trainer.state.log_history if "reward" in log]
    assert len(logs) == STEPS
    return logs


def constant_reward(completions: list[Any], **columns: Any) -> list[float]:
    """The control: the same number for every completion (no learning signal)."""
    return [1.0] * len(completions)


@pytest.fixture(scope="module")
def grammar_model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _grammar_model(tmp_path_factory.mktemp("grammar_vlm"))


def learned(means: list[float]) -> float:
    """How much the mean reward of the last ``WINDOW`` steps beats the first ``WINDOW`` steps'."""
    return sum(means[-WINDOW:]) / WINDOW - sum(means[:WINDOW]) / WINDOW


def test_grpo_with_the_optimal_reward__learns_to_solve_one_move_mazes(grammar_model: Path, tmp_path: Path) -> None:
    means = train(optimal_reward, grammar_model, tmp_path)
    print("optimal reward per step:", means)
    assert learned(means) >= MARGIN, means


def test_grpo_with_puzzle_environment__learns_to_play_the_right_step(grammar_model: Path, tmp_path: Path) -> None:
    means = train_environment("optimal", grammar_model, tmp_path)
    print("environment reward per step:", means)
    assert learned(means) >= MARGIN, means
