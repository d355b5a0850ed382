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
    """The tiny VLM with the grammar's tokens added (their embeddings random, as the rest)."""
    import transformers

    from vgau_data.testing.tiny_models import build_tiny_vlm

    build_tiny_vlm("qwen2_vl", folder, seed=0)
    tokenizer = transformers.AutoTokenizer.from_pretrained(str(folder))
    tokenizer.add_tokens([_move_token(move) for move in MOVES] + [CLOSE])
    model = transformers.AutoModelForImageTextToText.from_pretrained(str(folder))
    model.resize_token_embeddings(len(tokenizer))
    model.save_pretrained(str(folder))
    tokenizer.save_pretrained(str(folder))
    return folder


def _mask_to_grammar(model: Any, tokenizer: Any) -> None:
    """Mask the model's logits so each next token is one the grammar allows after the token before it."""
    import torch

    moves = [tokenizer.convert_tokens_to_ids(_move_token(move)) for move in MOVES]
    close, end = tokenizer.convert_tokens_to_ids(CLOSE), tokenizer.convert_tokens_to_ids("<|im_end|>")
    size = model.get_output_embeddings().weight.shape[0]
    allowed = torch.full((size, size), float("-inf"))
    allowed[:, moves] = 0.0  # after any prompt token: a move
    for move in moves:
        allowed[move] = float("-inf")
        allowed[move, close] = 0.0
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


def train(reward: Callable[..., list[float | None]], folder: Path, out: Path) -> list[dict[str, Any]]:
    """GRPO with ``reward`` (weight 1) and ``optimal_reward`` logged beside it (weight 0 unless it is the reward)."""
    os.environ["TRL_EXPERIMENTAL_SILENCE"] = "1"
    import torch
    import trl
    from transformers import AutoModelForImageTextToText

    from vgau_data.runners.backends.hf import load_processor

    torch.manual_seed(0)
    processor, _ = load_processor(folder)
    processor.tokenizer.padding_side = "left"
    model = AutoModelForImageTextToText.from_pretrained(str(folder))
    _mask_to_grammar(model, processor.tokenizer)
    funcs = [reward] if reward is optimal_reward else [reward, optimal_reward]
    args = trl.GRPOConfig(
        output_dir=str(out), per_device_train_batch_size=8, num_generations=8, max_completion_length=4,
        max_steps=STEPS, logging_steps=1, report_to=[], use_cpu=True, save_strategy="no", bf16=False, seed=0,
        learning_rate=0.005, reward_weights=[1.0] + [0.0] * (len(funcs) - 1), beta=0.0,
    )  # fmt: skip
    dataset = conversational_dataset(_rows(4))
    trainer = trl.GRPOTrainer(model=model, args=args, train_dataset=dataset, processing_class=processor,
                              reward_funcs=funcs)  # fmt: skip
    trainer.train()
    return [log for log in trainer.state.log_history if "rewards/vgau_optimal/mean" in log]


def constant_reward(completions: list[Any], **columns: Any) -> list[float]:
    """The control: the same number for every completion (no learning signal)."""
    return [1.0] * len(completions)


@pytest.fixture(scope="module")
def grammar_model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _grammar_model(tmp_path_factory.mktemp("grammar_vlm"))


def test_grpo_with_the_optimal_reward__learns_to_solve_one_move_mazes(grammar_model: Path, tmp_path: Path) -> None:
    logs = train(optimal_reward, grammar_model, tmp_path)
    assert len(logs) == STEPS
    means = [log["rewards/vgau_optimal/mean"] for log in logs]
    assert all(log["vgau/parsed"] == 1.0 for log in logs)  # the grammar: every completion is an answer
    assert sum(log["rewards/vgau_optimal/std"] > 0 for log in logs[:WINDOW]) >= WINDOW // 2  # rewards vary in groups
    first, last = sum(means[:WINDOW]) / WINDOW, sum(means[-WINDOW:]) / WINDOW
    print("optimal reward per step:", means)
    assert last - first >= MARGIN, (first, last, means)
