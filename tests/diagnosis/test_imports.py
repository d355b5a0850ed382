"""The diagnosis modules stay light: torch only with an LPIPS scorer, matplotlib only when plotting."""

from __future__ import annotations

import subprocess
import sys

MODULES = ("conditions", "fidelity_cache", "collect", "grid", "tables", "paired", "figure")
HEAVY = ("torch", "transformers", "matplotlib", "datasets", "pandas")


def test_diagnosis_modules__import_nothing_heavy() -> None:
    code = (
        "import sys\n"
        + "".join(f"import vgau_data.diagnosis.{name}\n" for name in MODULES)
        + "import vgau_data.cli.diagnose\n"
        + f"print(sorted(m for m in {HEAVY!r} if m in sys.modules))"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert result.stdout.strip() == "[]", result.stdout + result.stderr
