"""Property tests: every family's parser, through score_answer, on arbitrary and hostile text.

The CI smoke run uses a few dozen examples per strategy and family; the long run is
``pytest --run-slow tests/metrics/test_fuzz_parsers.py`` (``VGAU_FUZZ_EXAMPLES``
examples per strategy and family, default 2000).
"""

from __future__ import annotations

import os
import time
import tracemalloc

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from vgau_data.metrics.baselines import oracle_output
from vgau_data.metrics.references import DatasetRow, ReferenceSet
from vgau_data.metrics.scoring import Verdict, score_answer
from vgau_data.puzzles.base import ILLEGAL_CODES
from vgau_data.registry import FAMILIES

FAMILY_IDS = list(FAMILIES)
READERS = ["ours", "authors"]
FAMILY_READERS = [pytest.param(family, reader, id=f"{family}-{reader}") for family in FAMILY_IDS for reader in READERS
                  if reader == "ours" or FAMILIES[family].authors_reader]  # fmt: skip
"""Each family under our reader, and under the authors' where it declares how their code reads it."""
SMOKE = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow], database=None)
LONG = settings(
    max_examples=int(os.environ.get("VGAU_FUZZ_EXAMPLES", "2000")),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
    database=None,
)
PER_CALL_SECONDS = 0.5
"""Bound on one score_answer call for fuzzed inputs (a few kB), in CPU seconds; honest answers take ~0.1 ms."""

TOKENS = [
    "<ANSWER_JSON>", "</ANSWER_JSON>", "<answer_json>", "</answer_json>", "<answer>", "</answer>", "<Answer>",
    "[", "]", "{", "}", "[[", "]]", ",", ":", '"', "'", " ", "\n", "```", "```json", "\\", "\\u00", "\\ud800",
    "up", "down", "left", "right", "U", "d", "L", "r", "UP", "Down", "A", "B", "C", "E", "Z", "a,c",
    '"car"', '"direction"', '"from"', '"solution"', "solution", "from", "direction", "car", "R",
    "0", "1", "5", "-1", "9" * 30, "1e999", "3.5", "NaN", "null", "true", "None",
    "\x00", "\ud800", "\udfff", "\u0130", "ß", "🙂", "\u202e",
]


def row_of(references: ReferenceSet, family: str) -> DatasetRow:
    return next(r for r in references.rows if r.task == family and r.difficulty == "medium")


def check(row: DatasetRow, text: str, reader: str = "ours") -> Verdict:
    start = time.process_time()  # CPU seconds: a loaded machine stretches wall time, not the work done
    verdict = score_answer(text, row.reference, reader)
    elapsed = time.process_time() - start
    assert elapsed < PER_CALL_SECONDS, f"{row.task}: {elapsed:.2f}s on {text[:80]!r}"
    assert verdict.error is None or verdict.error in ILLEGAL_CODES, verdict
    assert verdict.optimal <= verdict.feasible <= verdict.parsed
    assert (verdict.error is None) == verdict.feasible
    assert verdict.length >= 0
    if verdict.optimal:
        assert verdict.length == row.optimal_length
    return verdict


token_soup = st.lists(st.sampled_from(TOKENS), max_size=80).map("".join)
arbitrary = st.text(max_size=400)


def mutations(base: str) -> st.SearchStrategy[str]:
    """The oracle answer with random characters deleted, replaced or inserted."""

    @st.composite
    def mutate(draw: st.DrawFn) -> str:
        text = list(base)
        for _ in range(draw(st.integers(1, 6))):
            if not text:
                break
            position = draw(st.integers(0, len(text) - 1))
            action = draw(st.sampled_from(("delete", "replace", "insert")))
            char = draw(st.sampled_from([*'[]{}",:\' \n', "\x00", "\ud800", "9", "x"]))
            if action == "delete":
                del text[position]
            elif action == "replace":
                text[position] = char
            else:
                text.insert(position, char)
        return "".join(text)

    return mutate()


@pytest.mark.parametrize(("family", "reader"), FAMILY_READERS)
def test_fuzz_smoke__arbitrary_text(references: ReferenceSet, family: str, reader: str) -> None:
    row = row_of(references, family)

    @SMOKE
    @given(arbitrary)
    def run(text: str) -> None:
        check(row, text, reader)

    run()


