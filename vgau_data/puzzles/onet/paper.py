"""The authors' onet records, read in our terms (``FamilySpec.paper``).

``onet/dataset_manifest.json`` of their ``data/``: ``task_id``, ``difficulty``,
``grid_size``, ``board`` (letters or null), ``tile_legend`` {letter: fruit name},
``one_solution_steps`` (cell pairs), ``image_path``. Their fruit names become fruits we
draw (``our_fruits``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Final

from vgau_data.errors import PaperDataError
from vgau_data.puzzles.onet.state import FRUITS, SIZE, OnetState, Step
from vgau_data.puzzles.paper_records import (
    THEIR_DIFFICULTY,
    PaperFormat,
    PaperRecord,
    _get,
    _list_field,
    _size,
    _tagged,
    difficulty,
    task_id,
    where,
)

if TYPE_CHECKING:
    from PIL import Image


FRUIT_ALIASES: Final = {"apple_red": "apple", "grapes": "grape", "tangerine": "orange", "cherries": "cherry"}
"""Their fruit names that are one of ours under another name (see ``our_fruits``)."""


def our_fruits(names: Iterable[str], at: str = "an onet board") -> dict[str, str]:
    """Their fruit names on one board -> distinct fruits of ours (``state.FRUITS``).

    A name that is one of ours keeps it, then a name with an alias in ``FRUIT_ALIASES``
    takes that fruit if it is free; every other name gets the first fruit of ours not
    used on the board. Only our drawings depend on
    this: the rules compare kinds, and a board's kinds stay distinct.

    Example:
        >>> our_fruits(["tomato", "banana", "apple_red"])
        {'banana': 'banana', 'apple_red': 'apple', 'tomato': 'avocado'}
    """
    def preference(name: str) -> tuple[int, str]:  # our own names first, then aliases, then the rest
        return (0 if name in FRUITS else 1 if FRUIT_ALIASES.get(name) in FRUITS else 2, name)

    wanted = sorted(set(names), key=preference)
    if len(wanted) > len(FRUITS):
        raise PaperDataError(f"{at}: {len(wanted)} fruit kinds on one board; we draw at most {len(FRUITS)}")
    mapping: dict[str, str] = {}
    for name in wanted:
        ours = FRUIT_ALIASES.get(name, name)
        if ours not in FRUITS or ours in mapping.values():
            ours = next(f for f in FRUITS if f not in mapping.values())
        mapping[name] = ours
    return mapping


def read_record(record: Mapping[str, Any], image: Image.Image | None) -> PaperRecord:
    at = where("onet", record, "task_id")
    side = _size(record, "grid_size", SIZE, at)
    board = _get(record, "board", at)
    legend = _get(record, "tile_legend", at)
    if not isinstance(legend, dict) or not all(isinstance(v, str) and len(v) <= 40 for v in legend.values()):
        raise PaperDataError(f"{at}: tile_legend must map tile letters to fruit names, got {legend!r:.60}")
    rows_ok = isinstance(board, list) and len(board) == side
    if not (rows_ok and all(isinstance(row, list) and len(row) == side for row in board)):
        raise PaperDataError(f"{at}: board must be {side} rows of {side} cells")
    tiles = [cell for row in board for cell in row if cell is not None]
    unknown = {repr(cell)[:10] for cell in tiles if not (isinstance(cell, str) and cell in legend)}
    if unknown:
        raise PaperDataError(f"{at}: board tiles {sorted(unknown)[:5]} are not letters of tile_legend")
    fruits = our_fruits((legend[cell] for cell in tiles), at)
    pairs = _list_field(record, "one_solution_steps", at)
    return PaperRecord(
        task_id=task_id(record, "task_id", at, "onet"),
        difficulty=difficulty(record, "difficulty", at),
        state={"size": side, "board": [[None if c is None else fruits[legend[c]] for c in row] for row in board]},
        stored_answer=_tagged("answer_json", pairs),
        stored_optimum=len(pairs),
    )


CARD_NOTE: Final = (
    "- Onet fruit kinds we have no drawing for are drawn as other fruits of ours (distinct on\n"
    "  each board); the rules only compare kinds.\n"
)
def write_record(state: OnetState, answer: Sequence[Step], level: str, index: int) -> tuple[dict[str, Any], None]:
    """Our board as one record of their manifest: a letter per fruit, in reading order, and its legend."""
    letters = {fruit: chr(ord("A") + i) for i, fruit in enumerate(dict.fromkeys(f for row in state.board for f in row if f))}
    return {
        "task_id": f"onet_{index:04d}",
        "image_path": f"images/onet_{index:04d}.png",
        "grid_size": len(state.board),
        "difficulty": THEIR_DIFFICULTY[level],
        "theme": "fruits",
        "style": "image_only_no_grid_sparse",
        "board": [[None if fruit is None else letters[fruit] for fruit in row] for row in state.board],
        "tile_legend": {letter: fruit for fruit, letter in letters.items()},
        "one_solution_steps": [[list(a), list(b)] for a, b in answer],
    }, None


PAPER = PaperFormat("onet/dataset_manifest.json", "image_path", "task_id", read_record, write_record, card_note=CARD_NOTE)
"""Where the authors' onet records are and how one is read."""
