"""Every registered trace kind keeps the contract of ``vgau_data.training.traces`` (checked on every family)."""

from __future__ import annotations

import io
import json

import numpy as np
import pytest
from PIL import Image

from tests.training.golden_states import GOLDEN_STATES
from vgau_data.errors import VgauError
from vgau_data.registry import FAMILIES
from vgau_data.training.traces import TRACE_KINDS, board_png, get_trace_kind


@pytest.mark.parametrize("name", list(TRACE_KINDS))
@pytest.mark.parametrize("family", list(FAMILIES))
def test_a_kind_returns_its_two_columns_a_canonical_record_and_pngs(name: str, family: str) -> None:
    kind = TRACE_KINDS[name]
    spec = FAMILIES[family]
    state = GOLDEN_STATES[family]
    answer = spec.solve(state).answer
    columns = kind.columns(spec, state, answer, np.random.default_rng(1))
    assert kind.name == name
    assert set(columns) == set(kind.features()) == {f"trace_{name}", f"trace_{name}_images"}
    record = json.loads(columns[f"trace_{name}"])
    images = columns[f"trace_{name}_images"]
    assert set(record) == {"messages"} and record["messages"]
    used = []
    for message in record["messages"]:
        assert set(message) == {"role", "content"} and message["role"] in ("user", "assistant")
        for segment in message["content"]:
            assert segment["type"] in ("text", "image")
            if segment["type"] == "text":
                assert set(segment) == {"type", "text"} and isinstance(segment["text"], str)
            else:
                assert set(segment) == {"type", "index"} and 0 <= segment["index"] < len(images)
                used.append(segment["index"])
    assert sorted(set(used)) == list(range(len(images)))  # every image is used, first use in list order
    assert [i for n, i in enumerate(used) if i not in used[:n]] == list(range(len(images)))
    for data in images:
        assert Image.open(io.BytesIO(data)).size == spec.geometry.size
    assert kind.columns(spec, state, answer, np.random.default_rng(1)) == columns  # deterministic


def test_the_solver_trace_is_the_direct_question_and_the_optimal_answer() -> None:
    spec = FAMILIES["maze"]
    state = GOLDEN_STATES["maze"]
    answer = spec.solve(state).answer
    columns = get_trace_kind("solver").columns(spec, state, answer, np.random.default_rng(0))
    user, assistant = json.loads(columns["trace_solver"])["messages"]
    assert user["content"][1]["text"] == spec.question(state, "direct")
    reply = assistant["content"][0]["text"]
    replay = spec.replay(state, spec.parse_answer(reply))
    assert replay.feasible and replay.length == len(answer)
    assert columns["trace_solver_images"] == [board_png(spec, state)]


def test_an_unknown_kind_names_the_known_ones() -> None:
    with pytest.raises(VgauError, match="unknown trace kind 'nope'; choose from solver"):
        get_trace_kind("nope")
