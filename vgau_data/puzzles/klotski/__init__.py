"""Klotski: slide the 2x2 target block to the bottom centre of a packed 6x6 board.

Board:
    6x6 cells holding twenty blocks and two empty cells: one 2x2 target ``T``, eight
    vertical blocks (1 wide, 2 tall), three horizontal blocks (2 wide, 1 tall) and eight
    1x1 singles. Blocks of one kind are indistinguishable, so a state is the 36-character
    string of per-cell codes (``KlotskiState.cells``, row-major): target ``A B / C D``,
    vertical ``v`` over ``w``, horizontal ``h`` then ``i``, single ``s``, empty ``.``.

Step:
    ``((r, c), direction)``: the block whose top-left cell is ``(r, c)`` slides one cell
    up, down, left or right into empty cells. Illegal steps: ``no_block_at`` (no block
    has its top-left at that cell, including cells off the board), ``out_of_bounds`` (the
    block would leave the board) and ``blocked`` (a cell it moves into is occupied).

Goal:
    The target's top-left cell is ``(4, 2)`` (it covers rows 4-5, columns 2-3).

Buckets:
    ``optimal_length`` 1-4 (easy), 6-10 (medium), 15-20 (hard), found by BFS.
    Easy boards walk backward from a random goal tiling (a BFS ball of backward
    slides, SPEC §2); medium and hard boards use targeted placement (performance notes):
    a random tiling around the target at a start position that often yields that
    bucket. Every board is kept only if its BFS optimum lies in the bucket.

Answer:
    ``{"solution":[{"from":[r,c],"direction":"UP"},...]}`` with no tags; the last
    ``"solution"`` in the text wins, and a brace-less run of ``"from": [r, c],
    "direction": "UP"`` pairs is accepted too. One interactive step is
    ``<STEP_JSON>{"from":[r,c],"direction":"UP"}</STEP_JSON>`` (Table 29).
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Final, NamedTuple

import numpy as np
from PIL import Image, ImageDraw

from vgau_data.answers import MAX_PAYLOAD_CHARS, answer_text, last_step_value, read_value, step_text
from vgau_data.errors import GenerationError, StateError
from vgau_data.puzzles.klotski import fidelity as klotski_fidelity
from vgau_data.puzzles.base import (
    DELTAS,
    DIRECTIONS,
    AnswerError,
    Cell,
    FamilySpec,
    Illegal,
    Replay,
    Slot,
    Solution,
    canonical_json,
    draw_slot,
    parse_direction,
    replay_steps,
)
from vgau_data.puzzles.prompts import FamilyPrompts
from vgau_data.rendering import BoardGeometry, draw_centered_text, new_board

# ---------------------------------------------------------------------------- constants

SIZE: Final = 6
GOAL: Final[Cell] = (4, 2)
_GOAL_INDEX: Final = GOAL[0] * SIZE + GOAL[1]

BUCKETS: Final = {"easy": (1, 4), "medium": (6, 10), "hard": (15, 20)}
LENGTH_MIX: Final[dict[str, dict[int, int]]] = {
    "easy": {1: 5, 2: 5, 3: 5, 4: 5},
    "medium": {6: 6, 7: 6, 8: 6, 9: 6, 10: 6},
    "hard": {15: 9, 16: 9, 17: 8, 18: 8, 19: 8, 20: 8},
}
"""Rows per optimum in the authors' 100 published instances (their ``optimal_steps``, counted once)."""

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

MAX_ANSWER_STEPS: Final = 1000

PALETTE: Final = {
    "frame": (150, 138, 122),
    "empty": (238, 232, 218),
    "target": (206, 48, 48),
    "vertical": (52, 104, 196),
    "horizontal": (40, 156, 84),
    "single": (236, 176, 32),
    "label": (255, 255, 255),
}
GEOMETRY: Final = BoardGeometry(rows=SIZE, cols=SIZE, cell_px=88)
BLOCK_INSET: Final = 5
"""Pixels between a block's drawn rectangle and its cells' edges (so neighbours show a gap)."""

