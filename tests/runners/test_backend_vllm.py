"""vLLM request building (vLLM itself cannot run here: a fake module stands in for it)."""

from __future__ import annotations

import json
import sys
import types
from types import SimpleNamespace
from typing import Any

import pytest
from PIL import Image

from vgau_data.errors import MissingDependencyError
from vgau_data.runners.backends.base import BackendError, GenParams
from vgau_data.runners.backends.vllm import VLLMBackend, sampling_kwargs, to_vllm_messages
from vgau_data.runners.messages import Conversation, assistant, user


def _model_folder(tmp_path):
    (tmp_path / "config.json").write_text(json.dumps({"model_type": "qwen2_5_vl"}))
    (tmp_path / "model.safetensors").write_bytes(b"\0" * 64)
    return tmp_path


def test_to_vllm_messages__images_are_in_memory_pil_parts_in_order() -> None:
    board = Image.new("RGBA", (4, 4), (9, 9, 9, 255))
    converted = to_vllm_messages([user(board, "go"), assistant("up"), user("next", board)])
    assert converted[0]["content"][0]["type"] == "image_pil"
    assert converted[0]["content"][0]["image_pil"].mode == "RGB"
    assert converted[1] == {"role": "assistant", "content": "up"}
    assert [p["type"] for p in converted[2]["content"]] == ["text", "image_pil"]


def test_sampling_kwargs__greedy_is_temperature_zero_and_sampling_keeps_settings() -> None:
    assert sampling_kwargs(GenParams(max_new_tokens=5, seed=3)) == {
        "max_tokens": 5,
        "temperature": 0.0,
        "top_p": 1.0,
        "seed": 3,
    }
    sampled = sampling_kwargs(GenParams(greedy=False, temperature=0.7, top_p=0.9))
    assert (sampled["temperature"], sampled["top_p"], sampled["max_tokens"]) == (0.7, 0.9, 8192)


def test_vllm__missing_package_says_how_to_install(tmp_path, monkeypatch) -> None:
    monkeypatch.setitem(sys.modules, "vllm", None)
    with pytest.raises(MissingDependencyError, match=r"vgau-data\[vllm\]"):
        VLLMBackend(str(_model_folder(tmp_path)))


def test_vllm__not_a_model_folder_is_rejected(tmp_path) -> None:
    with pytest.raises(BackendError, match="config.json"):
        VLLMBackend(str(tmp_path))


def test_vllm__builds_the_engine_and_one_chat_call_per_batch(tmp_path, monkeypatch) -> None:
    calls: dict[str, Any] = {"chat": []}

    class FakeLLM:
        def __init__(self, **kwargs: Any) -> None:
            calls["engine"] = kwargs

        def chat(self, messages: list, params: Any, use_tqdm: bool) -> list:
            calls["chat"].append((messages, params, use_tqdm))
            return [
                SimpleNamespace(
                    prompt_token_ids=[1] * (10 + i),
                    outputs=[SimpleNamespace(text=f"reply {i}", token_ids=[5, 6], finish_reason="stop")],
                )
                for i in range(len(messages))
            ]

    fake = types.ModuleType("vllm")
    fake.LLM = FakeLLM  # type: ignore[attr-defined]
    fake.SamplingParams = lambda **kwargs: kwargs  # type: ignore[attr-defined]
    fake.__version__ = "0.0-fake"  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "vllm", fake)
    folder = _model_folder(tmp_path)
    backend = VLLMBackend(str(folder), tensor_parallel_size=4, limit_images_per_prompt=32, max_model_len=4096)
    assert calls["engine"]["tensor_parallel_size"] == 4
    assert calls["engine"]["limit_mm_per_prompt"] == {"image": 32}
    assert calls["engine"]["max_model_len"] == 4096 and calls["engine"]["model"] == str(folder)
    board = Image.new("RGB", (4, 4))
    conversations = [Conversation((user(board, f"q{i}"),)) for i in range(3)]
    completions = backend.chat(conversations, GenParams(max_new_tokens=7))
    assert len(calls["chat"]) == 1
    messages, params, use_tqdm = calls["chat"][0]
    assert len(messages) == 3 and messages[2][0]["content"][1]["text"] == "q2"
    assert params == {"max_tokens": 7, "temperature": 0.0, "top_p": 1.0, "seed": None}
    assert use_tqdm is False
    assert [c.text for c in completions] == ["reply 0", "reply 1", "reply 2"]
    assert [c.prompt_tokens for c in completions] == [10, 11, 12]
    assert backend.describe()["tensor_parallel_size"] == 4
    assert len(backend.fingerprint()) == 64
