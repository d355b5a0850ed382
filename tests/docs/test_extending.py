"""The examples of "Adding a protocol" and "Adding a backend" work as the pages say.

Each example module is copied from its page into a scratch folder and used from a fresh
interpreter (registering a protocol or a backend must not leak into the other tests):
its page's commands parse with it added, and ``vgau-data run`` plays it end to end.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

from tests.docs.conftest import Written
from tests.docs.pages import ROOT, page, titled_block, vgau_commands

PARSE_PAGE_COMMANDS = """
import shlex
from vgau_data.cli import build_parser
for command in {commands!r}:
    build_parser().parse_args(shlex.split(command)[1:])
"""


def run_python(script: str, cwd: Path) -> None:
    """Run ``script`` in a fresh interpreter that imports modules from ``cwd``; fail with its stderr."""
    result = subprocess.run(
        [sys.executable, "-c", f"import sys; sys.path[:0] = [{str(cwd)!r}, {str(ROOT)!r}]\n{script}"],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stderr[-3000:]


def records(out: Path, variant: str) -> list[dict]:
    (path,) = out.glob(f"*/records/{variant}/run-0.jsonl")
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_adding_a_protocol__the_example_runs_through_vgau_data_run(written: Written, tmp_path: Path) -> None:
    text = page("adding-a-protocol.md")
    (tmp_path / "recheck.py").write_text(titled_block(text, "vgau_data/runners/protocols/recheck.py"))
    entry = titled_block(text, "vgau_data/protocols.py").strip().rstrip(",")
    out = tmp_path / "runs"
    run = ["run", "--backend", "scripted", "--model", "oracle", "--protocol", "text_cot_recheck"]
    script = "from vgau_data import protocols\n"
    script += f"info = protocols.{entry}\nprotocols._PROTOCOLS[info.name] = info  # the page's line of the table\n"
    script += "import recheck\n" + PARSE_PAGE_COMMANDS.format(commands=vgau_commands(text))
    script += textwrap.dedent(f"""
        from vgau_data.cli import main
        from vgau_data.runners.protocols import protocol_names
        assert protocol_names()[:3] == ["direct", "text_cot", "text_cot_recheck"], protocol_names()
        raise SystemExit(main({[*run, "--dataset", str(written.dataset), "--out", str(out), "--no-progress"]!r}))
    """)
    run_python(script, tmp_path)
    header, episode = records(out, "text_cot_recheck")
    assert header["protocol"]["name"] == "text_cot_recheck"
    assert [turn["asks"] for turn in episode["turns"]] == ["answer", "answer"]
    assert episode["verdict"]["optimal"] and episode["end"] == "answered"
    (results,) = out.glob("*/results.json")
    (model,) = json.loads(results.read_text()).values()
    assert model["text_cot_recheck"]["optimal_accuracy"] == 1.0


def test_adding_a_backend__the_example_runs_through_vgau_data_run(written: Written, tmp_path: Path) -> None:
    text = page("adding-a-backend.md")
    (tmp_path / "callable_model.py").write_text(titled_block(text, "vgau_data/runners/backends/callable_model.py"))
    (tmp_path / "my_agent.py").write_text(
        textwrap.dedent("""
        def answer(messages, max_new_tokens):
            assert max_new_tokens == 8192 and messages[1]["role"] == "user"
            return messages[0]["content"] + ' <ANSWER_JSON>["up"]</ANSWER_JSON>'

        def broken(messages, max_new_tokens):
            raise RuntimeError("the agent is down")
        """)
    )
    register = textwrap.dedent("""
        from types import MappingProxyType
        import vgau_data.runners.backends as backends
        backends.BACKENDS = MappingProxyType({**backends.BACKENDS, "callable": "callable_model:CallableBackend"})
    """)
    common = ["--backend", "callable", "--protocol", "direct", "--dataset", str(written.dataset), "--no-progress"]
    good = [
        "run",
        "--model",
        "my_agent:answer",
        "--backend-arg",
        "system=Answer briefly.",
        "--out",
        str(tmp_path / "a"),
    ]
    bad = ["run", "--model", "my_agent:broken", "--out", str(tmp_path / "b")]
    script = register + PARSE_PAGE_COMMANDS.format(commands=vgau_commands(text))
    script += textwrap.dedent(f"""
        from vgau_data.cli import main
        assert main({[*good, *common]!r}) == 0
        assert main({[*bad, *common]!r}) == 1  # the failed requests are recorded, to retry
    """)
    run_python(script, tmp_path)
    header, episode = records(tmp_path / "a", "direct")
    assert header["backend_name"] == "callable"
    assert header["backend"] == {"backend": "callable", "model": "my_agent:answer", "system": "Answer briefly."}
    assert episode["output"] == 'Answer briefly. <ANSWER_JSON>["up"]</ANSWER_JSON>' and episode["verdict"]["parsed"]
    _, failed = records(tmp_path / "b", "direct")
    assert failed["error"] == "RuntimeError: the agent is down" and failed["output"] is None