_EASY_RADIUS: Final = 6
TOP_VERTICALS: Final = 6
"""Vertical blocks a generated board starts with in rows 0-1 (the authors' boards have 5.6-6 there)."""
TRIM_SLACK: Final = 3
"""A random board whose optimum is up to this much longer than wanted (even past the
bucket) is walked along its optimal solution until exactly the wanted number of moves is left."""
_START_TARGETS: Final = {
    "medium": ((3, 1), (3, 2), (4, 1), (4, 3)),
    "hard": ((2, 2), (3, 1), (3, 2), (3, 3), (4, 0), (4, 1), (4, 3), (4, 4)),
}
"""Target top-left cells whose random tilings often have an optimum in the bucket
(measured: 4-12 ms per medium and 8-150 ms per hard instance, depending on the cell)."""
_MAX_ATTEMPTS: Final = {"easy": 2000, "medium": 2000, "hard": 3000}


# -------------------------------------------------------------------------------- state


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


# ------------------------------------------------------------------------ serialisation


def to_json(state: KlotskiState) -> str:
    """SPEC §4's canonical JSON of ``state`` (blocks sorted by kind, row, column).

    Example:
        >>> to_json(EXAMPLE)[:75]
        '{"blocks":[{"col":2,"height":2,"kind":"target","row":3,"width":2},{"col":0,'
    """
    blocks = [block._asdict() for block in state.blocks]
    return canonical_json({"size": SIZE, "goal": list(GOAL), "blocks": blocks})


def from_json(text: str) -> KlotskiState:
    """Parse and fully validate SPEC §4's JSON; blocks may come in any order.

    Raises:
        StateError: malformed JSON, wrong keys or types, a block off the board,
            overlapping blocks, or not exactly the SPEC inventory.
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


def _place(chars: list[str], block: object, number: int) -> None:
    fields = ("col", "height", "kind", "row", "width")
    if not isinstance(block, dict) or sorted(block) != list(fields):
        raise StateError(f"klotski block {number} must be an object with keys {list(fields)}, got {block!r:.80}")
    kind = block["kind"]
    if kind not in SHAPES:
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


# -------------------------------------------------------------------------------- rules


def _build_step_table() -> dict[tuple[str, int, str], tuple[tuple[int, ...], tuple[tuple[int, str], ...]] | None]:
    """For (top-left code, top-left index, direction): None if the block would leave the
    board, else (cells it moves into, (index, new code) writes that perform the slide)."""
    table: dict[tuple[str, int, str], tuple[tuple[int, ...], tuple[tuple[int, str], ...]] | None] = {}
    for kind in KINDS:
        height, width = SHAPES[kind]
        codes = _CODES[kind]
        for row in range(SIZE - height + 1):
            for col in range(SIZE - width + 1):
                old = [(row + dr) * SIZE + col + dc for dr in range(height) for dc in range(width)]
                for direction, (dr, dc) in DELTAS.items():
                    r, c = row + dr, col + dc
                    if not (0 <= r <= SIZE - height and 0 <= c <= SIZE - width):
                        table[codes[0], old[0], direction] = None
                        continue
                    new = [(r + i) * SIZE + c + j for i in range(height) for j in range(width)]
                    entering = tuple(i for i in new if i not in old)
                    writes = tuple((i, ".") for i in old if i not in new) + tuple(zip(new, codes))
                    table[codes[0], old[0], direction] = (entering, writes)
    return table


_STEP_TABLE: Final = _build_step_table()


def apply_step(state: KlotskiState, step: Step) -> KlotskiState | Illegal:
    """Slide the block whose top-left is ``step[0]`` one cell toward ``step[1]``.

    A direct check of the one or two cells the block moves into; ``step_index`` is 0.

    Example:
        >>> apply_step(EXAMPLE, ((3, 2), "down")).target
        (4, 2)
        >>> apply_step(EXAMPLE, ((3, 3), "down"))
        Illegal(code='no_block_at', step_index=0)
    """
    (r, c), direction = step
    if not (0 <= r < SIZE and 0 <= c < SIZE):
        return Illegal("no_block_at", 0)
    cells = state.cells
    index = r * SIZE + c
    code = cells[index]
    if code not in _KIND_OF_TOP_LEFT:
        return Illegal("no_block_at", 0)
    if direction not in DELTAS:
        return Illegal("unknown_action", 0)
    move = _STEP_TABLE[code, index, direction]
    if move is None:
        return Illegal("out_of_bounds", 0)
    entering, writes = move
    for i in entering:
        if cells[i] != ".":
            return Illegal("blocked", 0)
    chars = list(cells)
    for i, char in writes:
        chars[i] = char
    return KlotskiState("".join(chars))


def is_goal(state: KlotskiState) -> bool:
    """The target's top-left cell is ``GOAL`` (4, 2)."""
    return state.cells[_GOAL_INDEX] == "A"


