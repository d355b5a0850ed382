"""Fidelity is core code: it and the scripted image generators load no torch."""

from __future__ import annotations

import subprocess
import sys


def test_fidelity__imports_no_torch() -> None:
    code = (
        "import sys, vgau_data.fidelity, vgau_data.oracle_aids.vr, vgau_data.runners.backends.scripted_images,"
        " vgau_data.runners.backends.decoupled;"
        "heavy = [m for m in ('torch', 'transformers', 'diffusers', 'lpips') if m in sys.modules];"
        "print(','.join(heavy))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""
