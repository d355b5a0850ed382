"""The contract every registered family honours (docs/contract/), run once per registered family.

``check_family`` holds the generic checks; this file adds what it cannot know: the contract's
bucket table, the oracle aid's look and each question's answer format.
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np
import pytest

from vgau_data.answers import MAX_ANSWER_CHARS
from vgau_data.metrics.hostile import hostile_texts
from vgau_data.oracle_aids import annotate, label_origin, oracle_aid
from vgau_data.puzzles.base import DIFFICULTIES, AnswerError, FamilySpec
from vgau_data.puzzles.checks import check_family
from vgau_data.registry import FAMILIES
from vgau_data.seeding import instance_seed, rng_for

SPEC_BUCKETS = {
    "maze": {"easy": (1, 6), "medium": (7, 17), "hard": (18, 30)},
    "sokoban": {"easy": (1, 8), "medium": (10, 16), "hard": (20, 39)},
    "path": {"easy": (2, 5), "medium": (8, 14), "hard": (18, 25)},
    "onet": {"easy": (4, 6), "medium": (7, 10), "hard": (12, 16)},
    "parking": {"easy": (1, 5), "medium": (8, 16), "hard": (18, 34)},
    "klotski": {"easy": (1, 4), "medium": (6, 10), "hard": (15, 20)},
}
FAMILY_PARAMS = [pytest.param(spec, id=name) for name, spec in FAMILIES.items()]
CASES = [pytest.param(spec, d, id=f"{name}-{d}") for name, spec in FAMILIES.items() for d in DIFFICULTIES]


@pytest.fixture(scope="module")
def instances() -> dict[tuple[str, str], tuple[Any, Any]]:
    """One generated, solved instance per family x bucket (generated once per module)."""
    cache: dict[tuple[str, str], tuple[Any, Any]] = {}
    for name, spec in FAMILIES.items():
        for difficulty in DIFFICULTIES:
            state = spec.generate(difficulty, rng_for(instance_seed(11, name, difficulty, 0)))
            cache[(name, difficulty)] = (state, spec.solve(state))
    return cache


@pytest.mark.parametrize("spec", FAMILY_PARAMS)
def test_family__passes_check_family(spec: FamilySpec) -> None:
    check_family(spec, seed=11)


@pytest.mark.parametrize("spec", FAMILY_PARAMS)
def test_family__buckets_match_spec(spec: FamilySpec) -> None:
    assert {d: tuple(r) for d, r in spec.buckets.items()} == SPEC_BUCKETS[spec.name]
    for difficulty, (low, high) in SPEC_BUCKETS[spec.name].items():
        assert spec.bucket_of(low) == spec.bucket_of(high) == difficulty
    covered = {n for low, high in SPEC_BUCKETS[spec.name].values() for n in range(low, high + 1)}
    assert [n for n in range(0, 45) if spec.bucket_of(n) is None] == [n for n in range(0, 45) if n not in covered]


@pytest.mark.parametrize("spec", FAMILY_PARAMS)
def test_family__oracle_aid_adds_its_grid_lines_on_the_cell_boundaries(spec: FamilySpec, instances) -> None:
    state, _ = instances[(spec.name, "easy")]
    board, aid = spec.render(state), oracle_aid(spec, state)
    assert aid.size == board.size
    assert aid.tobytes() != board.tobytes()
    geometry = spec.geometry
    line = np.abs(np.asarray(aid).astype(int) - np.array(spec.aid.line_rgb)).max(axis=2) == 0
    line &= ~(np.abs(np.asarray(board).astype(int) - np.array(spec.aid.line_rgb)).max(axis=2) == 0)
    ys, xs = np.nonzero(line)
    assert len(xs)
    off_x = (xs - geometry.margin_left + spec.aid.line_px) % geometry.cell_px
    off_y = (ys - geometry.margin_top + spec.aid.line_px) % geometry.cell_px
    assert ((off_x <= 2 * spec.aid.line_px) | (off_y <= 2 * spec.aid.line_px)).all()  # on a boundary
    with pytest.raises(ValueError, match="boards are"):
        annotate(spec, board.resize((100, 100)), state)


@pytest.mark.parametrize("spec", FAMILY_PARAMS)
def test_family__oracle_aid_labels_the_cells_its_style_names(spec: FamilySpec, instances) -> None:
    """A label where the style puts it, exactly on ``aid.labelled_cells`` (every cell when None)."""
    state, _ = instances[(spec.name, "medium")]
    board, aid = np.asarray(spec.render(state)), np.asarray(oracle_aid(spec, state))
    geometry, half = spec.geometry, spec.aid.label_px(spec.geometry) // 2
    labelled = set()
    for cell in np.ndindex(geometry.rows, geometry.cols):
        (x, y), anchor = label_origin(geometry, spec.aid, cell)
        window = (
            np.s_[y - half : y + half, x - half : x + half]
            if anchor == "mm"
            else np.s_[y : y + 2 * half, x : x + 2 * half]
        )
        if (board[window] != aid[window]).any():
            labelled.add(cell)
    every = set(np.ndindex(geometry.rows, geometry.cols))
    assert labelled == (every if spec.aid.labelled_cells is None else set(spec.aid.labelled_cells(state)))


@pytest.mark.parametrize(("spec", "difficulty"), CASES)
def test_family__questions_state_the_exact_answer_format(spec: FamilySpec, difficulty: str, instances) -> None:
    state, solution = instances[(spec.name, difficulty)]
    markers = {
        "maze": "<ANSWER_JSON>",
        "sokoban": "<ANSWER_JSON>",
        "parking": "<ANSWER_JSON>",
        "path": "<answer>",
        "onet": "<answer_json>",
        "klotski": '"solution"',
    }
    for style in ("text_cot", "direct"):
        question = spec.question(state, style)
        assert markers[spec.name] in question
        assert spec.answer_payload(solution.answer) not in question
    assert spec.question(state, "text_cot") != spec.question(state, "direct")


HOSTILE_SIZE = 300_000
"""Characters per hostile text: quadratic parsing would take minutes here, linear takes milliseconds."""


@pytest.mark.parametrize("spec", FAMILY_PARAMS)
def test_family__parse_answer_is_fast_on_hostile_text(spec: FamilySpec) -> None:
    for name, text in hostile_texts(spec, HOSTILE_SIZE):
        start = time.perf_counter()
        for parse in (spec.parse_answer, spec.parse_step):
            try:
                parse(text)
            except AnswerError as error:
                assert error.code in {"no_answer", "bad_format", "unknown_action"}
        assert time.perf_counter() - start < 2.0, f"{spec.name} took {time.perf_counter() - start:.1f} s on {name}"


@pytest.mark.parametrize("spec", FAMILY_PARAMS)
def test_family__parse_answer_caps_the_text_it_reads(spec: FamilySpec, instances) -> None:
    _, solution = instances[(spec.name, "easy")]
    answer = spec.format_answer(solution.answer)
    assert spec.parse_answer(" " * (MAX_ANSWER_CHARS - len(answer)) + answer) == tuple(solution.answer)
    with pytest.raises(AnswerError) as caught:
        spec.parse_answer(" " * (MAX_ANSWER_CHARS + 1 - len(answer)) + answer)
    assert caught.value.code == "bad_format"