def legal_steps(state: KlotskiState) -> list[Step]:
    """Every legal step, in block order (kind, row, column) then direction order."""
    steps: list[Step] = []
    for block in state.blocks:
        for direction in DIRECTIONS:
            step = ((block.row, block.col), direction)
            if not isinstance(apply_step(state, step), Illegal):
                steps.append(step)
    return steps


def replay(state: KlotskiState, answer: Sequence[Step]) -> Replay:
    """Play ``answer`` on ``state``; stop at the first illegal step.

    Example:
        >>> replay(EXAMPLE, [((3, 2), "down")]).feasible
        True
        >>> replay(EXAMPLE, []).error
        'not_solved'
    """
    return replay_steps(state, answer, apply_step, is_goal)



# ------------------------------------------------------------------------------- solver


def _neighbours(s: str) -> list[str]:
    """Every board one slide away from ``s``, generated from its two empty cells.

    A block can only move into an empty cell, so each empty cell ``e`` looks at its four
    neighbours for a block that slides into it; 2-cell-wide moves (a horizontal block or
    the target moving vertically, a vertical block or the target moving sideways) need
    both empty cells side by side and are generated once, from the first empty cell.
    """
    e1 = s.find(".")
    e2 = s.find(".", e1 + 1)
    out = []
    for e in (e1, e2):
        r, c = divmod(e, SIZE)
        if r > 0:  # block above slides down into e
            n = e - 6
            k = s[n]
            if k == "s":
                out.append(s[:n] + "." + s[n + 1 : e] + "s" + s[e + 1 :])
            elif k == "w":
                out.append(s[: n - 6] + "." + s[n - 5 : n] + "v" + s[n + 1 : e] + "w" + s[e + 1 :])
        if r < 5:  # block below slides up into e
            n = e + 6
            k = s[n]
            if k == "s":
                out.append(s[:e] + "s" + s[e + 1 : n] + "." + s[n + 1 :])
            elif k == "v":
                out.append(s[:e] + "v" + s[e + 1 : n] + "w" + s[n + 1 : n + 6] + "." + s[n + 7 :])
        if c > 0:  # block on the left slides right into e
            k = s[e - 1]
            if k == "s":
                out.append(s[: e - 1] + ".s" + s[e + 1 :])
            elif k == "i":
                out.append(s[: e - 2] + ".hi" + s[e + 1 :])
        if c < 5:  # block on the right slides left into e
            k = s[e + 1]
            if k == "s":
                out.append(s[:e] + "s." + s[e + 2 :])
            elif k == "h":
                out.append(s[:e] + "hi." + s[e + 3 :])
    e = e1
    r, c = divmod(e, SIZE)
    if e2 == e + 1 and c < 5:  # empty pair side by side: 2-wide blocks move vertically
        if r > 0:
            n = e - 6
            k = s[n]
            if k == "h":
                out.append(s[:n] + ".." + s[n + 2 : e] + "hi" + s[e + 2 :])
            elif k == "C":
                out.append(s[: n - 6] + ".." + s[n - 4 : n] + "AB" + s[n + 2 : e] + "CD" + s[e + 2 :])
        if r < 5:
            n = e + 6
            k = s[n]
            if k == "h":
                out.append(s[:e] + "hi" + s[e + 2 : n] + ".." + s[n + 2 :])
            elif k == "A":
                out.append(s[:e] + "AB" + s[e + 2 : n] + "CD" + s[n + 2 : n + 6] + ".." + s[n + 8 :])
    elif e2 == e + 6:  # empty pair stacked: 2-tall blocks move sideways
        if c > 0:
            n = e - 1
            k = s[n]
            if k == "v":
                out.append(s[:n] + ".v" + s[e + 1 : n + 6] + ".w" + s[e2 + 1 :])
            elif k == "B":
                out.append(s[: n - 1] + ".AB" + s[e + 1 : n + 5] + ".CD" + s[e2 + 1 :])
        if c < 5:
            n = e + 1
            k = s[n]
            if k == "v":
                out.append(s[:e] + "v." + s[n + 1 : e2] + "w." + s[e2 + 2 :])
            elif k == "A":
                out.append(s[:e] + "AB." + s[n + 2 : e2] + "CD." + s[e2 + 3 :])
    return out


