"""Readers of the VGAU-Diag authors' published records, one per family.

The authors publish the paper's 600 instances in ``data/`` of
https://github.com/zyb1029/VGAU-Diag (CC BY 4.0). Each family has its own record format
(learned from the files at commit ``b250b81``):

- maze: ``maze/maze100.jsonl``, one JSON object a line: ``id`` (int), ``difficulty``,
  ``grid_size``, ``start``, ``goal``, ``walkable`` (the open cells; all else is wall),
  ``steps`` (a JSON *string* of directions), ``initial_image``.
- sokoban: ``sokoban/dataset_manifest.json``, a JSON array: ``task_id``, ``difficulty``,
  ``grid_h``/``grid_w``, ``walls``, ``player_start``, ``box_start``, ``target``,
  ``solution`` (a JSON string), ``optimal_steps``, ``image_path``.
- path: ``task_id``, ``difficulty``, ``grid_size``, ``start``, ``goal``,
  ``labeled_points`` {letter: cell}, ``answer`` (``"B,E,D"``), ``distance`` (moves),
  ``answer_path``, ``image_path``. No walls: the road map exists only in the image.
- onet: ``task_id``, ``difficulty``, ``grid_size``, ``board`` (letters or null),
  ``tile_legend`` {letter: fruit name}, ``one_solution_steps`` (cell pairs), ``image_path``.
- parking: ``task_id``, ``difficulty``, ``grid_size``, ``exit_row`` (**1-based**: their
  prompt names row ``exit_row - 1``), ``cars`` [{id, orientation H/V, length, row, col}],
  ``optimal_steps``, ``solution`` [{car, direction}], ``image_path``.
- klotski: ``task_id``, ``level`` (not ``difficulty``), ``grid_w``/``grid_h``,
  ``goal_t_pos``, ``initial_state`` {T, Vs, Hs, Ss: top-left cells}, ``optimal_steps``,
  ``solution`` [{from, direction}], ``image_path``.

A reader checks the fields it uses (every failure is a ``PaperDataError`` naming the
record) and returns a ``PaperRecord``: our SPEC §4 state object and the stored solution
as answer text in our SPEC §3 format, so that our own parsers and solvers judge it.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final

from vgau_data.builders.hub_folder import ROW_ID_PATTERN
from vgau_data.builders.paper_images import read_road_grid
from vgau_data.errors import PaperDataError
from vgau_data.puzzles.base import Cell
from vgau_data.puzzles.klotski import state as klotski_state
from vgau_data.puzzles.onet import state as onet_state
from vgau_data.puzzles.parking import state as parking_state

if TYPE_CHECKING:
    from PIL import Image

DIFFICULTY_LABELS: Final = {"easy": "easy", "middle": "medium", "medium": "medium", "hard": "hard"}
"""Their difficulty labels -> ours (they call the middle bucket ``middle``)."""
_MAX_TEXT: Final = 10_000
"""Longest stored solution string read (an honest one is a few hundred characters)."""

FRUIT_ALIASES: Final = {"apple_red": "apple", "grapes": "grape", "tangerine": "orange", "cherries": "cherry"}
"""Their fruit names that are one of ours under another name (see ``our_fruits``)."""
_KLOTSKI_KINDS: Final = {"T": "target", "Vs": "vertical", "Hs": "horizontal", "Ss": "single"}


@dataclass(frozen=True, slots=True)
class PaperRecord:
    """One of the authors' records in our terms.

    ``state`` is our SPEC §4 state object (not yet validated by the family);
    ``stored_answer`` is their solution written in our answer format; ``stored_optimum``
    is the optimum they stored (maze and onet store none: the length of their solution).
    """

    task_id: str
    difficulty: str
    state: dict[str, Any]
    stored_answer: str
    stored_optimum: int


Reader = Callable[[Mapping[str, Any], "Image.Image | None"], PaperRecord]


@dataclass(frozen=True, slots=True)
class PaperFormat:
    """Where a family's records are and how one is read.

    ``image_key`` names the field holding the board image's path (relative to the
    family's folder); ``walls_in_image`` says the record needs that image to be read.
    """

    manifest: str
    image_key: str
    id_key: str
    read: Reader
    walls_in_image: bool = False


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
    if label not in DIFFICULTY_LABELS:
        raise PaperDataError(f"{at}: {key} {label!r:.20} is none of {', '.join(DIFFICULTY_LABELS)}")
    return DIFFICULTY_LABELS[label]


def _tagged(tag: str, payload: Any) -> str:
    return f"<{tag}>{json.dumps(payload)}</{tag}>"


def _grid(size: tuple[int, int], cells: Iterable[Cell], cell_char: str, other: str) -> list[str]:
    marked = set(cells)
    return ["".join(cell_char if (r, c) in marked else other for c in range(size[1])) for r in range(size[0])]


# --------------------------------------------------------------------------- readers


def read_maze(record: Mapping[str, Any], image: Image.Image | None) -> PaperRecord:
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


def read_sokoban(record: Mapping[str, Any], image: Image.Image | None) -> PaperRecord:
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


def read_path(record: Mapping[str, Any], image: Image.Image | None) -> PaperRecord:
    """A path record, its walls read from its image (``read_road_grid``)."""
    at = where("path", record, "task_id")
    side = _size(record, "grid_size", 10, at)
    size = (side, side)
    points = _get(record, "labeled_points", at)
    if not isinstance(points, dict) or len(points) > 26:
        raise PaperDataError(f"{at}: labeled_points must be an object {{letter: [r, c]}}, got {points!r:.60}")
    labels = {str(letter)[:5]: _cell(cell, f"label {letter!s:.5}", at, size) for letter, cell in points.items()}
    start = _cell_field(record, "start", at, size)
    goal = _cell_field(record, "goal", at, size)
    route = _cells_field(record, "answer_path", at, size)
    answer = _get(record, "answer", at)
    if not isinstance(answer, str) or len(answer) > 100:
        raise PaperDataError(f"{at}: answer must be a short string like 'B,E,D', got {answer!r:.40}")
    if image is None:
        raise PaperDataError(f"{at}: path records keep their walls only in the image, and there is none")
    grid = read_road_grid(image, side, known_open={start, goal, *labels.values()}, at=at)
    walls_on_route = [list(cell) for cell in route if grid[cell[0]][cell[1]] != "."]
    if walls_on_route:
        raise PaperDataError(
            f"{at}: its image shows walls at {walls_on_route[:5]} on the stored answer_path; "
            "the image does not belong to this record or is not in the authors' style"
        )
    return PaperRecord(
        task_id=task_id(record, "task_id", at, "path"),
        difficulty=difficulty(record, "difficulty", at),
        state={"grid": grid, "start": start, "end": goal, "labels": labels},
        stored_answer=f"<answer>{answer}</answer>",
        stored_optimum=_int_field(record, "distance", at),
    )


def our_fruits(names: Iterable[str], at: str = "an onet board") -> dict[str, str]:
    """Their fruit names on one board -> distinct fruits of ours (``onet.FRUITS``).

    A name that is one of ours keeps it, then a name with an alias in ``FRUIT_ALIASES``
    takes that fruit if it is free; every other name gets the first fruit of ours not
    used on the board. Only our drawings depend on
    this: the rules compare kinds, and a board's kinds stay distinct.

    Example:
        >>> our_fruits(["tomato", "banana", "apple_red"])
        {'banana': 'banana', 'apple_red': 'apple', 'tomato': 'avocado'}
    """
    def preference(name: str) -> tuple[int, str]:  # our own names first, then aliases, then the rest
        return (0 if name in onet_state.FRUITS else 1 if FRUIT_ALIASES.get(name) in onet_state.FRUITS else 2, name)

    wanted = sorted(set(names), key=preference)
    if len(wanted) > len(onet_state.FRUITS):
        raise PaperDataError(f"{at}: {len(wanted)} fruit kinds on one board; we draw at most {len(onet_state.FRUITS)}")
    mapping: dict[str, str] = {}
    for name in wanted:
        ours = FRUIT_ALIASES.get(name, name)
        if ours not in onet_state.FRUITS or ours in mapping.values():
            ours = next(f for f in onet_state.FRUITS if f not in mapping.values())
        mapping[name] = ours
    return mapping


def read_onet(record: Mapping[str, Any], image: Image.Image | None) -> PaperRecord:
    at = where("onet", record, "task_id")
    side = _size(record, "grid_size", onet_state.SIZE, at)
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


def read_parking(record: Mapping[str, Any], image: Image.Image | None) -> PaperRecord:
    at = where("parking", record, "task_id")
    side = _size(record, "grid_size", parking_state.SIZE, at)
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


def read_klotski(record: Mapping[str, Any], image: Image.Image | None) -> PaperRecord:
    at = where("klotski", record, "task_id")
    _size(record, "grid_w", klotski_state.SIZE, at)
    _size(record, "grid_h", klotski_state.SIZE, at)
    size = (klotski_state.SIZE, klotski_state.SIZE)
    goal = _cell_field(record, "goal_t_pos", at, size)
    if goal != klotski_state.GOAL:
        raise PaperDataError(f"{at}: goal_t_pos is {list(goal)}; this benchmark's goal is {list(klotski_state.GOAL)}")
    layout = _get(record, "initial_state", at)
    if not isinstance(layout, dict) or set(layout) != set(_KLOTSKI_KINDS):
        raise PaperDataError(f"{at}: initial_state must have exactly the keys T, Vs, Hs, Ss, got {layout!r:.60}")
    tops = {key: [_cell(layout["T"], "T", at, size)] if key == "T" else _cells(layout[key], key, at, size)
            for key in _KLOTSKI_KINDS}
    blocks = [
        {"kind": kind, "row": r, "col": c, "height": klotski_state.SHAPES[kind][0], "width": klotski_state.SHAPES[kind][1]}
        for key, kind in _KLOTSKI_KINDS.items()
        for r, c in tops[key]
    ]
    return PaperRecord(
        task_id=task_id(record, "task_id", at, "klotski"),
        difficulty=difficulty(record, "level", at),
        state={"size": klotski_state.SIZE, "goal": list(goal), "blocks": blocks},
        stored_answer=json.dumps({"solution": _list_field(record, "solution", at)}),
        stored_optimum=_int_field(record, "optimal_steps", at),
    )


FORMATS: Final[Mapping[str, PaperFormat]] = {
    "maze": PaperFormat("maze/maze100.jsonl", "initial_image", "id", read_maze),
    "sokoban": PaperFormat("sokoban/dataset_manifest.json", "image_path", "task_id", read_sokoban),
    "path": PaperFormat("path/dataset_manifest.json", "image_path", "task_id", read_path, walls_in_image=True),
    "onet": PaperFormat("onet/dataset_manifest.json", "image_path", "task_id", read_onet),
    "parking": PaperFormat("parking/dataset_manifest.json", "image_path", "task_id", read_parking),
    "klotski": PaperFormat("klotski/dataset_manifest.json", "image_path", "task_id", read_klotski),
}
"""Family -> the authors' file (relative to ``data/``) and its record reader."""
