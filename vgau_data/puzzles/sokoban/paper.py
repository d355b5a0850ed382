"""The authors' sokoban records, read in our terms (``FamilySpec.paper``).

``sokoban/dataset_manifest.json`` of their ``data/``, a JSON array: ``task_id``,
``difficulty``, ``grid_h``/``grid_w``, ``walls``, ``player_start``, ``box_start``,
``target``, ``solution`` (a JSON string), ``optimal_steps``, ``image_path``.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from vgau_data.errors import PaperDataError
from vgau_data.puzzles.paper_records import (
    THEIR_DIFFICULTY,
    PaperFormat,
    PaperRecord,
    _cell_field,
    _cells_field,
    _grid,
    _int_field,
    _list_field,
    _tagged,
    cells_of,
    difficulty,
    task_id,
    where,
)
from vgau_data.puzzles.sokoban.generator import BUCKETS
from vgau_data.puzzles.sokoban.state import SokobanState

if TYPE_CHECKING:
    from PIL import Image


def read_record(record: Mapping[str, Any], image: Image.Image | None) -> PaperRecord:
    at = where("sokoban", record, "task_id")
    size = (_int_field(record, "grid_h", at), _int_field(record, "grid_w", at))
    if not (1 <= size[0] <= 10 and 1 <= size[1] <= 10):
        raise PaperDataError(f"{at}: the board is {size[0]}x{size[1]}; boards are at most 10x10")
    return PaperRecord(
        task_id=task_id(record, "task_id", at, "sokoban"),
        difficulty=difficulty(record, "difficulty", at),
        state={
            "grid": _grid(size, _cells_field(record, "walls", at, size), "#", "."),
            "player": _cell_field(record, "player_start", at, size),
            "box": _cell_field(record, "box_start", at, size),
            "target": _cell_field(record, "target", at, size),
        },
        stored_answer=_tagged("ANSWER_JSON", _list_field(record, "solution", at)),
        stored_optimum=_int_field(record, "optimal_steps", at),
    )


def write_record(state: SokobanState, answer: Sequence[str], level: str, index: int) -> tuple[dict[str, Any], None]:
    """Our sokoban board as one record of their manifest."""
    return {
        "task_id": f"sokoban_{index:03d}",
        "image_path": f"images/sokoban_{index:04d}.png",
        "grid_h": len(state.grid),
        "grid_w": len(state.grid[0]),
        "difficulty": THEIR_DIFFICULTY[level],
        "step_range": list(BUCKETS[level]),
        "walls": cells_of(state.grid, "#"),
        "player_start": list(state.player),
        "box_start": list(state.box),
        "target": list(state.target),
        "solution": json.dumps(list(answer)),
        "optimal_steps": len(answer),
        "prompt": "Solve this Sokoban puzzle.",
    }, None


PAPER = PaperFormat("sokoban/dataset_manifest.json", "image_path", "task_id", read_record, write_record)
"""Where the authors' sokoban records are and how one is read."""