def _search(start: str, max_depth: int | None = None) -> list[str] | None:
    """Breadth-first search from ``start`` to any goal board.

    Returns the boards of one shortest path (``start`` first), or None when no goal lies
    within ``max_depth`` slides (``None``: the whole component is searched).
    """
    if start[_GOAL_INDEX] == "A":
        return [start]
    parent: dict[str, str | None] = {start: None}
    layer = [start]
    depth = 0
    while layer and (max_depth is None or depth < max_depth):
        depth += 1
        following = []
        for board in layer:
            for nxt in _neighbours(board):
                if nxt not in parent:
                    parent[nxt] = board
                    if nxt[_GOAL_INDEX] == "A":
                        path: list[str] = [nxt]
                        while (prev := parent[path[-1]]) is not None:
                            path.append(prev)
                        return path[::-1]
                    following.append(nxt)
        layer = following
    return None


def _step_between(before: str, after: str) -> Step:
    """The slide that turns ``before`` into ``after`` (the moved block's old top-left
    cell always changes, so only changed top-left cells are tried)."""
    state = KlotskiState(before)
    for index, (old, new) in enumerate(zip(before, after)):
        if old != new and old in _KIND_OF_TOP_LEFT:
            for direction in DIRECTIONS:
                step = (divmod(index, SIZE), direction)
                moved = apply_step(state, step)
                if isinstance(moved, KlotskiState) and moved.cells == after:
                    return step
    raise RuntimeError(f"no single slide turns {before} into {after}")  # pragma: no cover


def solve(state: KlotskiState) -> Solution | None:
    """A shortest answer by breadth-first search over whole boards, or None if unsolvable.

    An unsolvable board searches its whole component, which can hold 10^5+ boards.

    Example:
        >>> solve(EXAMPLE)
        Solution(answer=(((3, 2), 'down'),), optimal_length=1)
    """
    path = _search(state.cells)
    if path is None:
        return None
    steps = tuple(_step_between(a, b) for a, b in zip(path, path[1:]))
    return Solution(answer=steps, optimal_length=len(steps))


# ---------------------------------------------------------------------------- generator


def _random_tiling(target: Cell, rng: np.random.Generator) -> str | None:
    """A random board laid out like the authors': six vertical blocks fill rows 0-1, the
    target sits at ``target`` and the other blocks fill rows 2-5 at random (None when the
    dominoes jam)."""
    chars = [""] * (SIZE * SIZE)
    for col in range(TOP_VERTICALS):
        chars[col], chars[SIZE + col] = "v", "w"
    index = target[0] * SIZE + target[1]
    for offset, code in zip((0, 1, SIZE, SIZE + 1), "ABCD"):
        chars[index + offset] = code
    order = ["v"] * (INVENTORY["vertical"] - TOP_VERTICALS) + ["h"] * INVENTORY["horizontal"]
    for slot in rng.permutation(len(order)):
        if order[slot] == "v":
            spots = [i for i in range(SIZE * (SIZE - 1)) if not chars[i] and not chars[i + SIZE]]
            other = SIZE
        else:
            spots = [i for i in range(SIZE * SIZE) if i % SIZE < SIZE - 1 and not chars[i] and not chars[i + 1]]
            other = 1
        if not spots:
            return None
        spot = spots[int(rng.integers(len(spots)))]
        chars[spot], chars[spot + other] = ("v", "w") if other == SIZE else ("h", "i")
    free = [i for i in range(SIZE * SIZE) if not chars[i]]
    for i in free:
        chars[i] = "s"
    for pick in rng.choice(len(free), EMPTY_CELLS, replace=False):
        chars[free[int(pick)]] = "."
    return "".join(chars)


