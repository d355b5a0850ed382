"""What is particular to the 8-puzzle (``tests/eight_puzzle``), the family written from docs/adding-a-family.md.

``check_family`` holds what is true of every family; it runs on this one in ``tests/testing/test_checks.py``
when the whole suite runs with ``VGAU_TEST_EXTRA_FAMILY=tests.eight_puzzle``, and here once, cheaply, so the
worked example of the docs keeps passing the contract in the default run.
"""

from __future__ import annotations

import json

import pytest

from tests.eight_puzzle import SPEC
from tests.eight_puzzle.solver import distances
from tests.eight_puzzle.state import EightState, from_json, to_json
from tests.eight_puzzle.symmetry import apply
from vgau_data.errors import StateError
from vgau_data.puzzles.base import AnswerError, Illegal
from vgau_data.testing import check_family


def test_eight_puzzle__keeps_the_family_contract() -> None:
    check_family(SPEC, per_bucket=1)


def test_solver__half_the_trays_are_solvable_and_the_hardest_needs_31_slides() -> None:
    """9!/2 trays reach the goal, the hardest in 31 slides (Reinefeld 1993); a swapped pair is the other half."""
    table = distances()
    assert len(table) == 181_440 and max(table.values()) == 31
    assert SPEC.solve(EightState("BACDEFGH.")) is None
    assert SPEC.from_json('{"tiles":["BAC","DEF","GH."]}') == EightState("BACDEFGH.")  # a valid, unsolvable tray


@pytest.mark.parametrize(
    ("tiles", "step", "expected"),
    [
        (".BCADEFGH", "up", "ABC.DEFGH"),
        (".BCADEFGH", "down", Illegal("out_of_bounds", 0)),
        (".BCADEFGH", "left", "B.CADEFGH"),
        (".BCADEFGH", "right", Illegal("out_of_bounds", 0)),
        ("ABCDEFGH.", "north", Illegal("unknown_action", 0)),
    ],
)
def test_apply_step__slides_the_tile_beside_the_blank_the_named_way(tiles: str, step: str, expected) -> None:
    after = SPEC.apply_step(EightState(tiles), step)
    assert after == (EightState(expected) if isinstance(expected, str) else expected)


def test_from_json__refuses_a_tray_without_each_tile_once() -> None:
    for rows in (["ABC", "DEF", "GG."], ["ABC", "DEF", "GHI"], ["ABC", "DEF", "GH"], ["ABC", "DEF"]):
        with pytest.raises(StateError):
            from_json(json.dumps({"tiles": rows}))
    assert to_json(from_json('{"tiles":["ABC","DEF","GH."]}')) == '{"tiles":["ABC","DEF","GH."]}'


def test_texts__steps_are_one_direction_in_a_list() -> None:
    assert SPEC.format_step("left") == '<STEP_JSON>["left"]</STEP_JSON>'
    assert SPEC.parse_step('<STEP_JSON>["Up"]</STEP_JSON>') == "up"
    with pytest.raises(AnswerError, match="a step is"):
        SPEC.parse_step('<STEP_JSON>["up","left"]</STEP_JSON>')
    assert SPEC.format_answer(("up", "left")) == '<ANSWER_JSON>["up","left"]</ANSWER_JSON>'


def test_symmetry__the_transposed_goal_is_the_goal_and_slides_transpose() -> None:
    goal = EightState("ABCDEFGH.")
    assert apply(goal, "transpose") == goal
    state = EightState("DAB.ECGHF")
    answer = SPEC.solve(state).answer
    mapped = [SPEC.symmetry.map_step(step, "transpose", state) for step in answer]
    assert SPEC.replay(apply(state, "transpose"), mapped).feasible
