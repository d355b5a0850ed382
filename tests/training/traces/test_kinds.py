"""Every trace kind on every family: the registry's contract, and each kind's faithfulness."""

from __future__ import annotations

import io
import re

import numpy as np
import pytest
from PIL import Image

from tests.training.conftest import FIXED_STATES, short_state
from vgau_data.registry import FAMILIES, get_family
from vgau_data.training.traces import TRACE_KINDS, UnknownTraceKindError, get_trace_kind, trace_rng
from vgau_data.training.traces.exploratory import walk_with_detours
from vgau_data.training.traces.record import parse_record
from vgau_data.training.traces.search import Search

CASES = [(kind, family) for kind in TRACE_KINDS for family in FAMILIES]


def columns(kind: str, family: str, seed: int = 5) -> tuple[dict, list[dict], list[Image.Image]]:
    spec = get_family(family)
    state = spec.from_json(short_state(family))
    cols = get_trace_kind(kind).columns(spec, state, spec.solve(state).answer, trace_rng(seed, kind))
    images = [Image.open(io.BytesIO(png)) for png in cols[f"trace_{kind}_images"]]
    return cols, parse_record(cols[f"trace_{kind}"], len(images)), images


@pytest.mark.parametrize(("kind", "family"), CASES)
def test_kind_keeps_the_registry_contract(kind: str, family: str) -> None:
    cols, messages, images = columns(kind, family)
    assert set(cols) == set(get_trace_kind(kind).features()) == {f"trace_{kind}", f"trace_{kind}_images"}
    assert messages[0]["role"] == "user" and messages[1]["role"] == "assistant"
    assert all(image.format == "PNG" and image.size == get_family(family).geometry.size for image in images)
    used = {p["index"] for m in messages for p in m["content"] if p["type"] == "image"}
    assert used == set(range(len(images))), "every stored image is referenced"
    again, _, _ = columns(kind, family)
    assert again == cols, "the same row and seed give the same bytes"


def test_registry_names_the_five_kinds() -> None:
    assert list(TRACE_KINDS) == ["solver", "text_cot", "visual_cot", "aug_visual_cot", "exploratory"]
    assert trace_rng(3, "a").random() != trace_rng(3, "b").random()
    with pytest.raises(UnknownTraceKindError, match="unknown trace kind 'nope'; choose from solver, text_cot"):
        get_trace_kind("nope")


@pytest.mark.parametrize("family", list(FAMILIES))
def test_the_solver_trace_is_the_direct_question_and_the_optimal_answer_alone(family: str) -> None:
    spec = get_family(family)
    state = spec.from_json(short_state(family))
    _, messages, images = columns("solver", family)
    assert [m["role"] for m in messages] == ["user", "assistant"]
    question = spec.question(state, "direct")
    assert messages[0]["content"] == [{"type": "image", "index": 0}, {"type": "text", "text": question}]
    reply = messages[1]["content"][0]["text"]
    assert reply == spec.format_answer(spec.solve(state).answer)
    verdict = spec.replay(state, spec.parse_answer(reply))
    assert verdict.feasible and verdict.length == spec.solve(state).optimal_length
    assert images[0].convert("RGB").tobytes() == spec.render(state).tobytes()


def _scripted_episode(protocol: str, family: str) -> tuple[list, list[str]]:
    """The evaluation protocol's own conversation when every reply is the solver's next step."""
    from vgau_data.runners.backends.base import Completion
    from vgau_data.runners.instances import instance_from_row
    from vgau_data.runners.protocols import ProtocolConfig, make_episode

    spec = get_family(family)
    state = spec.from_json(short_state(family))
    row = {"id": "x", "task": family, "difficulty": "easy", "optimal_length": spec.solve(state).optimal_length,
           "state": short_state(family)}  # fmt: skip
    episode = make_episode(instance_from_row(row), ProtocolConfig(name=protocol))
    steps = spec.oracle_steps(state)
    for step in steps:
        episode.request()
        episode.advance(Completion(text=spec.format_step(step)))
    assert episode.outcome().end == "goal"
    return list(episode.messages), [spec.format_step(step) for step in steps]