def _generate_easy(rng: np.random.Generator, want: int, high: int) -> KlotskiState:
    """Walk backward from a random goal tiling: a BFS ball of slides around it holds boards
    whose target has moved; keep one whose exact optimum is ``want``."""
    for _ in range(_MAX_ATTEMPTS["easy"]):
        goal = _random_tiling(GOAL, rng)
        if goal is None:
            continue
        seen = {goal}
        layer = [goal]
        candidates: list[str] = []
        for depth in range(1, _EASY_RADIUS + 1):
            following = []
            for board in layer:
                for nxt in _neighbours(board):
                    if nxt not in seen:
                        seen.add(nxt)
                        following.append(nxt)
                        if depth >= want and nxt[_GOAL_INDEX] != "A":
                            candidates.append(nxt)
            layer = following
        for pick in rng.permutation(len(candidates)):
            path = _search(candidates[int(pick)], high)
            if path is not None and len(path) - 1 == want:
                return KlotskiState(candidates[int(pick)])
    raise GenerationError(f"klotski/easy: no board of length {want} in {_MAX_ATTEMPTS['easy']} goal tilings")


def generate(difficulty: str, rng: np.random.Generator, slot: Slot | None = None) -> KlotskiState:
    """A random board whose BFS optimum lies in ``BUCKETS[difficulty]``.

    Deterministic for a given ``rng`` state.

    Raises:
        ValueError: an unknown difficulty.
        GenerationError: nothing found within the attempt budget (practically never).

    Example:
        >>> state = generate("medium", np.random.default_rng(0))
        >>> 6 <= solve(state).optimal_length <= 10
        True
    """
    if difficulty not in BUCKETS:
        raise ValueError(f"klotski difficulty must be one of {list(BUCKETS)}, got {difficulty!r}")
    slot = slot or draw_slot(LENGTH_MIX, difficulty, rng)
    low, high = BUCKETS[difficulty]
    if not low <= slot.length <= high:
        raise ValueError(f"klotski/{difficulty}: length {slot.length} is outside {low}-{high}")
    if difficulty == "easy":
        return _generate_easy(rng, slot.length, high)
    starts = _START_TARGETS[difficulty]
    depth = slot.length + TRIM_SLACK
    for _ in range(_MAX_ATTEMPTS[difficulty]):
        board = _random_tiling(starts[int(rng.integers(len(starts)))], rng)
        if board is None:
            continue
        path = _search(board, depth)
        if path is not None and len(path) - 1 >= slot.length:
            return KlotskiState(path[len(path) - 1 - slot.length])
    raise GenerationError(f"klotski/{difficulty}: no board in {_MAX_ATTEMPTS[difficulty]} attempts")


# ----------------------------------------------------------------------------- renderer


@functools.cache
def _background() -> Image.Image:
    image = new_board(GEOMETRY, PALETTE["frame"])
    x0, y0, _, _ = GEOMETRY.cell_box((0, 0))
    _, _, x1, y1 = GEOMETRY.cell_box((SIZE - 1, SIZE - 1))
    ImageDraw.Draw(image).rectangle((x0, y0, x1, y1), fill=PALETTE["empty"])
    return image


