from __future__ import annotations

import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from vgau_data.answers import MAX_ANSWER_CHARS, answer_text, last_tagged, load_lenient, read_value
from vgau_data.puzzles.base import AnswerError


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('["up", "left"]', ["up", "left"]),
        ("['up', 'left',]", ["up", "left"]),
        ("```json\n[1, 2, 3]\n```", [1, 2, 3]),
        ("[up, L]", ["up", "L"]),
        ('{"solution": [{"from": [1, 2], "direction": "UP"},],}', {"solution": [{"from": [1, 2], "direction": "UP"}]}),
        ("[True, None, false]", [True, None, False]),
        ('["a\\"b", "\\u0041"]', ['a"b', "A"]),
        ("[]", []),
    ],
)
def test_load_lenient__accepts_common_slips(text: str, expected: object) -> None:
    assert load_lenient(text) == expected


@pytest.mark.parametrize(
    "text",
    ["", "no json here", "[{", "[{'a'", "{'a':", "[1, 2", '{"a" 1}', "[1 2]", "]", '["unterminated]', "[" * 100_000, "[1" + "0" * 5000 + "]", "[}"],
)
def test_load_lenient__rejects_broken_payloads_as_bad_format(text: str) -> None:
    with pytest.raises(AnswerError) as caught:
        load_lenient(text)
    assert caught.value.code == "bad_format"


def test_load_lenient__is_fast_on_ten_megabytes() -> None:
    start = time.perf_counter()
    with pytest.raises(AnswerError):
        load_lenient("[" + "1," * 5_000_000)
    assert time.perf_counter() - start < 2.0


def test_last_tagged__last_complete_pair_wins_and_tags_ignore_case() -> None:
    assert last_tagged("<Answer>A</ANSWER> ... <answer>B,C</answer> <answer>unclosed", "answer") == "B,C"
    assert last_tagged("</answer> only a closer", "answer") is None


def test_last_tagged__characters_that_lower_to_two_do_not_shift_the_payload() -> None:
    assert last_tagged("\u0130" * 5 + "<ANSWER>up</answer>", "answer") == "up"


@pytest.mark.parametrize(("text", "code"), [(None, "no_answer"), (42, "no_answer"), ("x" * (MAX_ANSWER_CHARS + 1), "bad_format")])
def test_answer_text__rejects_what_no_parser_should_read(text: object, code: str) -> None:
    with pytest.raises(AnswerError) as caught:
        answer_text(text)
    assert caught.value.code == code


def test_read_value__returns_the_end_of_the_value() -> None:
    value, end = read_value('x [1, [2]] tail', 2)
    assert value == [1, [2]]
    assert 'x [1, [2]] tail'[end:] == " tail"

JSONISH = st.text(alphabet=st.sampled_from(list("[]{}'\",:0123456789.-eE truefalsnup\\\x00\ud800")), max_size=60)


@settings(max_examples=400, deadline=None)
@given(st.one_of(JSONISH, st.text(max_size=80)))
def test_load_lenient__only_ever_raises_answer_error(text: str) -> None:
    try:
        load_lenient(text)
    except AnswerError as error:
        assert error.code == "bad_format"
