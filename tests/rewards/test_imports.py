"""The reward core and every adapter import nothing heavy: trainers run them in many worker processes.

Pillow included: the family registry they read imports every family's renderer, which
imports Pillow only when it draws (``vgau_data.rewards.images`` needs it, and is not imported).
"""

from __future__ import annotations

import subprocess
import sys

MODULES = ("vgau_data.rewards", "vgau_data.rewards.trl", "vgau_data.rewards.verl", "vgau_data.rewards.openrlhf",
           "vgau_data.rewards.server", "vgau_data.cli.serve_reward")  # fmt: skip
HEAVY = ("torch", "transformers", "datasets", "trl", "verl", "openrlhf", "ray", "pandas", "evaluate", "matplotlib",
         "PIL", "vgau_data.rewards.images", "vgau_data.fidelity", "vgau_data.runners.protocols")  # fmt: skip


def test_reward_modules__import_nothing_heavy() -> None:
    code = "import sys\n" + "".join(f"import {name}\n" for name in MODULES) + (
        f"print(sorted(m for m in {HEAVY!r} if m in sys.modules))"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert result.stdout.strip() == "[]", result.stdout + result.stderr