@functools.cache
def _sprite(kind: str) -> Image.Image:
    """The block drawn over its whole footprint (cells outside the rounded rectangle
    keep the empty colour, so sprites are pasted without a mask)."""
    height, width = SHAPES[kind]
    px = GEOMETRY.cell_px
    sprite = Image.new("RGB", (width * px, height * px), PALETTE["empty"])
    draw = ImageDraw.Draw(sprite)
    fill = PALETTE[kind]
    edge = tuple(max(0, v - 60) for v in fill)
    box = (BLOCK_INSET, BLOCK_INSET, width * px - 1 - BLOCK_INSET, height * px - 1 - BLOCK_INSET)
    draw.rounded_rectangle(box, radius=14, fill=fill, outline=edge, width=3)
    if kind == "target":
        draw_centered_text(draw, (px, px), "T", 64, PALETTE["label"], stroke=edge)
    return sprite


def render(state: KlotskiState) -> Image.Image:
    """The board as an RGB image of ``GEOMETRY.size``: coloured rounded blocks, the
    target marked ``T``, empty cells plain; no grid lines, no coordinates."""
    image = _background().copy()
    for block in state.blocks:
        x0, y0, _, _ = GEOMETRY.cell_box((block.row, block.col))
        image.paste(_sprite(block.kind), (x0, y0))
    return image


# ------------------------------------------------------------------------------ answers

_SOLUTION_KEY = re.compile(r"""solution["']?\s*[:=]\s*\[""", re.IGNORECASE)
_SOLUTION_TAIL = re.compile(r"""["']?\s*[:=]\s*\[""")
_PAIR = re.compile(
    r"""(?<![A-Za-z])from["']?\s*[:=]\s*\[\s*(-?\d{1,9})\s*,\s*(-?\d{1,9})\s*\]\s*(?:,\s*)?"""
    r"""["']?direction["']?\s*[:=]\s*["']?([A-Za-z]{1,16})""",
    re.IGNORECASE,
)
_PAIR_SEPARATOR = re.compile(r"""[\s,{}\[\]"']*""")
_DECODER = json.JSONDecoder()
_DIRECTION_WORDS: Final = {w: d for d in DIRECTIONS for w in (d, d.upper(), d.capitalize(), d[0], d[0].upper())}
"""Fast path of ``parse_direction`` for the common spellings."""


def parse_answer(text: str) -> tuple[Step, ...]:
    """Read the last ``"solution": [...]`` list, or failing that the last brace-less run of
    ``"from": [r, c], "direction": "UP"`` pairs, from raw model text.

    Raises:
        AnswerError: ``no_answer`` (nothing found), ``bad_format`` (malformed or over
            ``MAX_ANSWER_STEPS`` steps) or ``unknown_action`` (a direction that is not one).

    Example:
        >>> parse_answer('Done: {"solution": [{"from": [3, 2], "direction": "D"}]}')
        (((3, 2), 'down'),)
    """
    text = answer_text(text)
    key = _last_solution_key(text)
    if key is None:
        run, length = _last_pair_run(text, 0)
        if not length:
            raise AnswerError("no_answer", "no solution list and no from/direction pairs")
        return _steps_of_run(run, length)
    start = key - 1
    try:
        value, end = _read_list(text, start)
    except AnswerError:
        run, length = _last_pair_run(text, start)
        if length:  # a broken list whose pairs still read cleanly
            return _steps_of_run(run, length)
        raise
    run, length = _last_pair_run(text, end)
    if length:  # a brace-less answer after the last solution list
        return _steps_of_run(run, length)
    return _steps_of_list(value)


def _last_solution_key(text: str) -> int | None:
    """Index just past the ``[`` that opens the last ``solution: [`` list, or None."""
    end = len(text)
    lowered = text.lower()
    if len(lowered) == len(text):  # else some character lower-cased to two: no index reuse
        for _ in range(64):  # a few backward probes; hostile texts fall through to the regex
            found = lowered.rfind("solution", 0, end)
            if found < 0:
                return None
            if tail := _SOLUTION_TAIL.match(text, found + 8):
                return tail.end()
            end = found
    last = None
    for last in _SOLUTION_KEY.finditer(text, 0, end):
        pass
    return None if last is None else last.end()


