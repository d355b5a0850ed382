"""A run killed with SIGKILL mid-way and rerun loses nothing, duplicates nothing, and scores the same."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from vgau_data.cli import main

ROOT = Path(__file__).resolve().parents[2]
PROTOCOLS = ("text_cot", "oracle_vcot")


def _episode_lines(out: Path) -> list[dict]:
    lines = []
    for path in sorted(out.glob("*/records/*/run-*.jsonl")):
        for raw in path.read_bytes().split(b"\n")[1:]:
            try:
                lines.append(json.loads(raw))
            except ValueError:
                continue  # empty or torn last line
    return lines


def _results(out: Path) -> dict:
    (model_dir,) = [p for p in out.iterdir() if p.is_dir()]
    ((_, body),) = json.loads((model_dir / "results.json").read_text()).items()
    return {p: (r["optimal_accuracy"], r["feasible_accuracy"], r["n"]) for p, r in body.items() if p != "META"}


def test_kill__sigkill_mid_run_then_rerun_loses_and_duplicates_nothing(
    oracle_server, dataset_dir, instances, tmp_path
) -> None:
    server = oracle_server(delay_s=0.03)
    out = tmp_path / "killed"
    args = [
        "run",
        "--dataset",
        str(dataset_dir),
        "--out",
        str(out),
        "--no-progress",
        "--backend",
        "openai",
        "--base-url",
        server.url,
        "--model",
        "served",
        "--protocol",
        *PROTOCOLS,
        "--batch-size",
        "2",
        "--concurrency",
        "2",
    ]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
    process = subprocess.Popen(
        [sys.executable, "-m", "vgau_data", *args], cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
    )
    deadline = time.monotonic() + 90
    try:
        while len(_episode_lines(out)) < 4:
            assert process.poll() is None, process.stderr.read().decode() if process.stderr else ""
            assert time.monotonic() < deadline, "the run wrote no records in time"
            time.sleep(0.02)
        os.kill(process.pid, signal.SIGKILL)
    finally:
        process.wait(timeout=30)
        if process.stderr:
            process.stderr.close()
    assert process.returncode == -signal.SIGKILL
    total = len(PROTOCOLS) * len(instances)
    before = _episode_lines(out)
    assert 4 <= len(before) < total

    assert main(args) == 0
    after = _episode_lines(out)
    keys = [line["key"] for line in after]
    assert len(keys) == len(set(keys)) == total  # nothing lost, nothing written twice
    assert {line["key"] for line in before} <= set(keys)
    assert not any(line["error"] for line in after)

    fresh = tmp_path / "fresh"
    assert main([*args[:4], str(fresh), *args[5:]]) == 0
    assert _results(out) == _results(fresh)
    outputs = {(line["protocol"], line["id"]): line["output"] for line in after}
    assert outputs == {(line["protocol"], line["id"]): line["output"] for line in _episode_lines(fresh)}
