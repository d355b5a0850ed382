"""A ``build_shard`` that logs where each try ran (imported by Ray workers: keep it importable)."""

from __future__ import annotations

import time
from pathlib import Path

from vgau_data.training.shards import ShardResult, ShardTask, build_shard

SLOW_SECONDS = 0.3
"""Each try sleeps first, so a node removed while it holds a task is removed mid-task."""


def log_path(task: ShardTask) -> Path:
    return Path(task.out_dir).parent / "tries.log"


def logged_build_shard(task: ShardTask) -> ShardResult:
    import ray

    node = ray.get_runtime_context().get_node_id()
    with log_path(task).open("a") as log:
        log.write(f"start {task.relative_path} {node}\n")
    time.sleep(SLOW_SECONDS)
    result = build_shard(task)
    with log_path(task).open("a") as log:
        log.write(f"end {task.relative_path} {node}\n")
    return result
