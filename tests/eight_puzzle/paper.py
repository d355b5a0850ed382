"""The 8-puzzle in a published-records layout (``PAPER``): the authors published none, so this is
the layout their other manifests share (``task_id``, ``level``, the board, ``optimal_steps``,
``solution``, ``image_path``), which ``build --from-paper`` reads like theirs.

``eight_puzzle/dataset_manifest.json``: ``board`` three strings, ``0`` the blank and ``1``-``8`` the
tiles (A-H in our letters); ``solution`` the directions the tiles slide, upper case.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, Final

from tests.eight_puzzle.state import BLANK, GOAL, EightState
from vgau_data.errors import PaperDataError
from vgau_data.puzzles.paper_records import (
    THEIR_DIFFICULTY,
    PaperFormat,
    PaperRecord,
    _get,
    _int_field,
    _list_field,
    difficulty,
    task_id,
    where,
)

if TYPE_CHECKING:
    from PIL import Image

_THEIRS: Final = {letter: str(GOAL.index(letter) + 1) if letter != BLANK else "0" for letter in GOAL}
_OURS: Final = {digit: letter for letter, digit in _THEIRS.items()}


def read_record(record: Mapping[str, Any], image: Image.Image | None) -> PaperRecord:
    at = where("eight_puzzle", record, "task_id")
    board = _get(record, "board", at)
    if not (isinstance(board, list) and all(isinstance(row, str) for row in board)):
        raise PaperDataError(f"{at}: board must be a list of strings, got {board!r:.60}")
    try:
        rows = ["".join(_OURS[digit] for digit in row) for row in board]
    except KeyError as error:
        raise PaperDataError(f"{at}: board holds {error.args[0]!r}; tiles are 0-8") from None
    solution = [str(move).lower() for move in _list_field(record, "solution", at)]
    return PaperRecord(
        task_id=task_id(record, "task_id", at, "eight_puzzle"),
        difficulty=difficulty(record, "level", at),
        state={"tiles": rows},
        stored_answer=f"<ANSWER_JSON>{solution!r}</ANSWER_JSON>".replace("'", '"'),
        stored_optimum=_int_field(record, "optimal_steps", at),
    )


def write_record(state: EightState, answer: Sequence[str], level: str, index: int) -> tuple[dict[str, Any], None]:
    """Our tray as one record of that manifest."""
    return {
        "task_id": f"{THEIR_DIFFICULTY[level]}_{index + 1:03d}",
        "level": THEIR_DIFFICULTY[level],
        "board": ["".join(_THEIRS[letter] for letter in row) for row in state.rows],
        "optimal_steps": len(answer),
        "image_path": f"images/eight_puzzle_{index:04d}.png",
        "solution": [move.upper() for move in answer],
    }, None


PAPER = PaperFormat("eight_puzzle/dataset_manifest.json", "image_path", "task_id", read_record, write_record)
