"""Rewrite ``verl_<version>.json``: what verl's reward managers really pass to ``compute_score``.

Run from the repository root in a venv with verl installed (``pip install verl`` and its
reward-loop imports: ray, tensordict, omegaconf, aiohttp, transformers<5.11):
    python tests/data/rewards/capture_verl.py
It loads ``vgau_data/rewards/verl.py`` through verl's own ``get_custom_reward_fn`` (the
``reward.custom_reward_function`` config keys), runs the naive manager's ``run_single``
and the batch manager's ``verify`` on two maze rows, and records the keyword arguments
each passed and what they returned.
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[3]
STATE = ('{"goal":[1,2],"grid":["##########","#...######","##########","##########","##########",'
         '"##########","##########","##########","##########","##########"],"start":[1,1]}')


def describe(value: Any) -> Any:
    if isinstance(value, dict):
        return {key: describe(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [describe(item) for item in value]
    if hasattr(value, "tolist"):
        return describe(value.tolist())
    if isinstance(value, (str, int, float, bool)) or value is None:
        return value
    return f"<{type(value).__name__}>"


def main() -> None:
    import numpy as np
    import torch
    import transformers
    import verl
    from omegaconf import OmegaConf
    from verl import DataProto
    from verl.experimental.reward_loop.reward_manager.naive import NaiveRewardManager
    from verl.trainer.ppo.reward import get_custom_reward_fn
    from verl.workers.reward_manager.batch import BatchRewardManager

    from vgau_data.testing.tiny_models import tiny_tokenizer

    calls: list[dict[str, Any]] = []
    recorder = Path(tempfile.mkdtemp()) / "recorder.py"
    recorder.write_text(
        "import json, os\n"
        "from vgau_data.rewards import verl as ours\n"
        "CALLS = []\n"
        "def compute_score(**kwargs):\n"
        "    CALLS.append(kwargs)\n"
        "    return ours.compute_score(**kwargs)\n"
        "def compute_score_batch(**kwargs):\n"
        "    CALLS.append(kwargs)\n"
        "    return ours.compute_score_batch(**kwargs)\n",
        encoding="utf-8",
    )
    record: dict[str, Any] = {"verl": verl.__version__, "transformers": transformers.__version__}
    tokenizer = tiny_tokenizer(transformers)
    answers = ['I go right. <ANSWER_JSON>["right"]</ANSWER_JSON>', "no idea"]
    prompt = tokenizer("Solve the maze.", return_tensors="pt")["input_ids"]
    responses = [tokenizer(text, return_tensors="pt")["input_ids"][0] for text in answers]
    width = max(len(r) for r in responses)
    padded = torch.stack([torch.nn.functional.pad(r, (0, width - len(r)), value=tokenizer.pad_token_id) for r in responses])
    mask = torch.stack([torch.cat([torch.ones(prompt.shape[1]), (torch.arange(width) < len(r)).float()]) for r in responses])
    extra = {"family": "maze", "id": "maze-train-0", "split": "train", "optimal_length": 1, "band": "easy",
             "protocol": "text_cot", "index": 0}  # the training export's extra_info (issue 17)
    data = DataProto.from_dict(
        tensors={"prompts": prompt.repeat(2, 1), "responses": padded, "attention_mask": mask.long()},
        non_tensors={
            "data_source": np.array(["vgau/maze"] * 2, dtype=object),
            "reward_model": np.array([{"style": "rule", "ground_truth": STATE}] * 2, dtype=object),
            "extra_info": np.array([dict(extra), dict(extra)], dtype=object),
        },
    )

    for name, manager in (("naive", "compute_score"), ("batch", "compute_score_batch")):
        config = OmegaConf.create({"reward": {"custom_reward_function": {
            "path": str(recorder), "name": manager, "reward_kwargs": {"kind": "optimal"}}}})
        function = get_custom_reward_fn(config)
        module_calls = function.args[0].__globals__["CALLS"]
        if name == "naive":
            naive = NaiveRewardManager(config, tokenizer, function)
            results = [naive.loop.run_until_complete(naive.run_single(data[i : i + 1])) for i in range(2)]
        else:
            results = BatchRewardManager(tokenizer, 0, function).verify(data)
        record[name] = {"calls": describe(list(module_calls)), "results": describe(results)}
        calls.extend(module_calls)
    record["tool"] = _tool_episode(tokenizer, config)
    out = Path(__file__).with_name(f"verl_{verl.__version__}.json")
    out.write_text(json.dumps(record, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    print(f"wrote {out}")


def _tool_episode(tokenizer: Any, config: Any) -> dict[str, Any]:
    """``PuzzleStepTool`` loaded by verl's tool registry and called by ``ToolAgentLoop._call_tool`` (which
    creates, executes with ``agent_data`` and releases it once per call), then scored by the naive manager
    with the trajectory's extra fields, as the agent loop hands them over."""
    import asyncio
    from types import SimpleNamespace

    import numpy as np
    import torch
    from verl import DataProto
    from verl.experimental.agent_loop.tool_agent_loop import AgentData, ToolAgentLoop
    from verl.experimental.agent_loop.tool_parser import FunctionCall
    from verl.experimental.reward_loop.reward_manager.naive import NaiveRewardManager
    from verl.tools.tool_registry import initialize_tools_from_config

    from vgau_data.rewards.verl import TOOL_NAME, compute_score, multi_turn_extra_info

    tools_yaml = Path(tempfile.mkdtemp()) / "tools.yaml"
    tools_yaml.write_text("tools:\n  - class_name: vgau_data.rewards.verl.PuzzleStepTool\n    config:\n      type: native\n",
                          encoding="utf-8")  # fmt: skip
    (tool,) = initialize_tools_from_config(str(tools_yaml))
    extra = multi_turn_extra_info("vgau/maze", STATE, {"optimal_length": 1})
    agent_data = AgentData(messages=[], image_data=[], video_data=None, audio_data=None, mm_processor_kwargs=None,
                           metrics={}, request_id="r0", tools_kwargs=extra["tools_kwargs"])  # fmt: skip
    # ToolAgentLoop._call_tool itself, on a stand-in for the loop's own attributes
    loop = SimpleNamespace(tools={tool.name: tool}, max_tool_response_length=4096, tool_response_truncate_side="middle")
    agent_data._active_tools = loop.tools
    replies = []
    for move in ("Next, move one step right.", "Next, move one step left."):
        call = FunctionCall(name=tool.name, arguments=json.dumps({"move": move}))
        response, reward, metrics = asyncio.run(ToolAgentLoop._call_tool(loop, call, agent_data.tools_kwargs, agent_data))
        replies.append({"type": type(response).__name__, "text": response.text,
                        "images": [type(image).__name__ for image in response.image or []], "reward": reward,
                        "metrics": metrics})  # fmt: skip
    prompt = tokenizer("Solve the maze.", return_tensors="pt")["input_ids"]
    response = tokenizer("done", return_tensors="pt")["input_ids"]
    data = DataProto.from_dict(
        tensors={"prompts": prompt, "responses": response, "attention_mask": torch.ones(1, prompt.shape[1] + response.shape[1]).long()},
        non_tensors={"data_source": np.array(["vgau/maze"], dtype=object),
                     "reward_model": np.array([{"style": "rule", "ground_truth": STATE}], dtype=object),
                     "extra_info": np.array([extra], dtype=object),
                     "tool_extra_fields": np.array([dict(agent_data.extra_fields)], dtype=object)},
    )  # fmt: skip
    naive = NaiveRewardManager(config, tokenizer, compute_score)
    scored = naive.loop.run_until_complete(naive.run_single(data))
    return {"schema": tool.tool_schema.model_dump(exclude_none=True), "tool_name": TOOL_NAME, "replies": replies,
            "extra_fields": describe(agent_data.extra_fields), "scored": describe(scored)}


if __name__ == "__main__":
    main()
