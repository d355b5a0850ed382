"""Run by the tests with lmms-eval 0.7.3's Python (``$VGAU_LMMS_EVAL_PYTHON``, see tests/external.py).

``python lmms_eval_probe.py INCLUDE_PATH CONFIG_ONLY_TASK... -- TASK...`` loads the shipped
tasks with lmms-eval's own ``TaskManager`` and prints one JSON object with an entry per task:

- ``config``: the task's ``TaskConfig`` as lmms-eval logs it in results.json (``to_dict()``:
  ``generation_kwargs`` after its defaults, ``repeats``, ``metadata``, ...). Tasks before
  ``--`` stop there (their YAML merged and made a ``TaskConfig``, as ``ConfigurableTask``
  does first); tasks after it are built whole, their dataset loaded from ``$VGAU_PUZZLES``;
- for those, when single-turn, the first row's request driven through lmms-eval's ``glm4v``
  model class, one of its local classes that cut replies with ``split(term)[0]``: its
  ``generate_until`` runs as lmms-eval wrote it, with the neural parts (processor, model,
  tokenizer) replaced by stand-ins that "generate" ``reply``, a multi-paragraph Text-CoT
  reply ending in the row's optimal answer. ``kept`` is what the class returns under the
  task's own ``generation_kwargs``, ``cut`` what it returns under lmms-eval's default stop
  string, and ``scores`` the task's ``process_results`` of each;
- ``repeats``: two responses for that row (the optimal reply, then a wrong one) passed
  through the task's own filters, and what ``process_results`` makes of them.
"""

from __future__ import annotations

import copy
import json
import sys
from typing import Any

WRONG = "I cannot tell."


def reply_for(doc: dict[str, Any]) -> str:
    from vgau_data.metrics.baselines import oracle_output
    from vgau_data.metrics.references import rows_from_records

    answer = oracle_output(rows_from_records([doc])[0]).splitlines()[-1]
    return (
        "1) The board: I find the start and the goal.\n\n"
        "The plan: each move stays on open cells, as the rules ask.\n\n\n"
        f"2) {answer}"
    )


class _Inputs(dict):
    def to(self, device: Any) -> _Inputs:
        return self


class _Tokenizer:
    eos_token_id = 0
    pad_token_id = 0

    def encode(self, text: str) -> list[int]:
        return [0] * len(text)

    def decode(self, ids: Any) -> str:
        return "<|endoftext|>"


class _Processor:
    def __init__(self, reply: str) -> None:
        self.reply = reply

    def apply_chat_template(self, messages: list[Any], **kwargs: Any) -> _Inputs:
        return _Inputs(input_ids=[[0]] * len(messages))

    def batch_decode(self, ids: list[Any], **kwargs: Any) -> list[str]:
        return [self.reply for _ in ids]


class _Model:
    def generate(self, input_ids: list[Any], **kwargs: Any) -> list[list[int]]:
        return [[0, 1] for _ in input_ids]


def glm4v_with_reply(reply: str, task_name: str, dataset: Any) -> Any:
    """lmms-eval's ``GLM4V`` with stand-ins for its weights: everything else is its own code."""
    from lmms_eval.api.model import lmms
    from lmms_eval.models.simple.glm4v import GLM4V

    model = GLM4V.__new__(GLM4V)
    lmms.__init__(model)
    model._tokenizer, model.processor, model._model = _Tokenizer(), _Processor(reply), _Model()
    model.batch_size_per_gpu, model._device, model.device_map = 1, "cpu", "cpu"
    model.system_prompt, model.max_new_tokens, model.use_cache = None, 16, True
    model.task_dict = {task_name: dataset}
    return model


def probe(task_name: str, task: Any) -> dict[str, Any]:
    config = task.dump_config()
    result: dict[str, Any] = {"config": json.loads(json.dumps(config, default=str))}
    if task.OUTPUT_TYPE != "generate_until":
        return result
    task.build_all_requests(limit=1)
    instance = task.instances[0]
    doc = task.test_docs()[instance.doc_id]
    reply = reply_for(dict(doc))
    model = glm4v_with_reply(reply, task_name, task.dataset)
    kept = model.generate_until([instance])[0]
    default = copy.copy(instance)
    arguments = list(instance.args)
    arguments[1] = {**arguments[1], "until": [task.config.fewshot_delimiter]}  # what lmms-eval sets without `until`
    default.arguments = tuple(arguments)
    cut = model.generate_until([default])[0]
    instance.resps = [reply, WRONG]
    for ensemble in task._filters:
        ensemble.apply([instance], None)
    filtered = instance.filtered_resps
    result.update(
        reply=reply,
        kept=kept,
        cut=cut,
        scores={"kept": task.process_results(doc, [kept]), "cut": task.process_results(doc, [cut])},
        repeats={
            "filtered": filtered,
            "scores": {name: task.process_results(doc, [value]) for name, value in filtered.items()},
        },
    )
    return result


def main(include_path: str, config_only: list[str], built: list[str]) -> None:
    from lmms_eval.api.task import TaskConfig
    from lmms_eval.tasks import TaskManager, get_task_dict

    manager = TaskManager(include_path=include_path)
    probed = {name: {"config": json.loads(json.dumps(TaskConfig(**manager._get_config(name)).to_dict(), default=str))}
              for name in config_only}
    probed.update({name: probe(name, task) for name, task in get_task_dict(built, manager).items()})
    print(json.dumps(probed))


if __name__ == "__main__":
    split = sys.argv.index("--") if "--" in sys.argv else len(sys.argv)
    main(sys.argv[1], sys.argv[2:split], sys.argv[split + 1 :])
