"""A klotski board (36 per-cell codes) and its JSON and ASCII forms (a leaf: nothing of the family imported)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final, NamedTuple

from vgau_data.errors import StateError
from vgau_data.puzzles.base import Cell, canonical_json

SIZE: Final = 6
GOAL: Final[Cell] = (4, 2)
_GOAL_INDEX: Final = GOAL[0] * SIZE + GOAL[1]


KINDS: Final = ("target", "vertical", "horizontal", "single")
"""Block kinds in canonical order (the order of ``to_json``'s block list)."""
SHAPES: Final = {"target": (2, 2), "vertical": (2, 1), "horizontal": (1, 2), "single": (1, 1)}
"""(height, width) of each kind."""
INVENTORY: Final = {"target": 1, "vertical": 8, "horizontal": 3, "single": 8}
EMPTY_CELLS: Final = 2

_CODES: Final = {"target": "ABCD", "vertical": "vw", "horizontal": "hi", "single": "s"}
"""Per-cell codes of each kind, row-major over the block's cells."""
_KIND_OF_TOP_LEFT: Final = {"A": "target", "v": "vertical", "h": "horizontal", "s": "single"}
_ASCII_OF_CODE: Final = {"A": "T", "B": "T", "C": "T", "D": "T", "v": "|", "w": "|", "h": "-", "i": "-", "s": "o", ".": "."}

Step = tuple[Cell, str]
"""``((r, c), direction)``: the block with top-left ``(r, c)`` slides one cell."""


class Block(NamedTuple):
    """One block of a state: its kind, top-left cell and size."""

    kind: str
    row: int
    col: int
    height: int
    width: int


@dataclass(frozen=True, slots=True)
class KlotskiState:
    """A board: ``cells`` is the 36-character row-major string of per-cell codes.

    Codes: target ``A B / C D``; vertical ``v`` (top) over ``w``; horizontal ``h``
    (left) then ``i``; single ``s``; empty ``.``. Identical blocks share codes, so equal
    boards are equal strings. Build states with ``from_json``/``from_ascii``, which check them.
    """

    cells: str

    @property
    def target(self) -> Cell:
        """Top-left cell of the target."""
        return divmod(self.cells.index("A"), SIZE)

    @property
    def blocks(self) -> tuple[Block, ...]:
        """Every block in canonical order: kind order, then row, then column."""
        found: list[Block] = []
        for kind in KINDS:
            code = _CODES[kind][0]
            height, width = SHAPES[kind]
            for index, char in enumerate(self.cells):
                if char == code:
                    found.append(Block(kind, index // SIZE, index % SIZE, height, width))
        return tuple(found)


def to_json(state: KlotskiState) -> str:
    """The canonical JSON of ``state`` (docs/contract/states.md; blocks sorted by kind, row, column).

    Example:
        >>> to_json(EXAMPLE)[:75]
        '{"blocks":[{"col":2,"height":2,"kind":"target","row":3,"width":2},{"col":0,'
    """
    blocks = [block._asdict() for block in state.blocks]
    return canonical_json({"size": SIZE, "goal": list(GOAL), "blocks": blocks})


def from_json(text: str) -> KlotskiState:
    """Parse and fully validate the state JSON (docs/contract/states.md); blocks may come in any order.

    Raises:
        StateError: malformed JSON, wrong keys or types, a block off the board,
            overlapping blocks, or not exactly the inventory of ``INVENTORY``.
    """
    if not isinstance(text, (str, bytes)):
        raise StateError(f"klotski state must be a JSON string, got {type(text).__name__}")
    try:
        data = json.loads(text)
    except (ValueError, RecursionError) as e:
        raise StateError(f"klotski state is not valid JSON: {e}") from e
    if not isinstance(data, dict) or set(data) != {"size", "goal", "blocks"}:
        keys = sorted(data) if isinstance(data, dict) else type(data).__name__
        raise StateError(f"klotski state needs exactly the keys blocks, goal, size; got {keys}")
    if type(data["size"]) is not int or data["size"] != SIZE:
        raise StateError(f"klotski size must be {SIZE}, got {data['size']!r}")
    if data["goal"] != list(GOAL) or any(type(v) is not int for v in data["goal"]):
        raise StateError(f"klotski goal must be {list(GOAL)}, got {data['goal']!r}")
    if not isinstance(data["blocks"], list):
        raise StateError(f"klotski blocks must be a list, got {type(data['blocks']).__name__}")
    chars = ["."] * (SIZE * SIZE)
    for number, block in enumerate(data["blocks"]):
        _place(chars, block, number)
    return _checked(chars)


def _placements() -> dict[tuple[str, int, int, int, int], tuple[tuple[int, str], ...]]:
    """``(kind, row, col, height, width)`` of every block on the board -> its cells' indices and codes."""
    table = {}
    for kind, (height, width) in SHAPES.items():
        for row in range(SIZE - height + 1):
            for col in range(SIZE - width + 1):
                cells = [r * SIZE + c for r in range(row, row + height) for c in range(col, col + width)]
                table[kind, row, col, height, width] = tuple(zip(cells, _CODES[kind]))
    return table


_PLACEMENTS: Final = _placements()


def _place(chars: list[str], block: object, number: int) -> None:
    if type(block) is dict and len(block) == 5:  # fast path: a well-formed block on free cells
        kind, row, col = block.get("kind"), block.get("row"), block.get("col")
        height, width = block.get("height"), block.get("width")
        if type(kind) is str and type(row) is int and type(col) is int and type(height) is int and type(width) is int:
            cells = _PLACEMENTS.get((kind, row, col, height, width), ())
            for index, _ in cells:
                if chars[index] != ".":
                    break
            else:
                if cells:
                    for index, code in cells:
                        chars[index] = code
                    return
    _place_checked(chars, block, number)


def _place_checked(chars: list[str], block: object, number: int) -> None:
    """Place ``block`` or raise the ``StateError`` that names what is wrong with it."""
    fields = ("col", "height", "kind", "row", "width")
    if not isinstance(block, dict) or sorted(block) != list(fields):
        raise StateError(f"klotski block {number} must be an object with keys {list(fields)}, got {block!r:.80}")
    kind = block["kind"]
    if not isinstance(kind, str) or kind not in SHAPES:  # a list or an object is no kind (and no dict key)
        raise StateError(f"klotski block {number}: kind must be one of {list(KINDS)}, got {kind!r:.40}")
    for name in ("row", "col", "height", "width"):
        if type(block[name]) is not int:
            raise StateError(f"klotski block {number}: {name} must be an integer, got {block[name]!r:.40}")
    row, col, height, width = block["row"], block["col"], block["height"], block["width"]
    if (height, width) != SHAPES[kind]:
        raise StateError(f"klotski block {number}: a {kind} is {SHAPES[kind]} (height, width), got {(height, width)}")
    if not (0 <= row <= SIZE - height and 0 <= col <= SIZE - width):
        raise StateError(f"klotski block {number}: {kind} at ({row}, {col}) leaves the {SIZE}x{SIZE} board")
    codes = iter(_CODES[kind])
    for r in range(row, row + height):
        for c in range(col, col + width):
            if chars[r * SIZE + c] != ".":
                raise StateError(f"klotski block {number}: {kind} at ({row}, {col}) overlaps another block at ({r}, {c})")
            chars[r * SIZE + c] = next(codes)


def _checked(chars: list[str]) -> KlotskiState:
    cells = "".join(chars)
    counts = {kind: cells.count(_CODES[kind][0]) for kind in KINDS}
    if counts != INVENTORY or cells.count(".") != EMPTY_CELLS:
        raise StateError(f"klotski board needs blocks {INVENTORY} and {EMPTY_CELLS} empty cells; got {counts}")
    return KlotskiState(cells)


def to_ascii(state: KlotskiState) -> list[str]:
    """Six rows: ``T`` target, ``|`` vertical, ``-`` horizontal, ``o`` single, ``.`` empty.

    Example:
        >>> print("\\n".join(to_ascii(EXAMPLE)))
        ||||||
        ||||||
        ----oo
        |oTTo|
        |oTTo|
        --..oo
    """
    text = "".join(_ASCII_OF_CODE[char] for char in state.cells)
    return [text[r * SIZE : (r + 1) * SIZE] for r in range(SIZE)]


def from_ascii(rows: Sequence[str] | str) -> KlotskiState:
    """Inverse of ``to_ascii`` (a list of rows or one multi-line string).

    Runs of ``|`` in a column pair top-down into vertical blocks, runs of ``-`` in a row
    pair left-to-right into horizontal blocks; the ``T`` cells must form one 2x2 square.

    Raises:
        StateError: wrong size, unknown characters, odd runs, or a wrong inventory.
    """
    if isinstance(rows, str):
        rows = rows.split()
    if len(rows) != SIZE or any(len(row) != SIZE for row in rows):
        raise StateError(f"klotski ascii board must be {SIZE} rows of {SIZE} characters, got {list(rows)!r:.120}")
    text = "".join(rows)
    if bad := set(text) - set("T|-o."):
        raise StateError(f"klotski ascii board has unknown characters {sorted(bad)}; use T | - o .")
    chars = ["s" if char == "o" else "." if char == "." else "" for char in text]
    for index, char in enumerate(text):
        if char == "|" and not chars[index]:
            if index + SIZE >= SIZE * SIZE or text[index + SIZE] != "|":
                raise StateError(f"klotski ascii board: vertical block at {divmod(index, SIZE)} has no lower half")
            chars[index], chars[index + SIZE] = "v", "w"
        elif char == "-" and not chars[index]:
            if index % SIZE == SIZE - 1 or text[index + 1] != "-":
                raise StateError(f"klotski ascii board: horizontal block at {divmod(index, SIZE)} has no right half")
            chars[index], chars[index + 1] = "h", "i"
    targets = [index for index, char in enumerate(text) if char == "T"]
    first = targets[0] if targets else 0
    if len(targets) != 4 or first % SIZE == SIZE - 1 or targets != [first, first + 1, first + SIZE, first + SIZE + 1]:
        raise StateError(f"klotski ascii board: the T cells must form one 2x2 square, got {[divmod(i, SIZE) for i in targets]}")
    for index, code in zip(targets, "ABCD"):
        chars[index] = code
    return _checked(chars)


EXAMPLE: Final = from_ascii(["||||||", "||||||", "----oo", "|oTTo|", "|oTTo|", "--..oo"])
"""A one-move board (the target slides down) used in the docstrings."""
