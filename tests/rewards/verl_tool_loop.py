"""Play episodes through verl's own tool registry and agent loop's tool call, then score them with its naive manager.

Run by ``test_trainer_commands.py`` in verl's venv (``$VGAU_VERL_PYTHON``, vgau_data importable):
``python verl_tool_loop.py OUT_JSON TOOLS_YAML EPISODES_JSON``. ``TOOLS_YAML`` is the docs' tool
declaration, verbatim: verl 0.9.1's ``load_all_tools`` builds the tools from it (importing the
class its ``class_name`` names), and the schemas are dumped as ``ToolAgentLoop`` dumps them for
the chat template. Each episode (``{"data_source", "ground_truth", "extra_info", "moves"}``, its
``extra_info`` made by ``multi_turn_extra_info``) gets a real ``AgentData``; every move is one
``ToolAgentLoop._call_tool`` (verl's own dispatch: argument parsing, create, execute, release,
truncation, the ``ToolResponse`` it builds). The episode's ``extra_fields`` then reach
``compute_score`` the way the naive reward manager passes them (``tool_extra_fields``),
with the reward loaded from the README's ``pkg://`` path.
"""

import asyncio
import json
import sys
from types import SimpleNamespace

import numpy as np
import transformers
from omegaconf import OmegaConf
from verl.experimental.agent_loop.tool_agent_loop import AgentData, ToolAgentLoop
from verl.experimental.agent_loop.tool_parser import FunctionCall
from verl.experimental.reward_loop.reward_manager.naive import NaiveRewardManager
from verl.tools.tool_registry import load_all_tools
from verl.trainer.ppo.reward import get_custom_reward_fn
from verl_loader import _data

from vgau_data.testing.tiny_models import tiny_tokenizer


def main(out_json, tools_yaml, episodes_json):
    tools = load_all_tools(tools_yaml, None)
    loop = SimpleNamespace(tools={tool.name: tool for tool in tools}, max_tool_response_length=8192,
                           tool_response_truncate_side="middle")
    schemas = [tool.tool_schema.model_dump(exclude_unset=True, exclude_none=True) for tool in tools]
    config = OmegaConf.create({"reward": {"custom_reward_function": {
        "path": "pkg://vgau_data.rewards.verl", "name": "compute_score", "reward_kwargs": {"kind": "optimal"}}}})
    tokenizer = tiny_tokenizer(transformers)
    naive = NaiveRewardManager(config, tokenizer, get_custom_reward_fn(config))
    with open(episodes_json, encoding="utf-8") as handle:
        episodes = json.load(handle)
    played = []
    for number, episode in enumerate(episodes):
        agent_data = AgentData(messages=[], image_data=[], video_data=[], audio_data=None, mm_processor_kwargs=None,
                               metrics={}, request_id=f"episode-{number}",
                               tools_kwargs=episode["extra_info"]["tools_kwargs"])
        turns = []
        for move in episode["moves"]:
            call = FunctionCall(name=schemas[0]["function"]["name"], arguments=json.dumps({"move": move}))
            response, reward, _ = asyncio.run(ToolAgentLoop._call_tool(loop, call, agent_data.tools_kwargs, agent_data))
            turns.append({"text": response.text, "images": [list(image.size) for image in response.image or []],
                          "reward": reward})
        row = {"data_source": episode["data_source"], "reward_model": {"ground_truth": episode["ground_truth"]},
               "extra_info": episode["extra_info"]}
        data = _data(tokenizer, [row], ["I am done."])
        data.non_tensor_batch["tool_extra_fields"] = np.array([dict(agent_data.extra_fields)], dtype=object)
        result = naive.loop.run_until_complete(naive.run_single(data))
        played.append({"turns": turns, "score": result["reward_extra_info"]})
    with open(out_json, "w", encoding="utf-8") as handle:
        json.dump({"names": sorted(loop.tools), "schemas": schemas, "episodes": played}, handle)


if __name__ == "__main__":
    main(*sys.argv[1:])
