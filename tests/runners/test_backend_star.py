"""The STAR adapter against a stand-in checkout that mimics its scripts' entry points (commit 8263fb5)."""

from __future__ import annotations

import sys

import pytest
from PIL import Image

from tests.runners.checkout_runs import run_drawing_protocols
from tests.runners.fake_checkouts import star as fake
from vgau_data.runners.backends import BackendError, GenParams, ImageRequest, capabilities_of, load_backend
from vgau_data.runners.backends.base import image_limit
from vgau_data.runners.messages import Conversation, assistant, user


@pytest.fixture
def checkout(tmp_path, monkeypatch):
    monkeypatch.setattr(sys, "path", list(sys.path))
    for name in [m for m in sys.modules if m.split(".")[0] == "star"]:
        monkeypatch.delitem(sys.modules, name)
    yield fake.write(tmp_path / "STAR"), fake.write_checkpoint(tmp_path / "STAR" / "checkpoints" / "STAR-7B.pt")
    for name in [m for m in sys.modules if m.split(".")[0] == "star"]:
        del sys.modules[name]


def _calls() -> list:
    return sys.modules["star.models.qwen"].CALLS


def test_star__loads_like_the_scripts_answers_with_every_image_and_edits(checkout) -> None:
    repo, checkpoint = checkout
    model = load_backend("star", model=str(checkpoint), repo=str(repo), device="cpu")
    assert capabilities_of(model) == {"chat", "image_edit"} and image_limit(model) is None
    assert _calls()[:3] == [
        ("STARMultiModal", str(repo / "checkpoints" / "Qwen2.5-VL-7B-Instruct"), 28 * 28 * 1024, False),
        ("load_state_dict", ["pixel_adapter.weight"], False),
        ("to", "cpu"),
    ]
    first, last = Image.new("RGB", (20, 10)), Image.new("RGB", (30, 10))
    conversation = Conversation((user(first, "Solve it."), assistant("Drawn."), user(last, "Answer.")))
    answer = model.chat([conversation], GenParams(max_new_tokens=77))[0]
    assert answer.text == fake.REPLY and answer.completion_tokens == len(fake.REPLY)
    assert ("processor", ["<user><image>Solve it.<assistant>Drawn.<user><image>Answer.<assistant>"],
            [(20, 10), (30, 10)], {}) in _calls()  # fmt: skip
    assert _calls()[-1] == ("generate", 77, False)

    request = ImageRequest(session_id="s", purpose="aid", instruction="Add a grid.", images=(first,),
                           conversation=conversation, seed=2)  # fmt: skip
    made = model.generate([request], GenParams())[0]
    assert made.ok and made.image.size == (384, 384) and made.image.getpixel((0, 0)) == (255, 255, 255)
    assert _calls()[-1] == ("generate_images_edit", [(30, 10)], "Solve it.\n\nDrawn.\n\nAnswer.\n\nAdd a grid.",
                            576, 20.0, 2000, 1.0)  # fmt: skip


def test_star__names_what_is_missing(checkout, tmp_path) -> None:
    repo, checkpoint = checkout
    with pytest.raises(BackendError, match="missing the STAR checkpoint file"):
        load_backend("star", model=str(tmp_path / "none.pt"), repo=str(repo))
    with pytest.raises(BackendError, match="not a checkout of MM-MVR/STAR: missing star/models/model.py"):
        load_backend("star", model=str(checkpoint), repo=str(tmp_path))
    with pytest.raises(BackendError, match=r"pixel_decoder.model_path = .*lumina-image2"):
        load_backend("star", model=str(checkpoint), repo=str(repo), diffusion_as_decoder=True)
    (repo / "checkpoints" / "VQ-Model.pt").unlink()
    with pytest.raises(BackendError, match=r"missing: pixel_encoder.model_path = .*VQ-Model.pt"):
        load_backend("star", model=str(checkpoint), repo=str(repo))


def test_star__runs_every_drawing_protocol(checkout, dataset_dir, tmp_path) -> None:
    repo, checkpoint = checkout
    _, records = run_drawing_protocols("star", checkpoint, {"repo": repo, "device": "cpu"}, dataset_dir,
                                       tmp_path / "runs")  # fmt: skip
    assert set(records) == {"self_gta", "self_vcot", "self_vr"}
    drawn = [image for rows in records.values() for record in rows for image in record["images"]]
    assert {image["purpose"] for image in drawn} == {"aid", "next_state", "vr"}
    assert all(record["turns"][-1]["text"] == fake.REPLY for rows in records.values() for record in rows)