@pytest.mark.parametrize(("family", "reader"), FAMILY_READERS)
def test_fuzz_smoke__token_soup(references: ReferenceSet, family: str, reader: str) -> None:
    row = row_of(references, family)

    @SMOKE
    @given(token_soup)
    def run(text: str) -> None:
        check(row, text, reader)

    run()


@pytest.mark.parametrize(("family", "reader"), FAMILY_READERS)
def test_fuzz_smoke__mutated_oracle(references: ReferenceSet, family: str, reader: str) -> None:
    row = row_of(references, family)

    @SMOKE
    @given(mutations(oracle_output(row)))
    def run(text: str) -> None:
        check(row, text, reader)

    run()


@pytest.mark.slow
@pytest.mark.parametrize(("family", "reader"), FAMILY_READERS)
def test_fuzz_long__all_strategies(references: ReferenceSet, family: str, reader: str) -> None:
    row = row_of(references, family)

    @LONG
    @given(st.one_of(arbitrary, token_soup, mutations(oracle_output(row)), st.text(max_size=5000)))
    def run(text: str) -> None:
        check(row, text, reader)

    run()


# ------------------------------------------------------------------ hostile inputs, bounded time and memory


def hostile_inputs(oracle: str) -> dict[str, str]:
    ten_mb = 10 * 1024 * 1024
    return {
        "10MB_prose": ("lorem ipsum up down " * (ten_mb // 20))[:ten_mb],
        "10MB_then_oracle": "x" * ten_mb + oracle,
        "oracle_then_10MB": oracle + "[" * ten_mb,
        "100k_deep_brackets": "<ANSWER_JSON>" + "[" * 100_000 + "]" * 100_000 + "</ANSWER_JSON>",
        "100k_deep_all_tags": "".join(f"<{t}>" + "[{" * 50_000 + f"</{t}>" for t in ("answer_json", "answer")),
        "100k_deep_solution": '{"solution":' + "[" * 100_000 + "]" * 100_000 + "}",
        "many_tags": "<ANSWER_JSON></ANSWER_JSON><answer></answer>" * 100_000,
        "many_solution_keys": '"solution": [' * 200_000,
        "many_from_pairs": '"from": [1, 1], "direction": "UP", ' * 100_000,
        "huge_numbers": "<answer_json>[[[" + "9" * 100_000 + ",1],[1,1]]]</answer_json>"
        + '{"solution":[{"from":[1e999999,2],"direction":"UP"}]}',
        "lone_surrogates": "\ud800\udfff" * 100_000 + oracle.replace('"', '"\ud800', 1),
        "nul_bytes": "\x00" * 1_000_000 + oracle.replace(",", ",\x00"),
        "long_string_literal": '<ANSWER_JSON>["' + "u" * 5_000_000 + '"]</ANSWER_JSON>',
        "unterminated_string": "<ANSWER_JSON>['" + "\\'" * 1_000_000 + "</ANSWER_JSON>",
        "1M_open_braces": "{" * 1_000_000 + oracle,
        "open_object_long_list": '{"a": [' + "1," * 1_000_000,
        "many_small_objects": '{"a": 1} ' * 300_000,
        "nested_objects": '{"b": ' * 2_000 + "1" + "}" * 2_000 + " " * 1_000_000,
        "many_lines": "x\n" * 1_000_000,
        "hit_label_keys": "hit_labels [ " * 200_000,
        "open_tags_then_brackets": "<ANSWER_JSON> [" * 200_000,
        "close_tags_after_brackets": "] </ANSWER_JSON>" * 200_000,
    }


HOSTILE_NAMES = list(hostile_inputs(""))


@pytest.mark.parametrize(("family", "reader"), FAMILY_READERS)
@pytest.mark.parametrize("name", HOSTILE_NAMES)
def test_hostile_input__bounded_time_and_memory(references: ReferenceSet, family: str, name: str, reader: str) -> None:
    row = row_of(references, family)
    text = hostile_inputs(oracle_output(row))[name]
    tracemalloc.start()
    try:
        start = time.process_time()
        verdict = score_answer(text, row.reference, reader)
        elapsed = time.process_time() - start
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert elapsed < 3.0, f"{family}/{name}: {elapsed:.2f}s"
    assert peak < 400 * 1024 * 1024, f"{family}/{name}: peak {peak / 2**20:.0f} MiB"
    assert verdict.error is None or verdict.error in ILLEGAL_CODES
    if name == "10MB_then_oracle":
        assert verdict.optimal, verdict  # the last match wins, however much text precedes it
