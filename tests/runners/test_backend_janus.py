"""A tiny random Janus, built from a config, answers and draws through the real Janus backend."""

from __future__ import annotations

import pytest
from PIL import Image

from vgau_data.runners.backends import BackendError, GenParams, ImageRequest, capabilities_of, load_backend
from vgau_data.runners.backends.janus import image_prompt_messages
from vgau_data.runners.messages import Conversation, TextPart, assistant, user
from vgau_data.testing.tiny_generators import build_tiny_janus
from vgau_data.testing.tiny_models import build_tiny_vlm


@pytest.fixture(scope="module")
def janus(tmp_path_factory):
    folder = build_tiny_janus(tmp_path_factory.mktemp("janus"))
    return load_backend("janus", model=str(folder), device="cpu")


def _request(conversation: Conversation | None, seed: int = 0) -> ImageRequest:
    board = Image.new("RGB", (64, 64), (30, 30, 30))
    return ImageRequest(session_id="maze-easy-0000/self_gta/run0", purpose="aid", instruction="Add a red grid.",
                        images=(board,), conversation=conversation, family="maze", seed=seed)  # fmt: skip


def test_janus__answers_and_draws_in_one_object(janus) -> None:
    assert capabilities_of(janus) == {"chat", "text_to_image"}
    conversation = Conversation((user(Image.new("RGB", (64, 64), (200, 10, 10)), "Solve the maze."),))
    completion = janus.chat([conversation], GenParams(max_new_tokens=4))[0]
    assert completion.ok and completion.completion_tokens == 4
    made = janus.generate([_request(conversation), _request(None)], GenParams())
    assert [image.ok for image in made] == [True, True]
    assert made[0].image.mode == "RGB" and made[0].image.size == (8, 8)  # 16 image tokens, VQ upsampling x2
    assert made[0].meta == {"image_tokens": 16}


def test_janus__images_are_seeded(janus) -> None:
    first = janus.generate([_request(None, seed=3)], GenParams())[0].image.tobytes()
    assert janus.generate([_request(None, seed=3)], GenParams())[0].image.tobytes() == first
    assert janus.generate([_request(None, seed=4)], GenParams())[0].image.tobytes() != first


def test_janus__image_prompt_is_the_text_of_the_conversation_then_the_instruction() -> None:
    conversation = Conversation((user(Image.new("RGB", (4, 4)), "Solve it."), assistant("Thinking."), user(Image.new("RGB", (4, 4)))))
    messages = image_prompt_messages(_request(conversation))
    assert [(m.role, m.text) for m in messages] == [("user", "Solve it."), ("assistant", "Thinking."), ("user", "Add a red grid.")]
    assert all(isinstance(part, TextPart) for m in messages for part in m.parts)


def test_janus__records_identity_and_settings(janus) -> None:
    described = janus.describe()
    assert described["backend"] == "janus" and described["model_type"] == "janus"
    assert described["capabilities"] == ["chat", "text_to_image"] and described["guidance_scale"] == 5.0
    assert len(janus.fingerprint()) == 64


def test_janus__refuses_other_models(tmp_path) -> None:
    folder = build_tiny_vlm("qwen2_vl", tmp_path / "qwen")
    with pytest.raises(BackendError, match="not Janus"):
        load_backend("janus", model=str(folder), device="cpu")