def _read_list(text: str, start: int) -> tuple[Any, int]:
    """The JSON value at ``text[start]`` and the index after it: strict JSON first (fast),
    else the lenient bounded reader."""
    window = text[start : start + MAX_PAYLOAD_CHARS]
    try:
        value, end = _DECODER.raw_decode(window)
    except (ValueError, RecursionError):
        value, end = read_value(window, 0)
    return value, start + end


def _last_pair_run(text: str, start: int) -> tuple[list[re.Match[str]], int]:
    """The last maximal run of from/direction pairs after ``start`` (pairs separated only by
    brackets, commas, quotes and spaces): its first ``MAX_ANSWER_STEPS + 1`` pairs and its
    length (0 when there is none). Memory stays bounded however many pairs the text holds."""
    run: list[re.Match[str]] = []
    length = 0
    previous_end = -1
    for match in _PAIR.finditer(text, start):
        if not (length and _PAIR_SEPARATOR.fullmatch(text, previous_end, match.start())):
            run, length = [], 0
        if length <= MAX_ANSWER_STEPS:
            run.append(match)
        length += 1
        previous_end = match.end()
    return run, length


def _steps_of_run(run: list[re.Match[str]], length: int) -> tuple[Step, ...]:
    if length > MAX_ANSWER_STEPS:
        raise AnswerError("bad_format", f"{length} steps (at most {MAX_ANSWER_STEPS})")
    return tuple(((int(m.group(1)), int(m.group(2))), parse_direction(m.group(3))) for m in run)


def _steps_of_list(value: Any) -> tuple[Step, ...]:
    if not isinstance(value, list):
        raise AnswerError("bad_format", "solution is not a list")
    if len(value) > MAX_ANSWER_STEPS:
        raise AnswerError("bad_format", f"{len(value)} steps (at most {MAX_ANSWER_STEPS})")
    return tuple(_step_of(item) for item in value)


def _step_of(item: Any) -> Step:
    if not isinstance(item, dict):
        raise AnswerError("bad_format", f"step is not an object: {item!r:.40}")
    if "from" not in item or "direction" not in item:
        item = {str(k).strip().lower(): v for k, v in item.items()}
    cell, direction = item.get("from"), item.get("direction")
    if not (isinstance(cell, list) and len(cell) == 2 and all(type(v) is int for v in cell)):
        raise AnswerError("bad_format", f"'from' must be [r, c], got {cell!r:.40}")
    if direction is None:
        raise AnswerError("bad_format", "step without 'direction'")
    word = _DIRECTION_WORDS.get(direction) if isinstance(direction, str) else None
    return ((cell[0], cell[1]), word or parse_direction(direction))


def parse_step(text: str) -> Step:
    """The move in the last ``<STEP_JSON>{"from": [r, c], "direction": ...}</STEP_JSON>`` of a reply.

    Example:
        >>> parse_step('<STEP_JSON>{"from": [3, 2], "direction": "DOWN"}</STEP_JSON>')
        ((3, 2), 'down')
    """
    return _step_of(last_step_value(text))


def format_step(step: Step) -> str:
    """One move in the per-turn format (direction upper-case, as the paper writes it).

    Example:
        >>> format_step(((3, 2), "down"))
        '<STEP_JSON>{"from":[3,2],"direction":"DOWN"}</STEP_JSON>'
    """
    (r, c), direction = step
    return step_text({"from": [r, c], "direction": direction.upper()})


def answer_payload(answer: Sequence[Step]) -> str:
    """The compact ``{"solution": [...]}`` JSON of ``answer`` (directions upper-case).

    Example:
        >>> answer_payload([((3, 2), "down")])
        '{"solution":[{"from":[3,2],"direction":"DOWN"}]}'
    """
    steps = [{"from": [r, c], "direction": direction.upper()} for (r, c), direction in answer]
    return json.dumps({"solution": steps}, separators=(",", ":"))


def format_answer(answer: Sequence[Step]) -> str:
    """The full answer text: for klotski the JSON payload itself (no tags)."""
    return answer_payload(answer)


# ------------------------------------------------------------------------------ prompts
# Table 17 (Text-CoT), 23 (Self-GtA), 29 (Self-VCoT) and 35 (Self-VR), in our own words.

