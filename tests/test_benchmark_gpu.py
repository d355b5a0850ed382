"""``benchmarks/gpu.py --dry-run``: the GPU plan prints and checks itself on a machine without one."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CHECKOUT_ADAPTERS = ("showo2", "llada2-uni", "star", "mammothmoda2", "omnigen2", "bagel", "longcat-next")


def test_gpu_benchmark__dry_run_prints_the_plan() -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "CUDA_VISIBLE_DEVICES": ""}
    done = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "gpu.py"), "--dry-run", "--out", "figures.json"],
                          capture_output=True, text=True, timeout=120, env=env, cwd=ROOT, check=False)  # fmt: skip
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    cases = {(line.split()[0], line.split()[2]) for line in lines[:-1]}
    assert {("hf", "cuda"), ("hf", "cpu"), ("vllm", "cuda"), ("janus", "cuda"), ("diffusers", "cuda")} <= cases
    assert {f"stand-in:{name}" for name in CHECKOUT_ADAPTERS} <= {name for name, _ in cases}
    assert all("self_gta self_vcot self_vr" in line for line in lines if line.startswith("stand-in:"))
    assert lines[-1].startswith(f"{len(lines) - 1} cases") and lines[-1].endswith("figures to figures.json")
    assert not (ROOT / "figures.json").exists(), "a dry run writes nothing"
