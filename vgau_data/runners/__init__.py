"""Run a vision-language model on the benchmark under the paper's protocols.

Where things are:
    messages.py     the conversation schema (role + text/image parts) and its converters
    backends/       ``chat(conversations, gen) -> completions``: base.py (the interface),
                    scripted.py, openai_compat.py, hf.py, vllm.py; ``load_backend(name)``
    instances.py    dataset rows -> ``Instance`` (reference fields + images), sharding
    environment.py  ``PuzzleEnv``: gymnasium-style reset/step on one instance
    protocols.py    ``ProtocolConfig`` and the episode drivers for the five protocols
    driver.py       ``drive`` (lock-step batches) and ``run_benchmark`` (records, resume)
    records.py      the append-only JSONL records, keys, resume and shard merging
    report.py       records -> submission.jsonl, results.json and the printed table
    policies.py     scripted oracle / random policies
    tiny_models.py  tiny random Qwen VLMs for tests and the benchmark script

Importing this package never imports torch, transformers or vllm.
"""

from __future__ import annotations

from vgau_data.runners.backends import BACKENDS, load_backend
from vgau_data.runners.backends.base import ChatBackend, Completion, GenParams
from vgau_data.runners.driver import RunPlan, RunSummary, drive, run_benchmark
from vgau_data.runners.instances import Instance, load_instances, parse_shard, resolve_dataset, shard_instances
from vgau_data.runners.messages import Conversation, ImagePart, Message, TextPart, to_hf, to_openai
from vgau_data.runners.protocols import PROTOCOLS, ProtocolConfig, make_episode
from vgau_data.runners.report import write_report

__all__ = [
    "BACKENDS",
    "PROTOCOLS",
    "ChatBackend",
    "Completion",
    "Conversation",
    "GenParams",
    "ImagePart",
    "Instance",
    "Message",
    "ProtocolConfig",
    "RunPlan",
    "RunSummary",
    "TextPart",
    "drive",
    "load_backend",
    "load_instances",
    "make_episode",
    "parse_shard",
    "resolve_dataset",
    "run_benchmark",
    "shard_instances",
    "to_hf",
    "to_openai",
    "write_report",
]