PROMPTS: Final = FamilyPrompts(
    legend=(
        f"The image shows a Klotski sliding-block puzzle on a {SIZE}x{SIZE} board. Exactly two cells are "
        "empty at any time, and every other cell belongs to exactly one block. The blocks: one 2x2 target "
        'block, marked "T"; several vertical blocks, 1 cell wide and 2 tall; several horizontal blocks, 2 '
        "cells wide and 1 tall; several 1x1 blocks."
    ),
    rules=(
        "Coordinates: 0-based; (r,c) is row r, column c; (0,0) is the top-left cell; r increases downward "
        "and c increases to the right.\n"
        "A move names a block by the coordinate of its top-left cell at the moment of the move.\n"
        "Legal moves: 1) one move slides ONE block by exactly ONE cell UP, DOWN, LEFT or RIGHT; 2) blocks "
        "never rotate, move diagonally or jump; 3) a move is legal only when every cell the block would "
        "newly cover (the cells it covers after the move but not before) is empty before the move: one or "
        "two cells for a 1x2 or 2x1 block, depending on the direction, and two for the 2x2 block; 4) cells "
        "of other blocks can never be passed through.\n"
        f"Goal: bring the top-left cell of the 2x2 target block to ({GOAL[0]},{GOAL[1]})."
    ),
    reasoning="describe where the blocks and the two empty cells are, then plan the slides.",
    answer_format='Give the final moves as one JSON object, for example '
    '{"solution":[{"from":[r1,c1],"direction":"UP"},{"from":[r2,c2],"direction":"LEFT"}]}.',
    step="slide of one block by one cell",
    step_format='<STEP_JSON>{"from":[r,c],"direction":"UP"}</STEP_JSON> with the block\'s current '
    "top-left cell and UP, DOWN, LEFT or RIGHT.",
    image_change="only the moved block has changed position",
    labelled_cells="every cell",
    aid_note=(
        f"The board may show no cell lines: infer its {SIZE}x{SIZE} tiling from the blocks, and keep every "
        "block's extent (a 1x2 block stays 1x2; no block shrinks, splits or merges)."
    ),
    solution_drawing=(
        "Add short visual hints of a workable sequence of slides, such as ordered markers and direction cues "
        "next to the blocks that move. The hints stand for legal one-cell slides, with no overlap and no "
        "rotation. Do not move any block in the image, and add no long text."
    ),
    solution_shows="hints of a sequence of slides that brings the target block to its goal",
)


def random_answer(state: KlotskiState, rng: np.random.Generator) -> tuple[Step, ...]:
    """A random walk of 1-20 legal slides (it stops early if no slide is legal)."""
    steps: list[Step] = []
    for _ in range(int(rng.integers(1, 21))):
        options = legal_steps(state)
        if not options:
            break
        step = options[int(rng.integers(len(options)))]
        steps.append(step)
        state = apply_step(state, step)  # type: ignore[assignment]
    return tuple(steps)


EXAMPLE: Final = from_ascii(["||||||", "||||||", "----oo", "|oTTo|", "|oTTo|", "--..oo"])
"""A one-move board (the target slides down) used in the docstrings."""

SPEC = FamilySpec(
    name="klotski",
    buckets=BUCKETS,
    geometry=GEOMETRY,
    dashed_grid=True,
    from_json=from_json,
    to_json=to_json,
    generate=generate,
    length_mix=LENGTH_MIX,
    solve=solve,
    replay=replay,
    render=render,
    parse_answer=parse_answer,
    format_answer=format_answer,
    answer_payload=answer_payload,
    prompts=PROMPTS,
    random_answer=random_answer,
    apply_step=apply_step,
    is_goal=is_goal,
    answer_tag=None,
    parse_step=parse_step,
    format_step=format_step,
    cell_labels=klotski_fidelity.cell_labels,
    palette_states=lambda: (EXAMPLE,),
    perturb=klotski_fidelity.perturb,
    sketch=klotski_fidelity.sketch,
)
