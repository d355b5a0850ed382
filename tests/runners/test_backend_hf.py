"""The transformers backend on tiny random Qwen VLMs built in the test and loaded with from_pretrained."""

from __future__ import annotations

import importlib.util

import pytest
from PIL import Image

from vgau_data.runners.backends.base import BackendError, GenParams
from vgau_data.runners.backends.hf import HFBackend, load_processor
from vgau_data.runners.messages import Conversation, assistant, user

pytest.importorskip("transformers")

GEN = GenParams(max_new_tokens=8)


def _conversations() -> list[Conversation]:
    red = Image.new("RGB", (112, 112), (200, 10, 10))
    green = Image.new("RGB", (84, 140), (0, 120, 0))
    striped = Image.new("RGB", (140, 84), (0, 0, 0))
    striped.paste((250, 250, 250), (0, 0, 70, 84))
    return [
        Conversation((user(red, "maze board: give one step"),)),
        Conversation((user(red, "hello"), assistant("up"), user("moved", green, "left right down"))),
        Conversation((user(striped, "a much longer question about the klotski board and its blocks"),)),
    ]


@pytest.mark.parametrize("kind", ["qwen2_vl", "qwen2_5_vl", "qwen3_vl"])
def test_hf__batch_of_n_equals_n_batches_of_one(kind: str, tiny_model_dirs) -> None:
    backend = HFBackend(str(tiny_model_dirs(kind)), device="cpu")
    conversations = _conversations()
    batched = backend.chat(conversations, GEN)
    singles = [backend.chat([conversation], GEN)[0] for conversation in conversations]
    assert [c.text for c in batched] == [c.text for c in singles]
    assert [c.prompt_tokens for c in batched] == [c.prompt_tokens for c in singles]
    assert len({c.prompt_tokens for c in batched}) == 3  # left padding really happened
    assert all(c.completion_tokens is not None and 1 <= c.completion_tokens <= GEN.max_new_tokens for c in batched)
    assert backend.tokenizer.padding_side == "left"
    info = backend.describe()
    assert info["model_type"] == kind and info["backend"] == "hf" and info["dtype"] == "torch.float32"
    assert len(info["chat_template_sha256"]) == 64


def test_hf__greedy_generation_is_repeatable_and_fingerprint_is_stable(tiny_model_dirs) -> None:
    folder = tiny_model_dirs("qwen2_5_vl")
    first, second = HFBackend(str(folder)), HFBackend(str(folder))
    conversation = _conversations()[:1]
    assert first.chat(conversation, GEN)[0].text == second.chat(conversation, GEN)[0].text
    assert first.fingerprint() == second.fingerprint()
    other = HFBackend(str(tiny_model_dirs("qwen2_vl")))
    assert other.fingerprint() != first.fingerprint()


def test_hf__fingerprint_changes_with_the_weights(tmp_path) -> None:
    from vgau_data.testing.tiny_models import build_tiny_vlm

    a = HFBackend(str(build_tiny_vlm("qwen2_vl", tmp_path / "a", seed=1)))
    b = HFBackend(str(build_tiny_vlm("qwen2_vl", tmp_path / "b", seed=2)))
    assert a.fingerprint() != b.fingerprint()


def test_hf__qwen3_5_loads_and_generates(tiny_model_dirs) -> None:
    backend = HFBackend(str(tiny_model_dirs("qwen3_5")))
    (completion,) = backend.chat(_conversations()[:1], GenParams(max_new_tokens=4))
    assert backend.describe()["model_type"] == "qwen3_5"
    assert completion.ok and completion.completion_tokens is not None and completion.completion_tokens <= 4


def test_hf__a_reply_model_answers_its_reply_through_the_real_generate_path(tiny_model_dirs) -> None:
    reply = '<ANSWER_JSON>["up"]</ANSWER_JSON>'
    backend = HFBackend(str(tiny_model_dirs("qwen2_5_vl", reply=reply)))
    completions = backend.chat(_conversations(), GEN)
    assert [c.text for c in completions] == [reply] * 3
    assert all(c.finish_reason == "stop" and c.completion_tokens == 2 for c in completions)


def test_hf__processor_falls_back_to_tokenizer_and_image_processor(tiny_model_dirs, monkeypatch) -> None:
    import transformers

    def no_torchvision(*args: object, **kwargs: object) -> None:
        raise ImportError("Qwen2VLVideoProcessor requires the Torchvision library")

    monkeypatch.setattr(transformers.AutoProcessor, "from_pretrained", no_torchvision)
    processor, kind = load_processor(tiny_model_dirs("qwen2_vl"))
    assert kind == "fallback"
    assert type(processor).__name__ == "ImageOnlyQwen2VLProcessor"
    assert processor.chat_template and "<|image_pad|>" in processor.chat_template


def test_hf__stock_processor_is_used_when_torchvision_is_installed(tiny_model_dirs) -> None:
    _, kind = load_processor(tiny_model_dirs("qwen2_vl"))
    assert kind == ("auto" if importlib.util.find_spec("torchvision") else "fallback")


def test_hf__rejects_a_path_that_is_not_a_model_folder(tmp_path) -> None:
    with pytest.raises(BackendError, match="config.json"):
        HFBackend(str(tmp_path))
    with pytest.raises(BackendError, match="dtype"):
        (tmp_path / "config.json").write_text("{}")
        HFBackend(str(tmp_path), dtype="float8")
