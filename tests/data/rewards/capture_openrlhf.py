"""Rewrite ``openrlhf_<version>.json``: what OpenRLHF's single-turn executor sends our reward, file and URL.

Run from the repository root where OpenRLHF's ``openrlhf.utils.agent`` imports (OpenRLHF,
aiohttp; ``pip install --no-deps --target DIR openrlhf`` and ``PYTHONPATH=DIR`` will do):
    python tests/data/rewards/capture_openrlhf.py
It runs ``SingleTurnAgentExecutor.execute`` (OpenRLHF 0.11's own code: tokenize the
templated prompt, generate, decode prompt + response with special tokens kept, fetch the
reward) with a stand-in engine that answers a fixed text, once with
``--reward.remote_url`` set to ``vgau_data/rewards/openrlhf.py`` and once to a
``vgau-data serve-reward`` server on loopback, and records what our reward received and
what OpenRLHF kept. With ``--vlm RL_ROWS.parquet MODEL_DIR`` (``conversational_dataset(...)
.to_parquet(...)`` and a tiny VLM folder; needs a transformers that reads its processor) it
also loads the rows with OpenRLHF's ``blending_datasets`` and ``PromptDataset`` and builds
the query as its VLM path does (``process_prompt_with_images``: image tokens expand).
"""

from __future__ import annotations

import asyncio
import json
import sys
import tempfile
import urllib.request
from pathlib import Path
from types import SimpleNamespace
from typing import Any

STATE = ('{"goal":[1,2],"grid":["##########","#...######","##########","##########","##########",'
         '"##########","##########","##########","##########","##########"],"start":[1,1]}')
ANSWERS = ('Right of the agent is the goal. <ANSWER_JSON>["right"]</ANSWER_JSON>', "left")


def plain(value: Any) -> Any:
    if hasattr(value, "tolist"):
        return value.tolist()
    if isinstance(value, dict):
        return {key: plain(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(item) for item in value]
    return value


def main() -> None:
    import importlib.metadata

    import transformers
    from openrlhf.utils.agent import SingleTurnAgentExecutor

    import vgau_data.rewards.openrlhf as ours
    from vgau_data.rewards.server.launch import launched
    from vgau_data.testing.tiny_models import tiny_tokenizer

    tokenizer = tiny_tokenizer(transformers)
    prompt = tokenizer.apply_chat_template([{"role": "user", "content": "Solve the maze in the image."}],
                                           tokenize=False, add_generation_prompt=True)  # fmt: skip
    received: list[dict[str, Any]] = []
    recorder = Path(tempfile.mkdtemp()) / "reward_func.py"
    recorder.write_text(
        f"import sys\nsys.path.insert(0, {str(Path(ours.__file__).resolve().parents[2])!r})\n"
        "from vgau_data.rewards.openrlhf import reward_func as ours\n"
        "RECEIVED = []\n"
        "def reward_func(queries, prompts, labels, **kwargs):\n"
        "    RECEIVED.append({'queries': queries, 'prompts': prompts, 'labels': labels, 'kwargs': sorted(kwargs)})\n"
        "    return ours(queries, prompts, labels, **kwargs)\n",
        encoding="utf-8",
    )

    class Engine:
        def __init__(self, text: str) -> None:
            self.ids = tokenizer(text + "<|im_end|>", add_special_tokens=False)["input_ids"]

        async def generate(self, prompt_token_ids: list[int], params: Any, multi_modal_data: Any = None) -> Any:
            return SimpleNamespace(outputs=[SimpleNamespace(token_ids=self.ids, finish_reason="stop", logprobs=None)])

    def run(url: str) -> list[dict[str, Any]]:
        executor = SingleTurnAgentExecutor(remote_rm_url=url)
        outputs = []
        for text in ANSWERS:
            out = asyncio.run(executor.execute(prompt, STATE, SimpleNamespace(max_tokens=64, logprobs=None), 512,
                                               tokenizer, Engine(text)))  # fmt: skip
            outputs.append({key: plain(out[key]) for key in ("reward", "scores", "extra_logs")})
        if executor.reward_func is not None:
            received.extend(executor.reward_func.__globals__["RECEIVED"])
        return outputs

    record: dict[str, Any] = {"openrlhf": importlib.metadata.version("openrlhf"), "transformers": transformers.__version__}
    record["file"] = {"kept": run(str(recorder))}
    record["file"]["received"] = received
    with launched("--workers", "1") as server:
        kept = run(server.url)
        with urllib.request.urlopen(server.url.replace("/get_reward", "/health"), timeout=30) as health:
            record["url"] = {"kept": kept, "served": json.load(health)["served"]}
    if len(sys.argv) == 4 and sys.argv[1] == "--vlm":
        record["vlm"] = _vlm_query(sys.argv[2], sys.argv[3])
    out = Path(__file__).with_name(f"openrlhf_{record['openrlhf']}.json")
    out.write_text(json.dumps(record, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    print(f"wrote {out}")


def _vlm_query(rows: str, model_dir: str) -> dict[str, Any]:
    """The first row through OpenRLHF's dataset and VLM tokenisation, and the query it decodes."""
    from openrlhf.datasets.prompts_dataset import PromptDataset
    from openrlhf.datasets.utils import blending_datasets
    from openrlhf.utils.vlm_utils import process_prompt_with_images

    from vgau_data.runners.backends.hf import load_processor

    processor, _ = load_processor(Path(model_dir))
    data_args = SimpleNamespace(input_key="prompt", label_key="reference", apply_chat_template=True, image_key="images")
    strategy = SimpleNamespace(args=SimpleNamespace(data=data_args, use_ms=False), print=lambda *a: None,
                               is_rank_0=lambda: False)  # fmt: skip
    dataset = PromptDataset(blending_datasets(rows, None, strategy), processor, strategy)
    _, prompt, label, images = dataset[0]
    ids, _, pil = process_prompt_with_images(processor, prompt, images)
    answer = processor.tokenizer('<ANSWER_JSON>["left"]</ANSWER_JSON><|im_end|>', add_special_tokens=False)["input_ids"]
    return {"prompt": prompt, "label": label, "images": [type(image).__name__ for image in images],
            "query": processor.tokenizer.decode(ids + answer, skip_special_tokens=False)}


if __name__ == "__main__":
    main()
