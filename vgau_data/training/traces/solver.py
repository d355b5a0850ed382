"""solver: the board and the direct question, answered by the solver's optimal answer alone.

No reasoning, so the question is the ``direct`` protocol's ("Reply with the final answer
only"), and the reply is the solver's answer in the family's answer format
(docs/contract/answers.md).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from vgau_data.puzzles.base import FamilySpec
from vgau_data.training.traces.record import Record, TraceKind


def build(spec: FamilySpec, state: Any, answer: tuple[Any, ...], rng: np.random.Generator) -> Record:
    record = Record()
    record.add("user", spec.render(state), spec.question(state, "direct"))
    record.add("assistant", spec.format_answer(answer))
    return record


KIND = TraceKind(name="solver", summary="direct question; the reply is the solver's optimal answer alone", build=build)
