"""The scoring modules stay light: no heavy optional dependency is imported with them."""

from __future__ import annotations

import subprocess
import sys

MODULES = ("scoring", "submission", "references", "results", "baselines", "tables", "plots", "space", "leaderboard")
HEAVY = ("torch", "transformers", "evaluate", "datasets", "matplotlib", "pandas")


def test_metrics_modules__import_nothing_heavy() -> None:
    code = (
        "import sys\n"
        + "".join(f"import vgau_data.metrics.{name}\n" for name in MODULES)
        + "import vgau_data.cli.score, vgau_data.cli.baseline, vgau_data.cli.convert, vgau_data.cli.publish_metric\n"
        + "import vgau_data.integrations.convert, vgau_data.integrations.lmms_eval.hooks\n"
        + "import vgau_data.integrations.vlmevalkit.scoring\n"
        + f"print(sorted(m for m in {HEAVY!r} if m in sys.modules))"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert result.stdout.strip() == "[]", result.stdout + result.stderr


def test_the_replay_scorer_and_the_family_registry__import_no_pillow() -> None:
    """Families draw only when asked: parsing, replaying and scoring load no image library."""
    code = "import sys, vgau_data.registry, vgau_data.metrics.scoring; print('PIL' in sys.modules)"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert result.stdout.strip() == "False", result.stdout + result.stderr
