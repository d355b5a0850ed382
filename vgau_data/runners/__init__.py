"""Run a vision-language model on the benchmark under the paper's protocols.

Where things are:
    messages.py     the conversation schema (role + text/image parts) and its converters
    backends/       ``chat(conversations, gen) -> completions``: base.py (the interface),
                    scripted.py, openai_compat.py, hf.py, vllm.py; the ``BACKENDS`` table
    instances.py    dataset rows -> ``Instance`` (reference fields + images), sharding
    environment.py  ``PuzzleEnv``: gymnasium-style reset/step on one instance
    protocols/      one registered ``Episode`` class per protocol (``PROTOCOLS``)
    driver.py       ``drive`` (lock-step batches) and ``run_benchmark`` (records, resume)
    records.py      the append-only JSONL records, keys, resume and shard merging
    image_store.py  the images models draw: PNG files beside the records, the generation cache
    report.py       records -> submission.jsonl, results.json and the printed table
    policies.py     scripted oracle / random policies

Tiny random models for tests and benchmarks are test support: ``vgau_data.testing``.

The names below are imported on first use, so importing this package (or one of its
light modules: ``backends``, ``protocols``, ``messages``) never imports torch,
transformers or vllm, nor the modules a caller does not need.
"""

from __future__ import annotations

import importlib
from typing import Any

_EXPORTS: dict[str, str] = {
    "BACKENDS": "vgau_data.runners.backends",
    "load_backend": "vgau_data.runners.backends",
    "ChatBackend": "vgau_data.runners.backends.base",
    "Completion": "vgau_data.runners.backends.base",
    "GenParams": "vgau_data.runners.backends.base",
    "RunPlan": "vgau_data.runners.driver",
    "RunSummary": "vgau_data.runners.driver",
    "drive": "vgau_data.runners.driver",
    "run_benchmark": "vgau_data.runners.driver",
    "Instance": "vgau_data.runners.instances",
    "load_instances": "vgau_data.runners.instances",
    "parse_shard": "vgau_data.runners.instances",
    "resolve_dataset": "vgau_data.runners.instances",
    "shard_instances": "vgau_data.runners.instances",
    "Conversation": "vgau_data.runners.messages",
    "ImagePart": "vgau_data.runners.messages",
    "Message": "vgau_data.runners.messages",
    "TextPart": "vgau_data.runners.messages",
    "to_hf": "vgau_data.runners.messages",
    "to_openai": "vgau_data.runners.messages",
    "PROTOCOLS": "vgau_data.runners.protocols",
    "Episode": "vgau_data.runners.protocols",
    "ProtocolConfig": "vgau_data.runners.protocols",
    "make_episode": "vgau_data.runners.protocols",
    "protocol_names": "vgau_data.runners.protocols",
    "write_report": "vgau_data.runners.report",
}


def __dir__() -> list[str]:
    return sorted([*globals(), *_EXPORTS])


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(module), name)
