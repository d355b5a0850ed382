"""visual_cot: the paper's VCoT rounds (A.2.6), written with the solver's steps.

The record is the conversation the Oracle-VCoT protocol holds when every step is the
solver's: the board and the protocol's first request; then per round the step in the
family's per-step format (``FamilySpec.format_step``) and the board after it, with the
request for the next step. After the last step the board is shown once more, as in the
authors' runner, so a trainer that makes the model draw each board has the last one too
(trainers that only read, TRL and LLaMA-Factory, drop that trailing turn). Every text
comes from ``puzzles/prompts.py``, the functions the evaluation protocol itself calls.
Formats in which the model draws the boards ask Self-VCoT's question instead
(``drawn_question``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from vgau_data.errors import GenerationError
from vgau_data.oracle_aids import annotate
from vgau_data.puzzles import prompts
from vgau_data.puzzles.base import FamilySpec, Illegal
from vgau_data.training.traces.record import Record, TraceKind


def vcot_record(spec: FamilySpec, state: Any, steps: Sequence[Any], *, annotated: bool) -> Record:
    """The VCoT conversation playing ``steps`` from ``state``; ``annotated`` gives Oracle-Aug-VCoT's boards.

    Raises:
        GenerationError: a step is illegal, or the steps do not end at the goal.
    """

    def shown(board_state: Any) -> Any:
        board = spec.render(board_state)
        return annotate(spec, board, board_state) if annotated else board

    record = Record()
    intro = prompts.vcot_intro(spec, state, images="shown_annotated" if annotated else "shown")
    first: list[Any] = [spec.render(state)] + ([shown(state)] if annotated else [])
    record.add("user", *first, f"{intro}\n\n{prompts.step_request(spec, 1)}")
    current = state
    for index, step in enumerate(steps, 1):
        record.add("assistant", spec.format_step(step))
        current = spec.apply_step(current, step)
        if isinstance(current, Illegal):
            raise GenerationError(f"{spec.name}: step {index} of a trace is illegal ({current.code})")
        request = [prompts.step_request(spec, index + 1)] if index < len(steps) else []
        record.add("user", prompts.board_after(index), shown(current), *request)
    if not spec.is_goal(current):
        raise GenerationError(f"{spec.name}: a trace of {len(steps)} steps does not reach the goal")
    return record


def drawn_question(spec: FamilySpec, state: Any) -> str:
    """Self-VCoT's first request (Tables 24-29): the same rounds, but the model draws each board."""
    return f"{prompts.vcot_intro(spec, state, images='drawn')}\n\n{prompts.step_request(spec, 1)}"


def build(spec: FamilySpec, state: Any, answer: tuple[Any, ...], rng: np.random.Generator) -> Record:
    return vcot_record(spec, state, spec.oracle_steps(state, answer), annotated=False)


KIND = TraceKind(
    name="visual_cot",
    summary="Oracle-VCoT rounds: each solver step in the per-step format, then the board after it",
    build=build,
    drawn_question=drawn_question,
)
