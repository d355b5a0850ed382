"""The canonical record: what ``Record`` writes and what ``parse_record`` accepts from a file."""

from __future__ import annotations

import io
import json

import pytest
from PIL import Image

from vgau_data.training.traces.record import Record, TraceError, parse_record


def test_record_round_trips_and_stores_each_image_once() -> None:
    record = Record()
    board = Image.new("RGB", (4, 3), (10, 20, 30))
    record.add("user", board, "Solve it.")
    record.add("assistant", "up")
    record.add("user", "After:", board)
    columns = record.columns("demo")
    messages = parse_record(columns["trace_demo"], len(columns["trace_demo_images"]))
    assert [m["role"] for m in messages] == ["user", "assistant", "user"]
    assert [p["index"] for m in messages for p in m["content"] if p["type"] == "image"] == [0, 1]
    decoded = Image.open(io.BytesIO(columns["trace_demo_images"][1]))
    assert decoded.format == "PNG" and decoded.convert("RGB").tobytes() == board.tobytes()


def test_record_refuses_unknown_roles() -> None:
    with pytest.raises(ValueError, match="roles"):
        Record().add("system", "hi")


@pytest.mark.parametrize(
    ("text", "n_images", "match"),
    [
        ("not json", 0, "not JSON"),
        ("[" * 100_000, 0, "not JSON"),
        ('{"messages": []}', 0, "at least one message"),
        ('{"messages": [{"role": "tool", "content": []}]}', 0, "role"),
        ('{"messages": [{"role": "user", "content": "text"}]}', 0, "content list"),
        ('{"messages": [{"role": "user", "content": [{"type": "image", "index": 1}]}]}', 1, "image index 1"),
        ('{"messages": [{"role": "user", "content": [{"type": "image", "index": true}]}]}', 1, "image index True"),
        ('{"messages": [{"role": "user", "content": [{"type": "image", "index": -1}]}]}', 1, "image index -1"),
        ('{"messages": [{"role": "user", "content": [{"type": "text", "text": 3}]}]}', 0, "a part is"),
        ('{"messages": [{"role": "user", "content": [{"type": "video"}]}]}', 0, "a part is"),
        (None, 0, "JSON string"),
    ],
)
def test_parse_record_names_what_is_wrong(text: object, n_images: int, match: str) -> None:
    with pytest.raises(TraceError, match=match):
        parse_record(text, n_images)


def test_parse_record_reads_a_large_record_in_linear_time() -> None:
    part = {"type": "text", "text": "x" * 100}
    text = json.dumps({"messages": [{"role": "user", "content": [part] * 50_000}]})
    assert len(parse_record(text, 0)[0]["content"]) == 50_000
