"""Load our reward with verl's own loader, as the README configures it, and score export rows with verl's managers.

Run by ``test_trainer_commands.py`` in verl's venv (``$VGAU_VERL_PYTHON``, vgau_data importable):
``python verl_loader.py OUT_JSON ANSWERS_JSON OVERRIDES_JSON FILE.parquet ...``. ``OVERRIDES_JSON``
holds the README's ``key=value`` arguments of ``verl.trainer.main_ppo``, verbatim: each key is
looked up in verl's own generated trainer config (a plain key must be there, a ``+key``
must not, as Hydra requires), then ``get_custom_reward_fn`` loads the function from its
``reward.custom_reward_function`` values (``load_extern_object``: a ``pkg://`` path is imported, a file path executed under a
made-up module name that is not in ``sys.modules``); the file path the package's
``__file__`` names is loaded the same way, beside it. Each row of the parquet files (a
``vgau-data export-training --format verl`` export, read with pyarrow as verl's dataset
reads it) is then scored by the naive reward manager's ``run_single`` (one sample: the
answer tokenised and decoded back as verl does) and, with ``compute_score_batch``, by the
batch manager's ``verify``, for each answer ``ANSWERS_JSON`` gives for its row id.
"""

import json
import sys

import numpy as np
import pyarrow.parquet as pq
import torch
import transformers
from omegaconf import OmegaConf
from verl import DataProto
from verl.experimental.reward_loop.reward_manager.naive import NaiveRewardManager
from verl.trainer.ppo.reward import get_custom_reward_fn
from verl.utils.import_utils import load_extern_object
from verl.workers.reward_manager.batch import BatchRewardManager

from vgau_data.testing.tiny_models import tiny_tokenizer


def _data(tokenizer, rows, texts):
    """A DataProto of one response per (row, text), padded as the rollout leaves it."""
    prompt = tokenizer("Solve the puzzle.", return_tensors="pt")["input_ids"]
    responses = [tokenizer(text, return_tensors="pt", add_special_tokens=False)["input_ids"][0] for text in texts]
    width = max(len(r) for r in responses)
    padded = torch.stack([torch.nn.functional.pad(r, (0, width - len(r)), value=tokenizer.pad_token_id) for r in responses])
    mask = torch.stack([torch.cat([torch.ones(prompt.shape[1]), (torch.arange(width) < len(r)).float()]) for r in responses])
    return DataProto.from_dict(
        tensors={"prompts": prompt.repeat(len(texts), 1), "responses": padded, "attention_mask": mask.long()},
        non_tensors={
            "data_source": np.array([row["data_source"] for row in rows], dtype=object),
            "reward_model": np.array([row["reward_model"] for row in rows], dtype=object),
            "extra_info": np.array([dict(row["extra_info"]) for row in rows], dtype=object),
        },
    )


def _checked_overrides(overrides):
    """The overrides as a dict, each key checked against verl's generated ``ppo_trainer`` config."""
    import verl.trainer.config as configs

    config = OmegaConf.load(f"{configs.__path__[0]}/_generated_ppo_trainer.yaml")
    values, problems = {}, []
    for override in overrides:
        key, value = override.split("=", 1)
        added = key.startswith("+")
        key = key.lstrip("+")
        parent, _, leaf = key.rpartition(".")
        node = OmegaConf.select(config, parent) if parent else config
        present = node is not None and leaf in node
        if added and (node is None or present):
            problems.append(f"+{key}: Hydra adds only a key that is not there, under a parent that is")
        if not added and not present:
            problems.append(f"{key}: not in verl's config")
        values[key] = value
    return values, problems


def main(out_json, answers_json, overrides_json, *files):
    import vgau_data.rewards.verl as ours

    with open(overrides_json, encoding="utf-8") as handle:
        values, problems = _checked_overrides(json.load(handle))
    path = values["reward.custom_reward_function.path"]
    name = values["reward.custom_reward_function.name"]
    kind = values.get("reward.custom_reward_function.reward_kwargs.kind", "optimal")
    with open(answers_json, encoding="utf-8") as handle:
        answers = json.load(handle)
    rows = [row for file in files for row in pq.read_table(file).to_pylist()]
    tokenizer = tiny_tokenizer(transformers)
    loaded = {}
    for label, module_path in (("readme", path), ("file", ours.__file__)):
        config = OmegaConf.create({"reward": {"custom_reward_function": {
            "path": module_path, "name": name, "reward_kwargs": {"kind": kind}}}})
        function = get_custom_reward_fn(config)
        naive = NaiveRewardManager(config, tokenizer, function)
        scores = {}
        for row in rows:
            for answer_kind, text in answers[row["extra_info"]["id"]].items():
                data = _data(tokenizer, [row], [text])
                result = naive.loop.run_until_complete(naive.run_single(data))
                scores[f"{row['extra_info']['id']}/{answer_kind}"] = result["reward_extra_info"]
        batch_fn = get_custom_reward_fn(OmegaConf.create({"reward": {"custom_reward_function": {
            "path": module_path, "name": "compute_score_batch", "reward_kwargs": {"kind": kind}}}}))
        pairs = [(row, text) for row in rows for text in answers[row["extra_info"]["id"]].values()]
        batch = BatchRewardManager(tokenizer, 0, batch_fn).verify(_data(tokenizer, *zip(*pairs)))
        module = load_extern_object(module_path, "compute_score").__module__
        loaded[label] = {"path": module_path, "module": module, "naive": scores,
                         "batch": [{key: float(value) for key, value in result.items()} for result in batch]}
    loaded["problems"] = problems
    with open(out_json, "w", encoding="utf-8") as handle:
        json.dump(loaded, handle)


if __name__ == "__main__":
    main(*sys.argv[1:])
