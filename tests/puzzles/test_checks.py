"""``check_family`` catches a family that breaks the contract (it is not a rubber stamp)."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from vgau_data.puzzles.base import Replay
from vgau_data.puzzles.checks import FamilyCheckError, check_family
from vgau_data.puzzles.path.state import PathStep
from vgau_data.registry import get_family

MAZE = get_family("maze")


def broken(**changes: object):
    return dataclasses.replace(MAZE, **changes)


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"replay": lambda state, answer: Replay(True, len(answer))}, "step-by-step"),
        (
            {"generate": lambda difficulty, rng, slot=None: MAZE.generate(difficulty, np.random.default_rng(), slot)},
            "same seed",
        ),
        ({"generate": lambda difficulty, rng, slot=None: MAZE.generate(difficulty, rng)}, "generated for length"),
        ({"length_mix": {**MAZE.length_mix, "easy": {1: 5, 7: 15}}}, "length_mix"),
        ({"solve": lambda state: None}, "no solution"),
        ({"format_answer": lambda answer: "<ANSWER_JSON>[]</ANSWER_JSON>"}, "answer text round trip"),
        ({"answer_payload": lambda answer: "[]"}, "payload round trip"),
        ({"prompts": dataclasses.replace(MAZE.prompts, answer_format="the shortest list")}, "shortest"),
        ({"format_step": lambda step: f"Next, move one step {step}!"}, None),
        ({"parse_step": lambda text: "up"}, "per-turn step text"),
        ({"render": lambda state: MAZE.render(state).resize((10, 10))}, "render"),
        ({"buckets": {"easy": (1, 6), "medium": (6, 17), "hard": (18, 30)}}, "disjoint"),
    ],
    ids=[
        "replay", "generate", "slot", "length_mix", "solve", "format", "payload", "prompt", "step-ok", "step",
        "render", "buckets",
    ],  # fmt: skip
)
def test_check_family__names_what_is_broken(changes: dict, message: str | None) -> None:
    if message is None:  # a harmless change passes
        check_family(broken(**changes), per_bucket=1)
        return
    with pytest.raises(FamilyCheckError, match=message):
        check_family(broken(**changes), per_bucket=1)


def test_check_family__catches_a_path_replay_that_ignores_the_marker() -> None:
    path = get_family("path")

    def letters_only(state, answer):  # scores a walk by its declared letters alone, as the old runner did
        if answer and isinstance(answer[0], PathStep):
            answer = tuple(letter for step in answer for letter in step.hit_labels)
        return path.replay(state, answer)

    with pytest.raises(FamilyCheckError, match="step-by-step"):
        check_family(dataclasses.replace(path, replay=letters_only), per_bucket=1)


def test_check_family__derived_behaviour_follows_a_replaced_field() -> None:
    """``trajectory``, ``answer_steps``, ``answer_from_payload``, ``random_step`` are computed, never bound."""
    state = MAZE.generate("easy", np.random.default_rng(0))
    answer = MAZE.solve(state).answer
    played = []

    def counting(before, step):
        played.append(step)
        return MAZE.apply_step(before, step)

    spec = broken(apply_step=counting)
    assert spec.trajectory(state, answer) == MAZE.trajectory(state, answer) and played == list(answer)
    assert spec.answer_steps(state, answer) == tuple(answer)
    parsed = broken(parse_answer=lambda text: (text,)).answer_from_payload('["up"]')
    assert parsed == ('<ANSWER_JSON>["up"]</ANSWER_JSON>',)
    assert broken(random_answer=lambda s, rng: ("left",)).random_step(state, np.random.default_rng(0)) == "left"
    check_family(spec, per_bucket=1)
    with pytest.raises(FamilyCheckError, match="trajectory"):  # the checker's mutant reaches the derived walk
        check_family(broken(apply_step=lambda before, step: before), per_bucket=1)
