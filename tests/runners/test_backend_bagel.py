"""The BAGEL adapter against a stand-in checkout that mimics BAGEL's entry points (commit 056b5fd)."""

from __future__ import annotations

import sys

import pytest
from PIL import Image

from tests.runners.fake_checkouts import bagel as fake
from vgau_data.runners.backends import BackendError, GenParams, ImageRequest, capabilities_of, load_backend
from vgau_data.runners.messages import Conversation, assistant, user


@pytest.fixture
def checkout(tmp_path, monkeypatch):
    """A fake checkout and checkpoint; sys.path and the imported fake modules are restored afterwards."""
    monkeypatch.setattr(sys, "path", list(sys.path))
    for name in [m for m in sys.modules if m.split(".")[0] in ("inferencer", "data", "modeling")]:
        monkeypatch.delitem(sys.modules, name)
    accelerate = fake.FakeAccelerate()
    monkeypatch.setitem(sys.modules, "accelerate", accelerate)
    repo = fake.write(tmp_path / "Bagel")
    checkpoint = fake.write_checkpoint(tmp_path / "BAGEL-7B-MoT")
    yield repo, checkpoint, accelerate
    for name in [m for m in sys.modules if m.split(".")[0] in ("inferencer", "data", "modeling")]:
        del sys.modules[name]


def test_bagel__loads_like_the_demo_and_answers_and_draws(checkout) -> None:
    repo, checkpoint, accelerate = checkout
    model = load_backend("bagel", model=str(checkpoint), repo=str(repo))
    calls = sys.modules["inferencer"].CALLS
    assert calls[0][:2] == ("inferencer", str(checkpoint / "ema.safetensors"))
    assert accelerate.dispatched["device_map"]["connector"] == "cuda:0"  # shared modules follow the embeddings
    assert capabilities_of(model) == {"chat", "image_edit"}

    board = Image.new("RGB", (40, 30), (0, 0, 0))
    conversation = Conversation((user(board, "Solve the maze."), assistant("I will draw first.")))
    answer = model.chat([conversation], GenParams(max_new_tokens=64))[0]
    assert answer.text == '<ANSWER_JSON>["up"]</ANSWER_JSON>'
    _, inputs, think, understanding, hyper = calls[-1]
    assert inputs == [board, "Solve the maze.", "I will draw first."] and understanding and not think
    assert hyper["max_think_token_n"] == 64 and hyper["do_sample"] is False

    request = ImageRequest(session_id="maze-easy-0000/self_gta/run0", purpose="aid", instruction="Add a red grid.",
                           images=(board,), conversation=conversation, seed=3)  # fmt: skip
    made = model.generate([request], GenParams())[0]
    assert made.ok and made.image.size == (40, 30)
    _, inputs, _, understanding, hyper = calls[-1]
    assert inputs[-1] == "Add a red grid." and inputs[0] is board and not understanding
    assert hyper["cfg_img_scale"] == 2.0 and hyper["cfg_interval"] == [0.0, 1.0] and hyper["num_timesteps"] == 50
    alone = ImageRequest(session_id="maze-easy-0000/self_gta/run0", purpose="aid", instruction="Draw.", images=(board,))
    model.generate([alone], GenParams())
    assert calls[-1][1] == [board, "Draw."]


def test_bagel__names_what_is_missing(checkout, tmp_path) -> None:
    repo, checkpoint, _ = checkout
    (checkpoint / "ema.safetensors").unlink()
    with pytest.raises(BackendError, match="missing ema.safetensors"):
        load_backend("bagel", model=str(checkpoint), repo=str(repo))
    with pytest.raises(BackendError, match="not a checkout of ByteDance-Seed/Bagel: missing inferencer.py"):
        load_backend("bagel", model=str(fake.write_checkpoint(tmp_path / "ok")), repo=str(tmp_path / "empty"))


def test_bagel__fingerprint_follows_the_weights(checkout) -> None:
    repo, checkpoint, _ = checkout
    first = load_backend("bagel", model=str(checkpoint), repo=str(repo)).fingerprint()
    (checkpoint / "ema.safetensors").write_bytes(b"other weights")
    assert load_backend("bagel", model=str(checkpoint), repo=str(repo)).fingerprint() != first
