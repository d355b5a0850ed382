"""The authors' parking records, read in our terms (``FamilySpec.paper``).

``parking/dataset_manifest.json`` of their ``data/``: ``task_id``, ``difficulty``,
``grid_size``, ``exit_row`` (**1-based**: their prompt names row ``exit_row - 1``),
``cars`` [{id, orientation H/V, length, row, col}], ``optimal_steps``, ``solution``
[{car, direction}], ``image_path``. The solver's default budget decides all 100 of them
(the hardest, ``parking_exit_061``, meets about 0.46M positions).
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, Final

from vgau_data.errors import PaperDataError
from vgau_data.puzzles.paper_records import (
    THEIR_DIFFICULTY,
    PaperFormat,
    PaperRecord,
    _get,
    _int,
    _int_field,
    _list_field,
    _size,
    _tagged,
    difficulty,
    task_id,
    where,
)
from vgau_data.puzzles.parking.solver import solve
from vgau_data.puzzles.parking.state import SIZE, ParkingState, Step

if TYPE_CHECKING:
    from PIL import Image


def read_record(record: Mapping[str, Any], image: Image.Image | None) -> PaperRecord:
    at = where("parking", record, "task_id")
    side = _size(record, "grid_size", SIZE, at)
    cars = _get(record, "cars", at)
    if not isinstance(cars, list) or len(cars) > side * side:
        raise PaperDataError(f"{at}: cars must be a list of vehicles, got {cars!r:.60}")
    vehicles = []
    for car in cars:
        if not isinstance(car, dict):
            raise PaperDataError(f"{at}: a car must be an object, got {car!r:.40}")
        orientation = _get(car, "orientation", at)
        if orientation not in ("H", "V", "h", "v"):
            raise PaperDataError(f"{at}: car orientation must be H or V, got {orientation!r:.10}")
        vehicles.append({
            "id": str(_get(car, "id", at))[:5],
            "orientation": orientation.lower(),
            **{key: _int(_get(car, key, at), f"car {key}", at) for key in ("row", "col", "length")},
        })
    return PaperRecord(
        task_id=task_id(record, "task_id", at, "parking"),
        difficulty=difficulty(record, "difficulty", at),
        state={"size": side, "exit_row": _int_field(record, "exit_row", at) - 1, "vehicles": vehicles},
        stored_answer=_tagged("ANSWER_JSON", _list_field(record, "solution", at)),
        stored_optimum=_int_field(record, "optimal_steps", at),
    )


def write_record(state: ParkingState, answer: Sequence[Step], level: str, index: int) -> tuple[dict[str, Any], None]:
    """Our board as one record of their manifest (their exit row counts from 1)."""
    cars = [{"id": v.id, "orientation": v.orientation.upper(), "length": v.length, "row": v.row, "col": v.col}
            for v in state.vehicles]  # fmt: skip
    return {
        "task_id": f"parking_exit_{index:03d}",
        "image_path": f"images/parking_exit_{index:04d}.png",
        "grid_size": state.size,
        "exit_row": state.exit_row + 1,
        "difficulty": THEIR_DIFFICULTY[level],
        "cars": cars,
        "optimal_steps": len(answer),
        "solution": [{"car": car, "direction": direction} for car, direction in answer],
    }, None


PAPER_MAX_STATES: Final = 800_000
"""The search budget for a published board: the authors' hardest, parking_exit_061, meets
about 0.46M positions; a hostile record of many free cars stops here (about 3 s, 230 MB)
instead of at the default 3M (about 14 s, 0.7 GB)."""
PAPER = PaperFormat("parking/dataset_manifest.json", "image_path", "task_id", read_record, write_record,
                    solve=functools.partial(solve, max_states=PAPER_MAX_STATES))  # fmt: skip
"""Where the authors' parking records are and how one is read."""
