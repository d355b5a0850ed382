"""The generated metric Space boots on the card's gradio, in a venv installed from its requirements, and scores.

``$VGAU_SPACE_PYTHON`` is that venv (``.ci/run`` makes it: this checkout, then
``gradio==<sdk_version>`` and the metric's ``requirements.txt``, under today's setuptools).
The app is started as Spaces start it (``python app.py``) on loopback and called on
gradio's HTTP API, ``POST /gradio_api/call/compute`` then ``GET .../<event_id>``.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import time
import urllib.request

import pytest

from tests.external import require_tool
from vgau_data.metrics.baselines import oracle_output
from vgau_data.metrics.references import ReferenceSet
from vgau_data.metrics.space import GRADIO_VERSION, write_metric_space

INSTALL = (
    "python3 -m venv .venv-ci-space && .venv-ci-space/bin/python -m pip install . && .venv-ci-space/bin/python -m pip "
    'install "gradio==$(sed -n "s/^sdk_version: //p" vgau_data/metrics/solver_accuracy/README.md)" '
    "-r vgau_data/metrics/solver_accuracy/requirements.txt"
)
SATISFIED = """
import sys
from importlib.metadata import version
from packaging.requirements import Requirement
for line in open(sys.argv[1], encoding="utf-8"):
    requirement = Requirement(line.strip())
    assert requirement.specifier.contains(version(requirement.name), prereleases=True), (line, version(requirement.name))
print(version("gradio"))
"""


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _call(url: str, payload: object) -> str:
    """One call of gradio's two-step HTTP API: the event id, then the event stream of its result."""
    request = urllib.request.Request(
        url, json.dumps({"data": [payload]}).encode(), {"Content-Type": "application/json"}
    )
    with urllib.request.urlopen(request, timeout=60) as reply:
        event_id = json.load(reply)["event_id"]
    with urllib.request.urlopen(f"{url}/{event_id}", timeout=120) as reply:
        return reply.read(1_000_000).decode()


@pytest.fixture(scope="module")
def space_app(tmp_path_factory: pytest.TempPathFactory):
    python = require_tool("VGAU_SPACE_PYTHON", install=INSTALL)
    folder = tmp_path_factory.mktemp("space") / "solver_accuracy"
    write_metric_space(folder, requirement="vgau-data")
    installed = subprocess.run([python, "-c", SATISFIED, str(folder / "requirements.txt")],
                               capture_output=True, text=True, timeout=120, check=False)  # fmt: skip
    assert installed.returncode == 0, installed.stderr[-2000:]
    assert installed.stdout.strip() == GRADIO_VERSION  # the card's sdk_version, as a Space installs it
    port = _free_port()
    env = {**os.environ, "GRADIO_SERVER_NAME": "127.0.0.1", "GRADIO_SERVER_PORT": str(port),
           "GRADIO_ANALYTICS_ENABLED": "False", "HF_HUB_OFFLINE": "1", "PYTHONPATH": ""}  # fmt: skip
    log = folder.parent / "app.log"
    with log.open("w") as sink:
        app = subprocess.Popen([python, "app.py"], cwd=folder, env=env, stdout=sink, stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + 180
        while "Running on local URL" not in log.read_text(errors="replace"):
            assert app.poll() is None, f"app.py exited {app.returncode}: {log.read_text(errors='replace')[-3000:]}"
            assert time.monotonic() < deadline, (
                f"app.py did not start in 180 s: {log.read_text(errors='replace')[-3000:]}"
            )
            time.sleep(0.5)
        yield f"http://127.0.0.1:{port}/gradio_api/call/compute"
    finally:
        app.terminate()
        app.wait(timeout=30)


def test_space__boots_and_scores_a_table_on_loopback(space_app: str, references: ReferenceSet) -> None:
    row = references.rows[0]
    table = {"headers": ["prediction", "reference"],
             "data": [[oracle_output(row), row.reference_json()], ["no answer here", row.reference_json()]]}  # fmt: skip
    reply = _call(space_app, table)
    assert reply.startswith("event: complete"), reply[:500]
    (result,) = json.loads(reply.split("data:", 1)[1])
    assert (result["n"], result["optimal_accuracy"], result["errors"]) == (2, 0.5, {"no_answer": 1})
    assert result["per_family"][row.task]["n"] == 2


def test_space__an_empty_table_is_an_error_event_not_a_crash(space_app: str) -> None:
    reply = _call(space_app, {"headers": ["prediction", "reference"], "data": [["", ""]]})
    assert reply.startswith("event: error"), reply[:500]
    assert "at least one row" in reply
