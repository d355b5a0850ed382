"""The MammothModa2 adapter against a stand-in checkout that mimics its README's API (commit df2154e)."""

from __future__ import annotations

import sys

import pytest
from PIL import Image

from tests.runners.checkout_runs import run_drawing_protocols
from tests.runners.fake_checkouts import mammothmoda2 as fake
from vgau_data.runners.backends import BackendError, GenParams, ImageRequest, capabilities_of, load_backend
from vgau_data.runners.messages import Conversation, assistant, user


@pytest.fixture
def checkout(tmp_path, monkeypatch):
    monkeypatch.setattr(sys, "path", list(sys.path))
    for name in [m for m in sys.modules if m.split(".")[0] == "mammothmoda2"]:
        monkeypatch.delitem(sys.modules, name)
    yield fake.write(tmp_path / "mammothmoda"), fake.write_checkpoint(tmp_path / "MammothModa2-Preview")
    for name in [m for m in sys.modules if m.split(".")[0] == "mammothmoda2"]:
        del sys.modules[name]


def _calls() -> list:
    return sys.modules["mammothmoda2.model.qwen"].CALLS


def test_mammothmoda2__answers_with_every_image_and_draws_from_text(checkout) -> None:
    repo, checkpoint = checkout
    model = load_backend("mammothmoda2", model=str(checkpoint), repo=str(repo), device="cpu", num_inference_steps=3)
    assert capabilities_of(model) == {"chat", "text_to_image"}
    assert _calls()[0] == ("Mammothmoda2Model", str(checkpoint), "sdpa", "bfloat16", True)
    assert ("Mammothmoda2Processor", str(checkpoint), {"t2i_generate": True, "ar_height": 32, "ar_width": 32}) in _calls()

    board = Image.new("RGB", (20, 10))
    conversation = Conversation((user(board, "Solve it."), assistant("Drawn."), user(board, "Answer.")))
    answer = model.chat([conversation], GenParams(max_new_tokens=50))[0]
    assert answer.text == fake.REPLY
    processed = [c for c in _calls() if c[0] == "processor"][-1]
    assert processed[2] == [(20, 10), (20, 10)]
    assert processed[3] == {"padding_side": "left", "return_token_type_ids": False}
    assert _calls()[-1] == ("generate", 50, False)

    request = ImageRequest(session_id="s", purpose="aid", instruction="Add a grid.", images=(board,),
                           conversation=conversation, seed=4)  # fmt: skip
    made = model.generate([request], GenParams())[0]
    assert made.ok and made.image.size == (1024, 1024)
    processed = [c for c in _calls() if c[0] == "processor"][-1]
    assert processed[1] == ["<user>Solve it.\n\nDrawn.\n\nAnswer.\n\nAdd a grid.<assistant>"] and processed[2] == []
    assert processed[3]["cfg_scale"] == 7.0 and processed[3]["negative_prompt"] == "blurry, low quality"
    assert _calls()[-1] == ("decode_diffusion_image", (1, len(processed[1][0]) + 4), True, 9.0, 3, 1024, 1024)
    again = model.generate([request], GenParams())[0]
    assert again.image.tobytes() == made.image.tobytes(), "same seed, same image"


def test_mammothmoda2__names_what_is_missing(checkout, tmp_path) -> None:
    repo, checkpoint = checkout
    with pytest.raises(BackendError, match="not a MammothModa2 checkpoint folder: missing config.json"):
        load_backend("mammothmoda2", model=str(tmp_path / "none"), repo=str(repo))
    with pytest.raises(BackendError, match="not a checkout of bytedance/mammothmoda: missing mammothmoda2/model/__init__.py"):
        load_backend("mammothmoda2", model=str(checkpoint), repo=str(tmp_path))


def test_mammothmoda2__runs_every_drawing_protocol(checkout, dataset_dir, tmp_path) -> None:
    repo, checkpoint = checkout
    _, records = run_drawing_protocols("mammothmoda2", checkpoint, {"repo": repo, "device": "cpu", "height": 64,
                                       "width": 64}, dataset_dir, tmp_path / "runs")  # fmt: skip
    assert set(records) == {"self_gta", "self_vcot", "self_vr"}
    drawn = [image for rows in records.values() for record in rows for image in record["images"]]
    assert {image["purpose"] for image in drawn} == {"aid", "next_state", "vr"}
    assert all(image["size"] == [64, 64] for image in drawn)