@pytest.mark.parametrize("family", list(FAMILIES))
@pytest.mark.parametrize(("kind", "protocol"), [("visual_cot", "oracle_vcot"), ("aug_visual_cot", "oracle_aug_vcot")])
def test_vcot_traces_are_the_protocol_s_own_conversation(kind: str, protocol: str, family: str) -> None:
    """Texts and pixels equal what Oracle-(Aug-)VCoT sends; the trace adds the last board only."""
    from vgau_data.runners.messages import ImagePart

    episode, _ = _scripted_episode(protocol, family)
    _, messages, images = columns(kind, family)
    assert len(messages) == len(episode) + 1 and messages[-1]["role"] == "user"
    for ours, theirs in zip(messages, episode):
        assert ours["role"] == theirs.role
        assert len(ours["content"]) == len(theirs.parts)
        for part, other in zip(ours["content"], theirs.parts):
            if part["type"] == "text":
                assert part["text"] == other.text
            else:
                assert isinstance(other, ImagePart)
                assert images[part["index"]].convert("RGB").tobytes() == other.image.convert("RGB").tobytes()


@pytest.mark.parametrize("family", list(FAMILIES))
def test_text_cot_narrates_the_real_search_and_answers_optimally(family: str) -> None:
    spec = get_family(family)
    state = spec.from_json(short_state(family))
    _, messages, _ = columns("text_cot", family)
    assert messages[0]["content"][1]["text"] == spec.question(state, "text_cot")
    reply = messages[1]["content"][0]["text"]
    verdict = spec.replay(state, spec.parse_answer(reply))
    assert verdict.feasible and verdict.length == spec.solve(state).optimal_length
    optimum = spec.solve(state).optimal_length
    assert [int(n) for n in re.findall(r"^Step \d+: (\d+) to go", reply, re.MULTILINE)] == list(range(optimum, 0, -1))
    # the first step's "leaves N" are distances an independent breadth-first search confirms
    search = Search(spec)
    first = reply.split("\n")[2]
    for option in search.options(state):
        if option.illegal is None and option.remaining is not None:
            plan = search._bfs(option.after)
            assert plan is not None and len(plan) == option.remaining
            assert f"leaves {option.remaining}" in first


def test_text_cot_reads_the_board_and_the_change() -> None:
    _, messages, _ = columns("text_cot", "maze")
    reply = messages[1]["content"][0]["text"]
    assert reply.startswith("Reading the board: ") and "agent at (8,8)" in reply and "goal at (8,5)" in reply
    assert "not allowed: up (wall)" in reply and "Now (8,7) open -> agent, (8,8) agent -> open." in reply


@pytest.mark.parametrize("family", list(FAMILIES))
def test_exploratory_walks_are_legal_end_at_the_goal_and_hide_the_optimum(family: str) -> None:
    spec = get_family(family)
    state = spec.from_json(short_state(family))
    optimum = spec.solve(state).optimal_length
    search = Search(spec)
    lengths = set()
    for seed in range(12):
        steps = walk_with_detours(spec, state, trace_rng(seed, "exploratory"), search)
        verdict = spec.replay(state, spec.answer_steps(state, steps))
        assert verdict.feasible, f"{family} seed {seed}: {verdict.error}"
        assert optimum <= len(steps) <= optimum + 2 * (optimum // 2 + 1)
        lengths.add(len(steps))
    if family == "onet":  # every removal clears a pair: all feasible answers have the optimal length
        assert lengths == {optimum}
    else:
        assert len(lengths) > 1 and max(lengths) > optimum


def test_exploratory_record_is_vcot_rounds_along_its_walk() -> None:
    spec = get_family("maze")
    state = spec.from_json(FIXED_STATES["maze"])
    rng = trace_rng(11, "exploratory")
    steps = walk_with_detours(spec, state, rng)
    _, messages, images = columns("exploratory", "maze", seed=11)
    replies = [m["content"][0]["text"] for m in messages if m["role"] == "assistant"]
    assert replies == [spec.format_step(step) for step in steps]
    assert len(images) == len(steps) + 1


def test_detour_count_spans_zero_to_half_the_optimum() -> None:
    from vgau_data.training.traces.exploratory import detour_count

    counts = {detour_count(6, np.random.default_rng(seed)) for seed in range(200)}
    assert counts == {0, 1, 2, 3, 4}
