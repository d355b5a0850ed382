"""Rewrite ``trl_<version>.json``: the exact arguments TRL's GRPOTrainer passes to a reward and an environment.

Run from the repository root with TRL installed (a few seconds on CPU):
    python tests/data/rewards/capture_trl.py DATASET_DIR
DATASET_DIR is a build with maze easy rows (``vgau-data build --out D --families maze --counts 2 0 0``).
Values are summarised (types, the first 60 characters); the keys and shapes are what the tests read.
"""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path
from typing import Any


def describe(value: Any) -> Any:
    if isinstance(value, list):
        return [describe(item) for item in value[:2]]
    if isinstance(value, dict):
        return {key: describe(item) for key, item in value.items()}
    if isinstance(value, str):
        return value if len(value) < 80 else value[:60] + "..."
    if isinstance(value, (int, float, bool)) or value is None:
        return value
    return f"<{type(value).__name__}>"


def main(dataset: str) -> None:
    import functools
    import os

    os.environ["TRL_EXPERIMENTAL_SILENCE"] = "1"
    import transformers
    import trl
    from transformers import AutoModelForImageTextToText
    from trl import GRPOConfig, GRPOTrainer
    from trl.chat_template_utils import qwen3_vl_chat_template

    from vgau_data.rewards.trl import PuzzleEnvironment, conversational_dataset
    from vgau_data.runners.backends.hf import load_processor
    from vgau_data.testing.tiny_models import build_tiny_vlm

    record: dict[str, Any] = {"trl": trl.__version__, "transformers": transformers.__version__}

    def recorder(prompts: Any, completions: Any, completion_ids: Any, **columns: Any) -> list[float]:
        record["call"] = {"keywords": sorted(["prompts", "completions", "completion_ids", *columns]),
                          "completions": describe(completions), "columns": describe(columns)}
        return [0.0] * len(completions)

    class Recording(PuzzleEnvironment):
        def reset(self, **columns: Any) -> Any:
            record["reset_call"] = {"keywords": sorted(columns), "columns": describe(columns)}
            return super().reset(**columns)

    def run(rows: Any, reply: str, **options: Any) -> None:
        folder = build_tiny_vlm("qwen2_vl", tempfile.mkdtemp(), reply=reply)
        processor, _ = load_processor(Path(folder))
        processor.tokenizer.padding_side = "left"
        if "environment_factory" in options:
            processor.chat_template = processor.tokenizer.chat_template = qwen3_vl_chat_template
        args = GRPOConfig(output_dir=tempfile.mkdtemp(), per_device_train_batch_size=2, num_generations=2,
                          max_completion_length=256, max_steps=1, report_to=[], use_cpu=True, save_strategy="no",
                          bf16=False, max_tool_calling_iterations=1)  # fmt: skip
        model = AutoModelForImageTextToText.from_pretrained(folder)
        GRPOTrainer(model=model, args=args, train_dataset=rows, processing_class=processor, reward_funcs=[recorder],
                    **options).train()  # fmt: skip

    run(conversational_dataset(dataset, families=["maze"], difficulties=["easy"]), '<ANSWER_JSON>["left"]</ANSWER_JSON>')
    record["dataset_reward_call"] = record.pop("call")
    tool_call = '<tool_call>\n{"name": "step", "arguments": {"move": "Next, move one step left."}}\n</tool_call>'
    run(conversational_dataset(dataset, protocol="oracle_vcot", families=["maze"], difficulties=["easy"]), tool_call,
        environment_factory=functools.partial(Recording))
    record["env_reward_call"] = record.pop("call")
    out = Path(__file__).with_name(f"trl_{trl.__version__}.json")
    out.write_text(json.dumps(record, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    print(f"wrote {out}")


if __name__ == "__main__":
    main(sys.argv[1])
