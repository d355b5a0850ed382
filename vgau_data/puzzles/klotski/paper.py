"""The authors' klotski records, read in our terms (``FamilySpec.paper``).

``klotski/dataset_manifest.json`` of their ``data/``: ``task_id``, ``level`` (not
``difficulty``), ``grid_w``/``grid_h``, ``goal_t_pos``, ``initial_state`` {T, Vs, Hs, Ss:
top-left cells}, ``optimal_steps``, ``solution`` [{from, direction}], ``image_path``.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, Final

from vgau_data.errors import PaperDataError
from vgau_data.puzzles.klotski.state import GOAL, SHAPES, SIZE, KlotskiState, Step, to_json
from vgau_data.puzzles.paper_records import (
    THEIR_DIFFICULTY,
    PaperFormat,
    PaperRecord,
    _cell,
    _cell_field,
    _cells,
    _get,
    _int_field,
    _list_field,
    _size,
    difficulty,
    task_id,
    where,
)

if TYPE_CHECKING:
    from PIL import Image


_KLOTSKI_KINDS: Final = {"T": "target", "Vs": "vertical", "Hs": "horizontal", "Ss": "single"}


def read_record(record: Mapping[str, Any], image: Image.Image | None) -> PaperRecord:
    at = where("klotski", record, "task_id")
    _size(record, "grid_w", SIZE, at)
    _size(record, "grid_h", SIZE, at)
    size = (SIZE, SIZE)
    goal = _cell_field(record, "goal_t_pos", at, size)
    if goal != GOAL:
        raise PaperDataError(f"{at}: goal_t_pos is {list(goal)}; this benchmark's goal is {list(GOAL)}")
    layout = _get(record, "initial_state", at)
    if not isinstance(layout, dict) or set(layout) != set(_KLOTSKI_KINDS):
        raise PaperDataError(f"{at}: initial_state must have exactly the keys T, Vs, Hs, Ss, got {layout!r:.60}")
    tops = {key: [_cell(layout["T"], "T", at, size)] if key == "T" else _cells(layout[key], key, at, size)
            for key in _KLOTSKI_KINDS}
    blocks = [
        {"kind": kind, "row": r, "col": c, "height": SHAPES[kind][0], "width": SHAPES[kind][1]}
        for key, kind in _KLOTSKI_KINDS.items()
        for r, c in tops[key]
    ]
    return PaperRecord(
        task_id=task_id(record, "task_id", at, "klotski"),
        difficulty=difficulty(record, "level", at),
        state={"size": SIZE, "goal": list(goal), "blocks": blocks},
        stored_answer=json.dumps({"solution": _list_field(record, "solution", at)}),
        stored_optimum=_int_field(record, "optimal_steps", at),
    )


def write_record(state: KlotskiState, answer: Sequence[Step], level: str, index: int) -> tuple[dict[str, Any], None]:
    """Our board as one record of their manifest: the top-left cell of each block, by kind."""
    blocks = json.loads(to_json(state))["blocks"]
    tops = {key: [[b["row"], b["col"]] for b in blocks if b["kind"] == kind] for key, kind in _KLOTSKI_KINDS.items()}
    return {
        "task_id": f"{THEIR_DIFFICULTY[level]}_{index + 1:03d}",
        "level": THEIR_DIFFICULTY[level],
        "grid_w": SIZE,
        "grid_h": SIZE,
        "goal_t_pos": list(GOAL),
        "optimal_steps": len(answer),
        "image_path": f"images/klotski_{index:04d}.png",
        "initial_state": {**tops, "T": tops["T"][0]},
        "solution": [{"from": list(cell), "direction": direction.upper()} for cell, direction in answer],
    }, None


PAPER = PaperFormat("klotski/dataset_manifest.json", "image_path", "task_id", read_record, write_record)
"""Where the authors' klotski records are and how one is read."""
