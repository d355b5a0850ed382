"""The LLaDA2.0-Uni adapter against a stand-in checkout and remote-code checkpoint (README at 11c1155)."""

from __future__ import annotations

import sys

import pytest
from PIL import Image

from tests.runners.checkout_runs import run_drawing_protocols
from tests.runners.fake_checkouts import FakeTransformers
from tests.runners.fake_checkouts import llada2_uni as fake
from vgau_data.runners.backends import BackendError, GenParams, ImageRequest, capabilities_of, load_backend
from vgau_data.runners.backends.base import image_limit
from vgau_data.runners.messages import Conversation, assistant, user

CHECKOUT_MODULES = ("encoder", "decoder")


@pytest.fixture
def checkout(tmp_path, monkeypatch):
    """A fake checkout and checkpoint, and transformers' Auto classes; sys.path and modules restored."""
    monkeypatch.setattr(sys, "path", list(sys.path))
    for name in [m for m in sys.modules if m.split(".")[0] in CHECKOUT_MODULES]:
        monkeypatch.delitem(sys.modules, name)
    transformers = FakeTransformers()
    monkeypatch.setitem(sys.modules, "transformers", transformers)
    yield fake.write(tmp_path / "LLaDA2.0-Uni"), fake.write_checkpoint(tmp_path / "LLaDA2.0-Uni-ckpt"), transformers
    for name in [m for m in sys.modules if m.split(".")[0] in CHECKOUT_MODULES]:
        del sys.modules[name]


def _load(repo, checkpoint, **options):
    return load_backend("llada2-uni", model=str(checkpoint), repo=str(repo), device="cpu", **options)


def _model_calls(model) -> list:
    return model.model.understand_image.__globals__["CALLS"]  # the remote code's module, loaded from its file


def test_llada2_uni__loads_as_the_readme_and_answers_about_the_last_image(checkout) -> None:
    repo, checkpoint, transformers = checkout
    model = _load(repo, checkpoint)
    assert capabilities_of(model) == {"chat", "image_edit"} and image_limit(model) == 1
    kinds = [(kind, folder, trusted) for kind, folder, trusted, _ in transformers.CALLS]
    assert kinds == [("AutoTokenizer", str(checkpoint), True), ("AutoModelForCausalLM", str(checkpoint), True)]
    assert transformers.CALLS[1][3]["device_map"] == {"": "cpu"}
    assert sys.modules["encoder.image_tokenizer"].CALLS[0] == ("ImageTokenizer", str(checkpoint), "cpu", "torch.bfloat16")

    black, white = Image.new("RGB", (40, 40), (0, 0, 0)), Image.new("RGB", (40, 40), (255, 255, 255))
    conversation = Conversation((user(black, "Solve the maze."), assistant("Drawn."), user(white, "Answer now.")))
    answer = model.chat([conversation], GenParams(max_new_tokens=40))[0]
    assert answer.ok and answer.text == fake.REPLY
    _, tokens, h, w, question, steps, block, budget = _model_calls(model)[-1]
    assert (h, w) == (2, 2) and tokens == [fake.OFFSET + 255] * 4, "the last (white) image, shifted by the offset"
    assert question == "Solve the maze.\n\nDrawn.\n\nAnswer now."
    assert (steps, block, budget) == (32, 32, 64), "the budget rounded up to whole blocks"
    assert sys.modules["decoder.smart_img_process"].CALLS[-1][1][0].endswith("image.png"), "resized from a file"
    alone = model.chat([Conversation((user("No image."),))], GenParams())[0]
    assert not alone.ok and "needs an image" in alone.error


def test_llada2_uni__edits_the_board_with_the_scripts_settings(checkout) -> None:
    repo, checkpoint, _ = checkout
    model = _load(repo, checkpoint, decode_mode="decoder-turbo", decoder_steps=8)
    board = Image.new("RGB", (30, 30), (255, 255, 255))
    conversation = Conversation((user(board, "Solve it."), assistant("Grid first.")))
    request = ImageRequest(session_id="maze-easy-0000/self_gta/run0", purpose="aid", instruction="Add a red grid.",
                           images=(board,), conversation=conversation)  # fmt: skip
    made = model.generate([request], GenParams())[0]
    assert made.ok and made.image.size == (96, 64)
    name, _, h, w, instruction, *settings = _model_calls(model)[-1]
    assert name == "edit_image" and (h, w) == (2, 3) and instruction == "Solve it.\n\nGrid first.\n\nAdd a red grid."
    assert settings == [8, 32, 4.0, 0.0]
    decoded = sys.modules["decoder"].CALLS[-1]
    assert decoded[1] == [255] * 6, "the offset is removed before decoding, as image_edit.py does"
    assert decoded[4:] == (str(checkpoint), 2, 8, "decoder-turbo")
    nothing = ImageRequest(session_id="s", purpose="aid", instruction="Draw.")
    assert "has none" in model.generate([nothing], GenParams())[0].error


def test_llada2_uni__names_what_is_missing(checkout, tmp_path) -> None:
    repo, checkpoint, _ = checkout
    with pytest.raises(BackendError, match="not a LLaDA2.0-Uni checkpoint folder: missing config.json, image_tokenizer"):
        _load(repo, tmp_path / "nothing")
    with pytest.raises(BackendError, match="not a checkout of inclusionAI/LLaDA2.0-Uni: missing encoder/image_tokenizer.py"):
        _load(tmp_path, checkpoint)
    with pytest.raises(BackendError, match="decode_mode must be"):
        _load(repo, checkpoint, decode_mode="fast")


def test_llada2_uni__runs_every_drawing_protocol_on_the_last_image(checkout, dataset_dir, tmp_path) -> None:
    repo, checkpoint, _ = checkout
    _, records = run_drawing_protocols("llada2-uni", checkpoint, {"repo": repo, "device": "cpu"},
                                               dataset_dir, tmp_path / "runs")  # fmt: skip
    assert set(records) == {"self_gta_last1", "self_vcot_last1", "self_vr_last1"}
    drawn = [image for rows in records.values() for record in rows for image in record["images"]]
    assert {image["purpose"] for image in drawn} == {"aid", "next_state", "vr"}
    assert all(image["size"] == [96, 64] for image in drawn)
    assert all(record["turns"][-1]["text"] == fake.REPLY for rows in records.values() for record in rows)
    assert all(record["verdict"]["parsed"] for record in records["self_gta_last1"])
