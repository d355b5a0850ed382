"""OpenRLHF adapter: the ``reward_func`` file ``--reward.remote_url`` loads, and the payload of its HTTP reward.

OpenRLHF (0.11) imports a ``.py`` file given as ``--reward.remote_url`` and calls
``reward_func(queries, prompts, labels)`` with lists: ``queries`` are prompt + response
decoded with special tokens kept (so the chat template and the prompt come first),
``prompts`` the templated prompts and ``labels`` the ``--data.label_key`` column. It reads
``rewards``, ``scores`` and ``extra_logs`` back. Given a URL instead, it POSTs
``{"query": [...], "prompts": [...], "labels": [...]}`` and reads the same keys from the
JSON reply: ``vgau-data serve-reward`` answers that (``vgau_data.rewards.server``).

A label is the ``{"ground_truth", "family", "optimal_length"}`` JSON string of ``vgau-data
export-training --format openrlhf`` (the optimum given: no state is solved), the row's state
JSON (``--data.label_key state``), a reference JSON (docs/contract/records.md), or a mapping
with ``ground_truth`` or ``state`` (verl rows read with ``--data.label_key reward_model``);
without a family the family is found from the state. The reward kind is ``optimal``
unless the environment variable ``VGAU_REWARD_KIND`` names another.

Usage::

    --reward.remote_url $(python -c "import vgau_data.rewards.openrlhf as m; print(m.__file__)")
"""

from __future__ import annotations

import functools
import json
import os
from collections.abc import Mapping, Sequence
from typing import Any

from vgau_data.rewards import REWARD_KINDS, RewardError, Score, get_kind, score

KIND_VARIABLE = "VGAU_REWARD_KIND"
"""Environment variable choosing the reward kind of ``reward_func`` (default ``optimal``)."""
PROMPT_TAIL_CHARS: tuple[int, ...] = (512, 128, 32)
"""Suffix lengths of the prompt looked for in a query whose start is not the prompt (VLM
queries carry each image's expanded placeholder tokens where the prompt has one)."""
LOGGED: tuple[str, ...] = ("parsed", "feasible", "optimal")


def response_text(query: object, prompt: object) -> str:
    """The response part of an OpenRLHF query (prompt + response, special tokens kept).

    The prompt is cut off when the query starts with it; otherwise at the last place a
    long enough tail of the prompt occurs (image placeholders expand inside the query).
    A query in which no tail of the prompt occurs is taken whole.

    Example:
        >>> response_text("<|im_start|>user\\nQ<|im_end|>\\n<|im_start|>assistant\\nA<|im_end|>",
        ...               "<|im_start|>user\\nQ<|im_end|>\\n<|im_start|>assistant\\n")
        'A<|im_end|>'
    """
    if not isinstance(query, str):
        return ""
    if not isinstance(prompt, str) or not prompt:
        return query
    if query.startswith(prompt):
        return query[len(prompt) :]
    for size in PROMPT_TAIL_CHARS:
        tail = prompt[-size:]
        at = query.rfind(tail)
        if at >= 0:
            return query[at + len(tail) :]
    return query


def read_label(label: object) -> tuple[str, str | None, int | None]:
    """``(ground truth, family or None, optimal_length or None)`` from an OpenRLHF label.

    Example:
        >>> read_label({"style": "rule", "ground_truth": "{}"})
        ('{}', None, None)
    """
    if isinstance(label, str):
        return _read_label_text(label)
    return _read_label_mapping(label)


@functools.lru_cache(maxsize=4096)
def _read_label_text(label: str) -> tuple[str, str | None, int | None]:
    """``read_label`` of a string, cached: a prompt's samples share one label, parsed once."""
    text = label.strip()
    if not (text.startswith("{") and '"ground_truth"' in text):  # our export's label, or a verl reward_model, serialised
        return label, None, None
    try:
        parsed = json.loads(text)
    except (ValueError, RecursionError):
        return label, None, None
    return _read_label_mapping(parsed)


def _read_label_mapping(label: object) -> tuple[str, str | None, int | None]:
    if isinstance(label, Mapping):
        truth = label.get("ground_truth", label.get("state"))
        if isinstance(truth, str):
            family = label.get("family", label.get("task"))
            optimum = label.get("optimal_length")
            return truth, family if isinstance(family, str) else None, optimum if isinstance(optimum, int) else None
    raise RewardError(f"an OpenRLHF label must be a state JSON or a mapping with 'ground_truth', got {type(label).__name__}")


def score_queries(
    queries: Sequence[object], prompts: Sequence[object], labels: Sequence[object], kind: str = "optimal"
) -> tuple[list[float], list[Score]]:
    """The ``kind`` reward and the ``Score`` of each query against its label."""
    if not len(queries) == len(prompts) == len(labels):
        raise RewardError(f"{len(queries)} queries, {len(prompts)} prompts and {len(labels)} labels: one each per sample")
    chosen = get_kind(kind)
    records = []
    for query, prompt, label in zip(queries, prompts, labels):
        truth, family, optimum = read_label(label)
        records.append(score(response_text(query, prompt), truth, family=family, optimal_length=optimum,
                             progress=chosen.needs_progress))  # fmt: skip
    return [chosen(record) for record in records], records


def reward_payload(
    queries: Sequence[object], prompts: Sequence[object], labels: Sequence[object], kind: str = "optimal"
) -> dict[str, Any]:
    """The JSON reply of the HTTP reward: ``rewards``, ``scores`` (the same) and per-sample ``extra_logs``."""
    rewards, records = score_queries(queries, prompts, labels, kind)
    logs = {f"vgau_{field}": [float(getattr(record, field)) for record in records] for field in LOGGED}
    return {"rewards": rewards, "scores": rewards, "extra_logs": logs}


def reward_func(queries: Sequence[object], prompts: Sequence[object], labels: Sequence[object], **kwargs: Any) -> dict[str, Any]:
    """OpenRLHF's custom reward function: tensors when torch is there (as OpenRLHF's examples return), else lists."""
    kind = os.environ.get(KIND_VARIABLE, "optimal")
    if kind not in REWARD_KINDS:
        raise RewardError(f"{KIND_VARIABLE}={kind!r} is not a reward kind; choose from {', '.join(REWARD_KINDS)}")
    payload = reward_payload(queries, prompts, labels, kind)
    try:
        import torch
    except ImportError:
        return payload
    as_tensor = lambda values: torch.tensor(values, dtype=torch.float)  # noqa: E731
    return {
        "rewards": as_tensor(payload["rewards"]),
        "scores": as_tensor(payload["scores"]),
        "extra_logs": {key: as_tensor(values) for key, values in payload["extra_logs"].items()},
    }
