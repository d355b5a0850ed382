"""The conversation schema and its pure converters."""

from __future__ import annotations

import base64
import io

import pytest
from PIL import Image

from vgau_data.runners.messages import (
    OMITTED_IMAGE_TEXT,
    Conversation,
    ImagePart,
    Message,
    TextPart,
    assistant,
    image_digest,
    keep_last_images,
    to_hf,
    to_openai,
    user,
)


def _board(colour: tuple[int, int, int], size: tuple[int, int] = (6, 4)) -> Image.Image:
    return Image.new("RGB", size, colour)


def test_to_openai__images_become_png_data_urls_that_decode_to_the_same_pixels() -> None:
    board = _board((10, 200, 30))
    converted = to_openai([user(board, "which way?")])
    part = converted[0]["content"][0]
    assert part["type"] == "image_url"
    header, _, payload = part["image_url"]["url"].partition(",")
    assert header == "data:image/png;base64"
    decoded = Image.open(io.BytesIO(base64.b64decode(payload)))
    assert decoded.format == "PNG"
    assert decoded.convert("RGB").tobytes() == board.tobytes()
    assert converted[0]["content"][1] == {"type": "text", "text": "which way?"}


def test_to_openai__assistant_turns_are_plain_strings() -> None:
    converted = to_openai([user("a"), assistant("up"), user("b")])
    assert [m["role"] for m in converted] == ["user", "assistant", "user"]
    assert converted[1]["content"] == "up"


def test_to_hf__keeps_part_order_and_pil_images_and_converts_modes_to_rgb() -> None:
    rgba = Image.new("RGBA", (3, 3), (1, 2, 3, 4))
    converted = to_hf([Message("system", (TextPart("rules"),)), user("look", rgba)])
    assert converted[0] == {"role": "system", "content": [{"type": "text", "text": "rules"}]}
    content = converted[1]["content"]
    assert [p["type"] for p in content] == ["text", "image"]
    assert content[1]["image"].mode == "RGB"


def test_converters__do_not_mutate_their_input() -> None:
    messages = (user(_board((1, 1, 1)), "x"), assistant("y"))
    before = [(m.role, m.parts) for m in messages]
    to_hf(messages)
    to_openai(messages)
    keep_last_images(messages, 0)
    assert [(m.role, m.parts) for m in messages] == before


def test_message__rejects_unknown_roles_and_part_types() -> None:
    with pytest.raises(ValueError, match="role"):
        Message("robot", (TextPart("x"),))  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="TextPart or ImagePart"):
        Message("user", ("plain string",))  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="PIL image"):
        user(42)  # type: ignore[arg-type]


def test_keep_last_images__drops_the_oldest_images_and_keeps_all_text() -> None:
    images = [_board((i, i, i)) for i in (10, 20, 30)]
    messages = [
        user(images[0], "first"),
        assistant("up"),
        user("moved", images[1]),
        assistant("up"),
        user("moved", images[2]),
    ]
    kept = keep_last_images(messages, 2)
    kept_images = [p.image for m in kept for p in m.parts if isinstance(p, ImagePart)]
    assert kept_images == images[1:]
    texts = [p.text for m in kept for p in m.parts if isinstance(p, TextPart)]
    assert texts[0] == OMITTED_IMAGE_TEXT
    assert "first" in texts and texts.count("moved") == 2
    assert keep_last_images(messages, None) == tuple(messages)
    with pytest.raises(ValueError):
        keep_last_images(messages, -1)


def test_conversation__counts_assistant_turns_and_lists_images() -> None:
    a, b = _board((5, 5, 5)), _board((6, 6, 6))
    conversation = Conversation((user(a), assistant("x"), user(b)), "maze-easy-0000/direct/run0")
    assert conversation.n_assistant_turns == 1
    assert conversation.images == [a, b]


def test_image_digest__depends_on_pixels_only() -> None:
    assert image_digest(_board((1, 2, 3))) == image_digest(_board((1, 2, 3)).convert("RGBA"))
    assert image_digest(_board((1, 2, 3))) != image_digest(_board((1, 2, 4)))
    assert image_digest(_board((1, 2, 3), (6, 4))) != image_digest(_board((1, 2, 3), (4, 6)))


def test_image_part__encodes_once_and_reuses_the_data_url() -> None:
    part = ImagePart(_board((7, 8, 9)))
    first = to_openai([Message("user", (part,))])[0]["content"][0]["image_url"]["url"]
    part.image.paste((0, 0, 0), (0, 0, 6, 4))  # a cached part does not see later edits: parts are immutable boards
    again = to_openai([Message("user", (part,))])[0]["content"][0]["image_url"]["url"]
    assert again is first
    assert ImagePart(part.image).data_url() != first
