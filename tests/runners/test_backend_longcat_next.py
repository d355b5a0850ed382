"""The LongCat-Next adapter against a stand-in checkout that mimics ``demo.py``'s ensemble (commit af1a9a6)."""

from __future__ import annotations

import sys

import pytest
from PIL import Image

from tests.runners.checkout_runs import run_drawing_protocols
from tests.runners.fake_checkouts import longcat_next as fake
from vgau_data.runners.backends import BackendError, GenParams, ImageRequest, capabilities_of, load_backend
from vgau_data.runners.messages import Conversation, assistant, user


@pytest.fixture
def checkout(tmp_path, monkeypatch):
    monkeypatch.setattr(sys, "path", list(sys.path))
    monkeypatch.delitem(sys.modules, "demo", raising=False)
    monkeypatch.delenv("NMM_INFER_MODEL_ROOT", raising=False)
    yield fake.write(tmp_path / "LongCat-Next-inference"), fake.write_checkpoint(tmp_path / "LongCat-Next")
    sys.modules.pop("demo", None)


def test_longcat_next__answers_in_its_tags_and_draws_with_a_guidance_pair(checkout) -> None:
    repo, checkpoint = checkout
    model = load_backend("longcat-next", model=str(checkpoint), repo=str(repo))
    calls = sys.modules["demo"].CALLS
    assert calls == [("NmmEnsemble", str(checkpoint))] and capabilities_of(model) == {"chat", "image_edit"}

    board, other = Image.new("RGB", (20, 10)), Image.new("RGB", (30, 10))
    conversation = Conversation((user(board, "Solve it."), assistant("Drawn."), user(other, "Answer.")))
    answer = model.chat([conversation], GenParams(max_new_tokens=55))[0]
    assert answer.text == fake.REPLY
    _, question, sizes, _, sampling, _, generates = calls[-1]
    assert question.startswith("<longcat_user><longcat_img_start>") and "<longcat_img_end>Solve it.<longcat_assistant>Drawn." in question
    assert question.endswith("Answer.<longcat_assistant>") and sizes == [(20, 10), (30, 10)]
    assert sampling["max_new_tokens"] == 55 and sampling["temperature"] == 0.0 and not generates

    request = ImageRequest(session_id="s", purpose="aid", instruction="Add a grid.", images=(board,),
                           conversation=conversation, seed=1)  # fmt: skip
    made = model.generate([request], GenParams())[0]
    assert made.ok and made.image.size == (288, 288)
    cond, uncond = calls[-2:]
    tail = "<longcat_img_token_size>18 18</longcat_img_token_size><longcat_img_start>"
    assert cond[1].endswith("<longcat_user>Add a grid.<longcat_assistant>" + tail) and len(cond[2]) == 2
    assert uncond[1] == tail and not uncond[6]
    assert cond[4]["custom_params"]["cfg_role"] == "cond" and uncond[4]["custom_params"]["cfg_role"] == "uncond"
    assert cond[4]["custom_params"]["cfg_pair_id"] == uncond[4]["custom_params"]["cfg_pair_id"]
    assert cond[4]["max_new_tokens"] == 18 * 18 + 17 and cond[5] == 18


def test_longcat_next__names_what_is_missing(checkout, tmp_path) -> None:
    repo, checkpoint = checkout
    with pytest.raises(BackendError, match="not a LongCat-Next checkpoint folder: missing nmm_infer"):
        load_backend("longcat-next", model=str(tmp_path / "none"), repo=str(repo))
    with pytest.raises(BackendError, match="not a checkout of meituan-longcat/LongCat-Next-inference: missing demo.py"):
        load_backend("longcat-next", model=str(checkpoint), repo=str(tmp_path))
    (checkpoint / "model-00001.safetensors").unlink()
    with pytest.raises(BackendError, match="no weight files"):
        load_backend("longcat-next", model=str(checkpoint), repo=str(repo))


def test_longcat_next__runs_every_drawing_protocol(checkout, dataset_dir, tmp_path) -> None:
    repo, checkpoint = checkout
    _, records = run_drawing_protocols("longcat-next", checkpoint, {"repo": repo, "image_tokens": 4}, dataset_dir,
                                       tmp_path / "runs")  # fmt: skip
    assert set(records) == {"self_gta", "self_vcot", "self_vr"}
    drawn = [image for rows in records.values() for record in rows for image in record["images"]]
    assert {image["purpose"] for image in drawn} == {"aid", "next_state", "vr"}
    assert all(image["size"] == [64, 64] for image in drawn)
