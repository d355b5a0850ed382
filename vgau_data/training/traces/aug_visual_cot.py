"""aug_visual_cot: the VCoT rounds of Oracle-Aug-VCoT (A.2.7): every board grid-annotated.

The first message shows the board and its oracle aid (red grid lines, ``(r,c)`` labels);
each board after a step carries the same annotation, as ``oracle_aids.annotate`` draws it
for the evaluation protocol.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from vgau_data.puzzles.base import FamilySpec
from vgau_data.training.traces.record import Record, TraceKind
from vgau_data.training.traces.visual_cot import vcot_record


def build(spec: FamilySpec, state: Any, answer: tuple[Any, ...], rng: np.random.Generator) -> Record:
    return vcot_record(spec, state, spec.oracle_steps(state, answer), annotated=True)


KIND = TraceKind(
    name="aug_visual_cot",
    summary="Oracle-Aug-VCoT rounds: the board and its aid, then each solver step and the annotated board after it",
    build=build,
)
