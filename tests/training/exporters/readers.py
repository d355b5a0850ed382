"""Running a consumer's own reader on an export, and the fixtures of what it read.

A ``*_reader.py`` script runs in the consumer's venv (named by an environment variable,
installed by ``.ci/run``; see ``tests/external.py``) and writes JSON. Its output for the
fixed training rows is kept in ``tests/data/training_consumers/``: a test compares a live
run with it, and without the tool still checks the export against what the tool read last
time. ``VGAU_RECORD_CONSUMER_FIXTURES=1`` rewrites the fixture from a live run.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

from tests.external import require_tool

HERE = Path(__file__).parent
FIXTURES = HERE.parents[1] / "data" / "training_consumers"
INSTALL = {
    "VGAU_LLAMAFACTORY_PYTHON": (
        "python3 -m venv V && V/bin/pip install torch==2.13.0 llamafactory==0.9.5 "
        "&& V/bin/pip uninstall -y torchvision torchaudio; export VGAU_LLAMAFACTORY_PYTHON=V/bin/python"
    ),
    "VGAU_VERL_PYTHON": (
        "python3 -m venv V && V/bin/pip install torch==2.13.0 verl==0.9.1 qwen-vl-utils; "
        "export VGAU_VERL_PYTHON=V/bin/python"
    ),
    "VGAU_OPENRLHF_PYTHON": (
        "python3 -m venv V && V/bin/pip install torch==2.13.0 datasets transformers pillow tqdm pylatexenc aiohttp==3.14.5 "
        "&& V/bin/pip install --no-deps openrlhf==0.11.2; export VGAU_OPENRLHF_PYTHON=V/bin/python"
    ),
}


def run_reader(env_var: str, script: str, out_json: Path, *args: str | Path) -> dict[str, Any]:
    """Run ``script`` with the consumer's python (skip locally, fail under CI, when it is missing)."""
    python = require_tool(env_var, install=INSTALL[env_var])
    result = subprocess.run(
        [python, str(HERE / script), str(out_json), *map(str, args)],
        capture_output=True, text=True, timeout=600, check=False,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr[-3000:]
    return json.loads(out_json.read_text(encoding="utf-8"))


def fixture(name: str, live: dict[str, Any] | None = None) -> dict[str, Any]:
    """The recorded reader output ``name``; with ``live``, check it equals the record (or record it)."""
    path = FIXTURES / f"{name}.json"
    if live is not None and os.environ.get("VGAU_RECORD_CONSUMER_FIXTURES") == "1":
        path.write_text(json.dumps(live, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    recorded = json.loads(path.read_text(encoding="utf-8"))
    if live is not None:
        assert live == recorded, f"{name}: the consumer now reads the export differently from {path}"
    return recorded
