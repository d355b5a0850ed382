"""The scripted backend, the backend table and import hygiene."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from vgau_data.runners.backends import BACKENDS, backend_class, load_backend
from vgau_data.runners.backends.base import BackendError, ChatBackend, Completion, GenParams
from vgau_data.runners.backends.scripted import ScriptedBackend
from vgau_data.runners.messages import Conversation, user


def test_scripted__answers_each_conversation_in_order_and_counts_calls() -> None:
    backend = ScriptedBackend(lambda conv: conv.messages[0].text.upper(), policy="upper")
    completions = backend.chat([Conversation((user("a"),)), Conversation((user("b"),))], GenParams())
    assert [c.text for c in completions] == ["A", "B"]
    assert backend.calls == 1
    assert isinstance(backend, ChatBackend)


def test_scripted__a_script_may_return_an_error_completion() -> None:
    backend = ScriptedBackend(lambda conv: Completion(error="boom"), policy="broken")
    assert backend.chat([Conversation((user("a"),))], GenParams())[0].error == "boom"


def test_scripted__fingerprint_follows_the_policy_name() -> None:
    assert ScriptedBackend(str, policy="a").fingerprint() == ScriptedBackend(repr, policy="a").fingerprint()
    assert ScriptedBackend(str, policy="a").fingerprint() != ScriptedBackend(str, policy="b").fingerprint()


def test_scripted__rejects_non_callables_and_bad_returns() -> None:
    with pytest.raises(BackendError):
        ScriptedBackend("oracle")  # type: ignore[arg-type]
    with pytest.raises(BackendError, match="must return str"):
        bad = ScriptedBackend(lambda conv: 3, policy="bad")  # type: ignore[arg-type,return-value]
        bad.chat([Conversation((user("a"),))], GenParams())


def test_backend_table__names_every_backend_and_rejects_unknown_ones() -> None:
    assert set(BACKENDS) == {
        "hf", "vllm", "openai", "scripted", "scripted-image", "pair", "janus", "diffusers", "openai-image", "bagel",
        "omnigen2", "showo2", "llada2-uni", "longcat-next", "mammothmoda2", "star",
    }
    assert backend_class("scripted") is ScriptedBackend
    assert load_backend("scripted", fn=str, policy="x").name == "scripted"
    with pytest.raises(BackendError, match="unknown backend"):
        backend_class("tgi")


def test_gen_params__validate_their_values() -> None:
    with pytest.raises(ValueError):
        GenParams(max_new_tokens=0)
    with pytest.raises(ValueError):
        GenParams(top_p=0)
    assert GenParams().max_new_tokens == 8192 and GenParams().greedy


def test_import__runners_and_the_run_command_do_not_import_torch_transformers_or_vllm() -> None:
    code = (
        "import sys, vgau_data.runners, vgau_data.runners.backends.openai_compat;"
        "import vgau_data.cli.run, vgau_data.cli.merge;"
        "from vgau_data.runners.backends import backend_class; backend_class('openai'); backend_class('scripted');"
        "heavy = [m for m in ('torch', 'transformers', 'vllm') if m in sys.modules];"
        "print(heavy); sys.exit(bool(heavy))"
    )
    root = Path(__file__).resolve().parents[2]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(root), os.environ.get("PYTHONPATH")]))}
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, cwd=root, env=env, check=False
    )
    assert result.returncode == 0, result.stdout + result.stderr
