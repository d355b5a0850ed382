"""The authors' maze records, read in our terms (``FamilySpec.paper``).

``maze/maze100.jsonl`` of their ``data/``, one JSON object a line: ``id`` (int),
``difficulty``, ``grid_size``, ``start``, ``goal``, ``walkable`` (the open cells; all else
is wall), ``steps`` (a JSON *string* of directions), ``initial_image``.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from vgau_data.puzzles.maze.state import MazeState
from vgau_data.puzzles.paper_records import (
    THEIR_DIFFICULTY,
    PaperFormat,
    PaperRecord,
    _cell_field,
    _cells_field,
    _grid,
    _list_field,
    _size,
    _tagged,
    cells_of,
    difficulty,
    task_id,
    where,
)

if TYPE_CHECKING:
    from PIL import Image


def read_record(record: Mapping[str, Any], image: Image.Image | None) -> PaperRecord:
    at = where("maze", record, "id")
    side = _size(record, "grid_size", 10, at)
    size = (side, side)
    steps = _list_field(record, "steps", at)
    return PaperRecord(
        task_id=task_id(record, "id", at, "maze"),
        difficulty=difficulty(record, "difficulty", at),
        state={
            "grid": _grid(size, _cells_field(record, "walkable", at, size), ".", "#"),
            "start": _cell_field(record, "start", at, size),
            "goal": _cell_field(record, "goal", at, size),
        },
        stored_answer=_tagged("ANSWER_JSON", steps),
        stored_optimum=len(steps),
    )


def write_record(state: MazeState, answer: Sequence[str], level: str, index: int) -> tuple[dict[str, Any], None]:
    """Our maze as one line of their ``maze100.jsonl``."""
    return {
        "id": index,
        "task_type": "maze",
        "grid_size": len(state.grid),
        "difficulty": THEIR_DIFFICULTY[level],
        "path_bucket": [len(answer), len(answer)],
        "initial_image": f"images/maze_{index:04d}.png",
        "steps": json.dumps(list(answer)),
        "start": list(state.start),
        "goal": list(state.goal),
        "walkable": cells_of(state.grid, "."),
    }, None


PAPER = PaperFormat("maze/maze100.jsonl", "initial_image", "id", read_record, write_record)
"""Where the authors' maze records are and how one is read."""
