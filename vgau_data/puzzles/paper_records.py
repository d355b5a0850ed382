"""The authors' published records: what a family's reader returns, and the field helpers every reader shares.

The authors publish the paper's 600 instances in ``data/`` of
https://github.com/zyb1029/VGAU-Diag (CC BY 4.0), one file per family in its own
record format (learned from the files at commit ``b250b81``). A family that can read
them declares a ``PaperFormat`` (``FamilySpec.paper``, in its ``paper.py``): its file,
the record fields holding the id and the image, and a reader. A reader checks the fields
it uses with the helpers below (every failure is a ``PaperDataError`` naming the record)
and returns a ``PaperRecord``: our state object and the stored solution as answer
text in our answer format (docs/contract/), so that our own parsers and solvers judge it.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final

from vgau_data.errors import PaperDataError
from vgau_data.types import ROW_ID_PATTERN, Cell

if TYPE_CHECKING:
    from PIL import Image

DIFFICULTY_LABELS: Final = {"easy": "easy", "middle": "medium", "medium": "medium", "hard": "hard"}
"""Their difficulty labels -> ours (they call the middle bucket ``middle``)."""
THEIR_DIFFICULTY: Final = {"easy": "easy", "medium": "middle", "hard": "hard"}
"""Our difficulties as their records label them."""
_MAX_TEXT: Final = 10_000
"""Longest stored solution string read (an honest one is a few hundred characters)."""


@dataclass(frozen=True, slots=True)
class PaperRecord:
    """One of the authors' records in our terms.

    ``state`` is our state object (not yet validated by the family);
    ``stored_answer`` is their solution written in our answer format; ``stored_optimum``
    is the optimum they stored (maze and onet store none: the length of their solution).
    """

    task_id: str
    difficulty: str
    state: dict[str, Any]
    stored_answer: str
    stored_optimum: int


Reader = Callable[[Mapping[str, Any], "Image.Image | None"], PaperRecord]
Writer = Callable[[Any, Sequence[Any], str, int], "tuple[dict[str, Any], Image.Image | None]"]
"""``(state, optimal answer, difficulty, index) -> (record, image)``: one of our instances as their record."""


@dataclass(frozen=True, slots=True)
class PaperFormat:
    """Where a family's records are and how one is read (``FamilySpec.paper``).

    ``manifest`` is their file, relative to their ``data/`` folder; ``image_key`` names the
    field holding the board image's path (relative to the family's folder) and ``id_key``
    the record's id; ``walls_in_image`` says the record needs that image to be read.
    ``write`` is the inverse of ``read``: one of our instances in their layout (with its
    image, drawn in their style, where ``walls_in_image``), so ``check_family`` can show
    that the reader reads their format back to our instance.
    ``solve`` is the solver for their boards when they need another search budget than
    ``FamilySpec.solve`` (None: that one); ``card_note`` is a line the card of a
    ``--from-paper`` build adds about them ('' when there is nothing to add).
    """

    manifest: str
    image_key: str
    id_key: str
    read: Reader
    write: Writer
    walls_in_image: bool = False
    solve: Callable[[Any], Any] | None = None
    card_note: str = ""


# --------------------------------------------------------------------------- fields


def where(family: str, record: Mapping[str, Any], id_key: str) -> str:
    """``"maze record maze_0012"``: how messages name a record (before its id is validated)."""
    value = record.get(id_key, "?")
    if isinstance(value, int) and not isinstance(value, bool):
        value = f"{family}_{value:04d}"
    return f"{family} record {str(value)[:40]}"


def _get(record: Mapping[str, Any], key: str, at: str) -> Any:
    if key not in record:
        raise PaperDataError(f"{at}: no field {key!r} (the record has {', '.join(sorted(record)[:20])})")
    return record[key]


def _int(value: Any, name: str, at: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise PaperDataError(f"{at}: {name} must be an integer, got {value!r:.40}")
    return value


def _cell(value: Any, name: str, at: str, size: tuple[int, int]) -> Cell:
    if not isinstance(value, list) or len(value) != 2:
        raise PaperDataError(f"{at}: {name} must be a cell [r, c], got {value!r:.40}")
    r, c = (_int(v, name, at) for v in value)
    if not (0 <= r < size[0] and 0 <= c < size[1]):
        raise PaperDataError(f"{at}: {name} {[r, c]} is outside the {size[0]}x{size[1]} board")
    return (r, c)


def _cells(value: Any, name: str, at: str, size: tuple[int, int]) -> list[Cell]:
    if not isinstance(value, list):
        raise PaperDataError(f"{at}: {name} must be a list of cells, got {type(value).__name__}")
    return [_cell(item, name, at, size) for item in value]


def _cell_field(record: Mapping[str, Any], key: str, at: str, size: tuple[int, int]) -> Cell:
    return _cell(_get(record, key, at), key, at, size)


def _cells_field(record: Mapping[str, Any], key: str, at: str, size: tuple[int, int]) -> list[Cell]:
    return _cells(_get(record, key, at), key, at, size)


def _int_field(record: Mapping[str, Any], key: str, at: str) -> int:
    return _int(_get(record, key, at), key, at)


def _list_field(record: Mapping[str, Any], name: str, at: str) -> list[Any]:
    """A list, or a JSON string holding one (maze ``steps``, sokoban ``solution``)."""
    value = _get(record, name, at)
    if isinstance(value, str):
        if len(value) > _MAX_TEXT:
            raise PaperDataError(f"{at}: {name} is {len(value)} characters long")
        try:
            value = json.loads(value)
        except (ValueError, RecursionError) as e:
            raise PaperDataError(f"{at}: {name} is not valid JSON ({e})") from None
    if not isinstance(value, list):
        raise PaperDataError(f"{at}: {name} must be a list, got {type(value).__name__}")
    return value


def _size(record: Mapping[str, Any], key: str, expected: int, at: str) -> int:
    size = _int_field(record, key, at)
    if size != expected:
        raise PaperDataError(f"{at}: {key} is {size}; this benchmark's boards are {expected}")
    return size


def task_id(record: Mapping[str, Any], key: str, at: str, family: str) -> str:
    """Their id as a row id: a string as it is, an integer (maze) as ``maze_0007``.

    ``maze_0007`` is also the stem of that record's image file.
    """
    value = _get(record, key, at)
    if isinstance(value, int) and not isinstance(value, bool) and 0 <= value < 10**6:
        return f"{family}_{value:04d}"
    if not (isinstance(value, str) and ROW_ID_PATTERN.fullmatch(value)):
        raise PaperDataError(f"{at}: {key} must be a short name of letters, digits, '_', '.', '-'; got {value!r:.40}")
    return value


def difficulty(record: Mapping[str, Any], key: str, at: str) -> str:
    label = _get(record, key, at)
    if not isinstance(label, str) or label not in DIFFICULTY_LABELS:
        raise PaperDataError(f"{at}: {key} {label!r:.20} is none of {', '.join(DIFFICULTY_LABELS)}")
    return DIFFICULTY_LABELS[label]


def _tagged(tag: str, payload: Any) -> str:
    return f"<{tag}>{json.dumps(payload)}</{tag}>"


def _grid(size: tuple[int, int], cells: Iterable[Cell], cell_char: str, other: str) -> list[str]:
    marked = set(cells)
    return ["".join(cell_char if (r, c) in marked else other for c in range(size[1])) for r in range(size[0])]


def cells_of(grid: Iterable[str], char: str) -> list[list[int]]:
    """The ``[r, c]`` of every ``char`` in ``grid``'s rows (the cell lists of their records).

    Example:
        >>> cells_of(["#.", ".#"], "#")
        [[0, 0], [1, 1]]
    """
    return [[r, c] for r, row in enumerate(grid) for c, value in enumerate(row) if value == char]


def raw_cell(value: Any) -> Cell:
    """``[r, c]`` of a record as a cell, unchecked (the structure statistics of their trusted files)."""
    return (int(value[0]), int(value[1]))
