"""The OmniGen2 adapter against a stand-in checkout that mimics its pipeline (commit 0f72fa9)."""

from __future__ import annotations

import sys

import pytest
from PIL import Image

from tests.runners.fake_checkouts import omnigen2 as fake
from vgau_data.runners.backends import BackendError, GenParams, ImageRequest, capabilities_of, load_backend
from vgau_data.runners.backends.omnigen2 import flatten
from vgau_data.runners.messages import Conversation, assistant, user


@pytest.fixture
def checkout(tmp_path, monkeypatch):
    monkeypatch.setattr(sys, "path", list(sys.path))
    yield fake.write(tmp_path / "OmniGen2"), fake.write_checkpoint(tmp_path / "ckpt")
    for name in [m for m in sys.modules if m.split(".")[0] == "omnigen2"]:
        del sys.modules[name]


def test_omnigen2__answers_with_the_run_budget_and_always_draws(checkout) -> None:
    repo, checkpoint = checkout
    model = load_backend("omnigen2", model=str(checkpoint), repo=str(repo), device="cpu", num_inference_steps=4)
    calls = sys.modules["omnigen2.pipelines.omnigen2.pipeline_omnigen2_chat"].CALLS
    assert calls[0] == ("from_pretrained", str(checkpoint), "torch.bfloat16", True)
    assert model.pipeline.transformer.source == (str(checkpoint), "transformer")
    assert capabilities_of(model) == {"chat", "image_edit"}

    board = Image.new("RGB", (30, 20))
    conversation = Conversation((user(board, "Solve the maze."), assistant("Thinking.")))
    answer = model.chat([conversation], GenParams(max_new_tokens=99))[0]
    assert answer.text == "up" and answer.completion_tokens == 2
    assert ("mllm.generate", ["<|im_end|>", "<|img|>", "<|endoftext|>"], 99, False) in calls
    assert ("inputs", "<user><img1>Solve the maze.\n\nThinking.<assistant>", 1, "cpu") in calls

    request = ImageRequest(session_id="maze-easy-0000/self_gta/run0", purpose="aid", instruction="Add a red grid.",
                           images=(board,), conversation=conversation)  # fmt: skip
    made = model.generate([request], GenParams())[0]
    assert made.ok and made.image.size == (30, 20)
    name, prompt, n_images, settings = calls[-1]
    assert name == "generate_image" and n_images == 1
    assert prompt == "<user><img1>Solve the maze.\n\nThinking.\n\nAdd a red grid.<assistant>"
    assert settings["num_inference_steps"] == 4 and settings["image_guidance_scale"] == 2.0


def test_omnigen2__flatten_keeps_order() -> None:
    a, b = Image.new("RGB", (2, 2)), Image.new("RGB", (3, 3))
    text, images = flatten(Conversation((user(a, "one"), assistant("two"), user(b))).messages)
    assert text == "one\n\ntwo" and images == [a, b]


def test_omnigen2__names_what_is_missing(checkout, tmp_path) -> None:
    repo, checkpoint = checkout
    with pytest.raises(BackendError, match="missing model_index.json, transformer"):
        load_backend("omnigen2", model=str(tmp_path / "nothing"), repo=str(repo))
    with pytest.raises(BackendError, match="not a checkout of VectorSpaceLab/OmniGen2"):
        load_backend("omnigen2", model=str(checkpoint), repo=str(tmp_path))
    with pytest.raises(BackendError, match="dtype must be one of"):
        load_backend("omnigen2", model=str(checkpoint), repo=str(repo), dtype="int8")
