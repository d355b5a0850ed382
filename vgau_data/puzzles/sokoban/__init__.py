"""Sokoban with one box: push the crate onto the green X.

Board:
    10x10 cells, ``#`` wall and ``.`` floor; one player, one box and one target, each on
    floor (the player may stand on the target; the box is never inside a wall). Cells
    outside the board are neither walls nor floor: nothing may leave the board.
Step:
    One player move ``"up" | "down" | "left" | "right"``. The player walks onto free
    floor; walking into the box pushes it one cell further if that cell is floor inside
    the board. Walks and pushes both cost one step. Illegal steps: ``out_of_bounds``
    (the player would leave the board), ``wall`` (the player walks into a wall),
    ``box_blocked`` (the box would enter a wall or leave the board).
Goal:
    The box stands on the target (after the last step; otherwise ``not_solved``).
Buckets:
    ``optimal_length`` 1-8 easy, 10-16 medium, 20-39 hard (SPEC §2). Generated maps have
    a wall ring and a bucket-dependent number of walls inside it, like the authors'.
    Generation runs one retrograde BFS from every goal state of a sampled map, which gives
    the exact distance of every (player, box) state at once, and picks a state of the
    row's exact length; ``solve`` is an independent forward BFS.
Answer:
    ``<ANSWER_JSON>["up","left",...]</ANSWER_JSON>``; the last tagged list wins. The
    format (parser included) is maze's, shared through ``grids``, and so is one
    interactive step, the sentence ``Next, move one step up.``. The oracle aid labels
    the non-wall cells only (``labelled_cells``, as Table 19 asks).
"""

from __future__ import annotations

import functools
import json
import operator
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

import numpy as np
from PIL import Image, ImageDraw

from vgau_data.errors import GenerationError, StateError
from vgau_data.puzzles.sokoban import fidelity as sokoban_fidelity
from vgau_data.puzzles.base import (
    DELTAS,
    DIRECTIONS,
    Cell,
    Direction,
    FamilySpec,
    Illegal,
    Replay,
    Slot,
    Solution,
    canonical_json,
    draw_slot,
)
from vgau_data.puzzles.grids import (
    DIRECTION_TAG,
    MOVE_SENTENCE_FORMAT,
    direction_payload,
    format_direction_answer,
    format_move_sentence,
    parse_direction_answer,
    parse_move_sentence,
)
from vgau_data.puzzles.prompts import FamilyPrompts
from vgau_data.rendering import BoardGeometry

# ---------------------------------------------------------------------------- constants

NAME: Final = "sokoban"
SIZE: Final = 10
BUCKETS: Final[dict[str, tuple[int, int]]] = {"easy": (1, 8), "medium": (10, 16), "hard": (20, 39)}
LENGTH_MIX: Final[dict[str, dict[int, int]]] = {
    "easy": {1: 5, 2: 1, 3: 4, 5: 1, 6: 1, 7: 6, 8: 2},
    "medium": {10: 1, 11: 4, 12: 6, 13: 4, 14: 5, 15: 4, 16: 6},
    "hard": {20: 11, 21: 4, 22: 5, 23: 4, 24: 10, 25: 3, 26: 1, 28: 2, 30: 1, 31: 1, 32: 2, 33: 3, 35: 2, 39: 1},
}
"""Rows per optimum in the authors' 100 published instances (their ``optimal_steps``, counted once)."""
INNER_WALLS: Final[dict[str, tuple[int, int]]] = {"easy": (4, 11), "medium": (11, 17), "hard": (16, 23)}
"""Walls inside the border ring, per bucket (the authors' boards: 4-11, 12-18, 18-24; means 7.6, 14.3, 19.4)."""
PLAYER_TO_BOX: Final[dict[str, int]] = {"easy": 4, "medium": 5, "hard": 5}
"""Preferred player-box distance among equally long, equally pushy states (the authors' means: 3, 5, 5)."""
ANSWER_TAG: Final = DIRECTION_TAG

WALL: Final = "#"
FLOOR: Final = "."

GEOMETRY: Final = BoardGeometry(rows=SIZE, cols=SIZE, cell_px=52)

BACKGROUND: Final = (58, 50, 44)
SAND: Final = (233, 210, 156)
SAND_GRAIN: Final = (212, 184, 124)
BRICK: Final = (172, 72, 46)
BRICK_DARK: Final = (146, 58, 38)
MORTAR: Final = (196, 188, 172)
TARGET_GREEN: Final = (36, 168, 72)
WOOD: Final = (200, 144, 78)
WOOD_DARK: Final = (116, 72, 32)
WOOD_ON_TARGET: Final = (150, 206, 110)
FRAME_ON_TARGET: Final = (22, 128, 48)
SKIN: Final = (247, 205, 168)
SHIRT: Final = (38, 92, 206)
TROUSERS: Final = (44, 44, 72)
OUTLINE: Final = (30, 26, 24)

# ---------------------------------------------------------------------------- state


@dataclass(frozen=True, slots=True)
class SokobanState:
    """One position: the walls, where the player and the box stand, and the target."""

    grid: tuple[str, ...]  # "#" wall, "." floor
    player: Cell
    box: Cell
    target: Cell


def to_json(state: SokobanState) -> str:
    """SPEC §4's canonical JSON of a state.

    Example:
        >>> to_json(from_ascii(["P.BT"]))
        '{"box":[0,2],"grid":["...."],"player":[0,0],"target":[0,3]}'
    """
    return canonical_json(
        {
            "grid": list(state.grid),
            "player": list(state.player),
            "box": list(state.box),
            "target": list(state.target),
        }
    )


def from_json(text: str) -> SokobanState:
    """Parse and fully validate SPEC §4's JSON (a 10x10 board).

    Raises:
        StateError: on malformed JSON, wrong types or shapes, or pieces off the floor.

    Example:
        >>> s = from_json('{"box":[0,2],"grid":["..........","..........","..........",'
        ...     '"..........","..........","..........","..........","..........",'
        ...     '"..........",".........."],"player":[0,0],"target":[9,9]}')
        >>> s.box
        (0, 2)
    """
    if not isinstance(text, str):
        raise StateError(f"sokoban state must be a JSON string, got {type(text).__name__}")
    try:
        obj = json.loads(text)
    except (ValueError, RecursionError) as e:
        raise StateError(f"sokoban state is not valid JSON: {e}") from e
    if not isinstance(obj, dict):
        raise StateError(f"sokoban state must be a JSON object, got {type(obj).__name__}")
    keys = {"grid", "player", "box", "target"}
    if set(obj) != keys:
        raise StateError(f"sokoban state needs exactly the keys {sorted(keys)}, got {sorted(obj)}")
    grid = obj["grid"]
    if not isinstance(grid, list) or not all(isinstance(row, str) for row in grid):
        raise StateError("sokoban 'grid' must be a list of strings such as '#..#......'")
    if len(grid) != SIZE or any(len(row) != SIZE for row in grid):
        raise StateError(f"sokoban 'grid' must be {SIZE} rows of {SIZE} characters")
    cells = {name: _json_cell(obj[name], name) for name in ("player", "box", "target")}
    return _checked(SokobanState(tuple(grid), cells["player"], cells["box"], cells["target"]))


def _json_cell(value: object, name: str) -> Cell:
    if (
        not isinstance(value, list)
        or len(value) != 2
        or not all(isinstance(v, int) and not isinstance(v, bool) for v in value)
    ):
        raise StateError(f"sokoban {name!r} must be a cell [r, c] of two integers, got {value!r:.60}")
    return (value[0], value[1])


def _checked(state: SokobanState) -> SokobanState:
    """Validate a state's board and pieces (any rectangular size up to 10x10)."""
    grid = state.grid
    if not grid or not grid[0] or len(grid) > SIZE or len(grid[0]) > SIZE:
        raise StateError(f"sokoban grid must have 1 to {SIZE} rows and columns")
    if any(len(row) != len(grid[0]) for row in grid):
        raise StateError("sokoban grid rows must all have the same length")
    if any(ch not in (WALL, FLOOR) for row in grid for ch in row):
        raise StateError("sokoban grid may only hold '#' (wall) and '.' (floor)")
    for name in ("player", "box", "target"):
        r, c = getattr(state, name)
        if not (0 <= r < len(grid) and 0 <= c < len(grid[0])):
            raise StateError(f"sokoban {name} {[r, c]} lies outside the {len(grid)}x{len(grid[0])} board")
        if grid[r][c] != FLOOR:
            raise StateError(f"sokoban {name} {[r, c]} stands on a wall; it must be on floor '.'")
    if state.player == state.box:
        raise StateError(f"sokoban player and box share the cell {list(state.box)}")
    return state


_ASCII_PIECES = {"P": ("player",), "B": ("box",), "T": ("target",), "*": ("box", "target"), "+": ("player", "target")}


def from_ascii(rows: Sequence[str]) -> SokobanState:
    """A state from text: ``#`` wall, ``.`` floor, ``P`` player, ``B`` box, ``T`` target,
    ``*`` box on target, ``+`` player on target. Any size up to 10x10 (fixtures).

    Example:
        >>> from_ascii(["#P.B.T"]).target
        (0, 5)
    """
    found: dict[str, list[Cell]] = {"player": [], "box": [], "target": []}
    grid = []
    for r, row in enumerate(rows):
        for c, ch in enumerate(row):
            for name in _ASCII_PIECES.get(ch, ()):
                found[name].append((r, c))
        grid.append("".join(WALL if ch == WALL else FLOOR if ch in _ASCII_PIECES or ch == FLOOR else ch for ch in row))
    for name, cells in found.items():
        if len(cells) != 1:
            raise StateError(f"sokoban ascii needs exactly one {name}, found {len(cells)}")
    return _checked(SokobanState(tuple(grid), found["player"][0], found["box"][0], found["target"][0]))


def to_ascii(state: SokobanState) -> list[str]:
    """The text form read by ``from_ascii``.

    Example:
        >>> to_ascii(from_ascii(["+.B#"]))
        ['+.B#']
    """
    rows = [list(row) for row in state.grid]
    rows[state.target[0]][state.target[1]] = "T"
    pr, pc = state.player
    rows[pr][pc] = "+" if state.player == state.target else "P"
    br, bc = state.box
    rows[br][bc] = "*" if state.box == state.target else "B"
    return ["".join(row) for row in rows]


# ---------------------------------------------------------------------------- rules


def apply_step(state: SokobanState, step: Direction) -> SokobanState | Illegal:
    """Move the player one cell (pushing the box if it walks into it).

    Example:
        >>> apply_step(from_ascii(["PBT"]), "right").box
        (0, 2)
        >>> apply_step(from_ascii(["PBT"]), "left").code
        'out_of_bounds'
    """
    delta = DELTAS.get(step) if isinstance(step, str) else None
    if delta is None:
        return Illegal("unknown_action", 0)
    grid = state.grid
    rows, cols = len(grid), len(grid[0])
    dr, dc = delta
    r, c = state.player[0] + dr, state.player[1] + dc
    if not (0 <= r < rows and 0 <= c < cols):
        return Illegal("out_of_bounds", 0)
    if grid[r][c] == WALL:
        return Illegal("wall", 0)
    box = state.box
    if (r, c) == box:
        br, bc = r + dr, c + dc
        if not (0 <= br < rows and 0 <= bc < cols) or grid[br][bc] == WALL:
            return Illegal("box_blocked", 0)
        box = (br, bc)
    return SokobanState(grid, (r, c), box, state.target)


def is_goal(state: SokobanState) -> bool:
    """The box stands on the target."""
    return state.box == state.target


def replay(state: SokobanState, answer: Sequence[Direction]) -> Replay:
    """Play ``answer`` from ``state``; stop at the first illegal step.

    Same rules as ``apply_step``, inlined on plain integers for scoring speed.

    Example:
        >>> replay(from_ascii(["P.BT"]), ["right", "right"]).feasible
        True
        >>> replay(from_ascii(["P.BT"]), ["right"]).error
        'not_solved'
    """
    grid = state.grid
    rows, cols = len(grid), len(grid[0])
    pr, pc = state.player
    br, bc = state.box
    n = len(answer)
    for index, step in enumerate(answer):
        delta = DELTAS.get(step) if isinstance(step, str) else None
        if delta is None:
            return Replay(False, n, "unknown_action", index)
        dr, dc = delta
        r, c = pr + dr, pc + dc
        if not (0 <= r < rows and 0 <= c < cols):
            return Replay(False, n, "out_of_bounds", index)
        if grid[r][c] == WALL:
            return Replay(False, n, "wall", index)
        if r == br and c == bc:
            br, bc = r + dr, c + dc
            if not (0 <= br < rows and 0 <= bc < cols) or grid[br][bc] == WALL:
                return Replay(False, n, "box_blocked", index)
        pr, pc = r, c
    if (br, bc) != state.target:
        return Replay(False, n, "not_solved", n)
    return Replay(True, n)



# ---------------------------------------------------------------------------- solver
# Cells are indices into the board padded by one off-board ring (which counts as blocked),
# so a neighbour is ``i + offset`` with no bounds check. A (player, box) state is the int
# ``player * n + box`` where ``n`` is the padded cell count.


@functools.lru_cache(maxsize=512)
def _board(grid: tuple[str, ...]) -> tuple[int, bytes]:
    """(padded width, free[i] == 1 for floor cells) of a grid."""
    width = len(grid[0]) + 2
    free = bytearray((len(grid) + 2) * width)
    for r, row in enumerate(grid):
        for c, ch in enumerate(row):
            if ch == FLOOR:
                free[(r + 1) * width + c + 1] = 1
    return width, bytes(free)


def _index(cell: Cell, width: int) -> int:
    return (cell[0] + 1) * width + cell[1] + 1


def solve(state: SokobanState) -> Solution | None:
    """The shortest answer (walks and pushes both count), by forward BFS over (player, box).

    Returns None when the box can never reach the target.

    Example:
        >>> solve(from_ascii(["P.BT"]))
        Solution(answer=('right', 'right'), optimal_length=2)
    """
    width, free = _board(state.grid)
    n = len(free)
    target = _index(state.target, width)
    box = _index(state.box, width)
    if box == target:
        return Solution((), 0)
    offsets = (-width, width, -1, 1)  # DIRECTIONS order
    start = _index(state.player, width) * n + box
    parent = {start: -1}  # key -> previous key * 4 + direction index
    frontier = [start]
    while frontier:
        nxt = []
        for key in frontier:
            player, box = divmod(key, n)
            for k, off in enumerate(offsets):
                cell = player + off
                if not free[cell]:
                    continue
                if cell == box:
                    moved = box + off
                    if not free[moved]:
                        continue
                    new = cell * n + moved
                    if new in parent:
                        continue
                    parent[new] = key * 4 + k
                    if moved == target:
                        return _path(parent, new)
                else:
                    new = cell * n + box
                    if new in parent:
                        continue
                    parent[new] = key * 4 + k
                nxt.append(new)
        frontier = nxt
    return None


def _path(parent: dict[int, int], key: int) -> Solution:
    steps: list[Direction] = []
    link = parent[key]
    while link >= 0:
        key, k = divmod(link, 4)
        steps.append(DIRECTIONS[k])
        link = parent[key]
    steps.reverse()
    return Solution(tuple(steps), len(steps))


def _distances(grid: tuple[str, ...], target: Cell) -> tuple[dict[int, int], dict[int, int]]:
    """Retrograde BFS from every goal state (box on ``target``, player anywhere).

    Returns ``dist`` (exact optimum of every solvable state key) and ``pushes`` (fewest
    pushes among that state's optimal solutions), in BFS order.
    """
    width, free = _board(grid)
    n = len(free)
    goal = _index(target, width)
    frontier = [p * n + goal for p in range(n) if free[p] and p != goal]
    dist = dict.fromkeys(frontier, 0)
    pushes = dict.fromkeys(frontier, 0)
    offsets = (-width, width, -1, 1)
    depth = 0
    while frontier:
        depth += 1
        nxt = []
        for key in frontier:
            player, box = divmod(key, n)
            count = pushes[key]
            for off in offsets:
                back = player - off  # where the player stood one step earlier
                if not free[back]:
                    continue
                if back != box:  # the player walked in direction off
                    _relax(back * n + box, depth, count, dist, pushes, nxt)
                if box == player + off:  # the player pushed the box from `player` to `box`
                    _relax(back * n + player, depth, count + 1, dist, pushes, nxt)
        frontier = nxt
    return dist, pushes


def _relax(key: int, depth: int, count: int, dist: dict[int, int], pushes: dict[int, int], nxt: list[int]) -> None:
    seen = dist.get(key)
    if seen is None:
        dist[key] = depth
        pushes[key] = count
        nxt.append(key)
    elif seen == depth and count < pushes[key]:
        pushes[key] = count


# ---------------------------------------------------------------------------- generator


def generate(
    difficulty: str, rng: np.random.Generator, slot: Slot | None = None, *, max_attempts: int = 2000
) -> SokobanState:
    """A 10x10 board whose true optimum is exactly ``slot.length``.

    Samples a wall layout like the authors' (a full border ring and ``INNER_WALLS``
    scattered walls inside it; floor cells the player cannot reach stay floor) and a
    target, runs one retrograde BFS for the exact distance of every (player, box) state,
    and picks a state at the slot's length: among them ordered by the pushes their optimal
    solutions need, the pushes at ``slot.quantile`` (the wall count, too, sits at a
    quantile of its range, so a bucket spreads evenly over both), then the player-box
    distance nearest ``PLAYER_TO_BOX``. A map without such a state is redrawn.

    Raises:
        ValueError: for an unknown difficulty or a slot length outside the bucket.
        GenerationError: when no map in ``max_attempts`` holds such a state.

    Example:
        >>> s = generate("hard", np.random.default_rng(0))
        >>> 20 <= solve(s).optimal_length <= 39
        True
    """
    if difficulty not in BUCKETS:
        raise ValueError(f"unknown difficulty {difficulty!r}; choose from {list(BUCKETS)}")
    slot = slot or draw_slot(LENGTH_MIX, difficulty, rng)
    low, high = BUCKETS[difficulty]
    if not low <= slot.length <= high:
        raise ValueError(f"sokoban/{difficulty}: length {slot.length} is outside {low}-{high}")
    for _ in range(max_attempts):
        grid = _sample_grid(INNER_WALLS[difficulty], (slot.quantile + 0.5) % 1.0, rng)
        floor = [(r, c) for r in range(SIZE) for c in range(SIZE) if grid[r][c] == FLOOR]
        target = floor[int(rng.integers(len(floor)))]
        dist, pushes = _distances(grid, target)
        picks = [key for key, d in dist.items() if d == slot.length]
        if not picks:
            continue
        picks.sort(key=lambda key: (pushes[key], key))  # the slot's quantile spreads pushes over the bucket
        count = pushes[picks[int(slot.quantile * len(picks))]]
        player, box = min(
            (divmod(key, (SIZE + 2) ** 2) for key in picks if pushes[key] == count),
            key=lambda pair: abs(_walk_distance(*pair) - PLAYER_TO_BOX[difficulty]),
        )
        state = SokobanState(grid, _cell(player), _cell(box), target)
        solution = solve(state)
        if solution is None or solution.optimal_length != slot.length:
            raise GenerationError(f"sokoban/{difficulty}: retrograde and forward BFS disagree on {to_json(state)}")
        return state
    raise GenerationError(f"sokoban/{difficulty}: no map with a state of length {slot.length} in {max_attempts} tries")


def _walk_distance(player: int, box: int) -> int:
    """Manhattan distance between two cells of the padded board."""
    (pr, pc), (br, bc) = divmod(player, SIZE + 2), divmod(box, SIZE + 2)
    return abs(pr - br) + abs(pc - bc)


def _cell(index: int) -> Cell:
    r, c = divmod(index, SIZE + 2)
    return (r - 1, c - 1)


def _sample_grid(count: tuple[int, int], quantile: float, rng: np.random.Generator) -> tuple[str, ...]:
    """A wall ring around the board and walls scattered inside it, their number at ``quantile`` of ``count``."""
    low, high = count
    inside = [(r, c) for r in range(1, SIZE - 1) for c in range(1, SIZE - 1)]
    n_walls = low + int(quantile * (high - low + 1))
    walls = {inside[int(i)] for i in rng.choice(len(inside), size=n_walls, replace=False)}
    return tuple(
        "".join(WALL if r in (0, SIZE - 1) or c in (0, SIZE - 1) or (r, c) in walls else FLOOR for c in range(SIZE))
        for r in range(SIZE)
    )


# ---------------------------------------------------------------------------- renderer

_CELL = GEOMETRY.cell_px


@functools.cache
def _wall_tile() -> Image.Image:
    """Brick courses 13 px high, bricks 26 px wide, every other course offset by half."""
    tile = Image.new("RGB", (_CELL, _CELL), MORTAR)
    draw = ImageDraw.Draw(tile)
    course = _CELL // 4
    for row in range(4):
        y0 = row * course
        shift = 0 if row % 2 == 0 else course
        for k in range(-1, 3):
            x0 = k * 2 * course + shift
            left, right = max(x0 + 1, 0), min(x0 + 2 * course - 2, _CELL - 1)
            if left <= right:
                colour = BRICK if (row + k) % 2 == 0 else BRICK_DARK
                draw.rectangle((left, y0 + 1, right, y0 + course - 2), fill=colour)
    return tile


_GRAINS: Final = ((7, 5), (40, 9), (18, 33), (44, 30), (30, 45), (6, 41), (33, 17), (12, 20), (46, 46))


@functools.cache
def _floor_tile() -> Image.Image:
    tile = Image.new("RGB", (_CELL, _CELL), SAND)
    draw = ImageDraw.Draw(tile)
    for x, y in _GRAINS:
        draw.rectangle((x, y, x + 1, y + 1), fill=SAND_GRAIN)
    return tile


def _draw_target(draw: ImageDraw.ImageDraw, x0: int, y0: int) -> None:
    a, b = 8, _CELL - 9
    draw.line((x0 + a, y0 + a, x0 + b, y0 + b), fill=TARGET_GREEN, width=7)
    draw.line((x0 + a, y0 + b, x0 + b, y0 + a), fill=TARGET_GREEN, width=7)


@functools.cache
def _crate(on_target: bool) -> Image.Image:
    """A wooden crate (frame, boards, X brace) filling the cell but a 4 px sand rim."""
    fill, dark = (WOOD_ON_TARGET, FRAME_ON_TARGET) if on_target else (WOOD, WOOD_DARK)
    size = _CELL - 8
    crate = Image.new("RGB", (size, size), dark)
    draw = ImageDraw.Draw(crate)
    draw.rectangle((5, 5, size - 6, size - 6), fill=fill)
    for y in (15, 28):  # board seams
        draw.line((5, y, size - 6, y), fill=dark, width=1)
    draw.line((5, 5, size - 6, size - 6), fill=dark, width=5)
    draw.line((5, size - 6, size - 6, 5), fill=dark, width=5)
    return crate


def _draw_person(draw: ImageDraw.ImageDraw, skin: object, shirt: object, trousers: object, line: object) -> None:
    """Legs, arms, body and head of the player in a cell-sized canvas."""
    cx = _CELL // 2
    draw.rectangle((cx - 9, 39, cx - 3, 47), fill=trousers, outline=line)  # legs
    draw.rectangle((cx + 3, 39, cx + 9, 47), fill=trousers, outline=line)
    draw.rounded_rectangle((cx - 15, 22, cx - 10, 36), radius=2, fill=shirt, outline=line)  # arms
    draw.rounded_rectangle((cx + 10, 22, cx + 15, 36), radius=2, fill=shirt, outline=line)
    draw.rounded_rectangle((cx - 10, 19, cx + 10, 41), radius=4, fill=shirt, outline=line)  # body
    draw.ellipse((cx - 8, 3, cx + 8, 19), fill=skin, outline=line, width=2)  # head


@functools.cache
def _player() -> tuple[Image.Image, Image.Image]:
    """The small person as an RGB sprite and its mask (the X of a target shows around it)."""
    sprite = Image.new("RGB", (_CELL, _CELL), OUTLINE)
    draw = ImageDraw.Draw(sprite)
    _draw_person(draw, SKIN, SHIRT, TROUSERS, OUTLINE)
    draw.point([(_CELL // 2 - 3, 10), (_CELL // 2 + 3, 10)], fill=OUTLINE)  # eyes
    mask = Image.new("L", (_CELL, _CELL), 0)
    _draw_person(ImageDraw.Draw(mask), 255, 255, 255, 255)
    return sprite, mask


@functools.lru_cache(maxsize=128)
def _background(grid: tuple[str, ...], target: Cell) -> Image.Image:
    image = Image.new("RGB", GEOMETRY.size, BACKGROUND)
    wall, floor = _wall_tile(), _floor_tile()
    for r, row in enumerate(grid):
        for c, ch in enumerate(row):
            x0, y0, _, _ = GEOMETRY.cell_box((r, c))
            image.paste(wall if ch == WALL else floor, (x0, y0))
    x0, y0, _, _ = GEOMETRY.cell_box(target)
    _draw_target(ImageDraw.Draw(image), x0, y0)
    return image


def render(state: SokobanState) -> Image.Image:
    """The board as a model sees it: brick walls, sand floor, green X target, crate, person.

    Raises:
        StateError: for a board that is not 10x10.

    Example:
        >>> render(generate("easy", np.random.default_rng(1))).size
        (552, 552)
    """
    if len(state.grid) != SIZE or len(state.grid[0]) != SIZE:
        raise StateError(f"sokoban render needs a {SIZE}x{SIZE} board")
    image = _background(state.grid, state.target).copy()
    x0, y0, _, _ = GEOMETRY.cell_box(state.box)
    image.paste(_crate(state.box == state.target), (x0 + 4, y0 + 4))
    sprite, mask = _player()
    x0, y0, _, _ = GEOMETRY.cell_box(state.player)
    image.paste(sprite, (x0, y0), mask)
    return image


# ---------------------------------------------------------------------------- answers
# The direction list ``<ANSWER_JSON>["up","left"]</ANSWER_JSON>`` shared with maze.

parse_answer = parse_direction_answer
answer_payload = direction_payload
format_answer = format_direction_answer


# ---------------------------------------------------------------------------- prompts
# Table 13 (Text-CoT), 19 (Self-GtA), 25 (Self-VCoT) and 31 (Self-VR), in our own words.

PROMPTS: Final = FamilyPrompts(
    legend=(
        "The image shows a Sokoban puzzle with a single box. Red-brown brick cells are walls and are "
        "blocked; sand-coloured cells are floor and can be walked on. The small person is the player, at "
        "the start. The wooden crate with an X brace is the box. The green X on the floor is the target. "
        "The dark border lies outside the board."
    ),
    rules=(
        "Rules: 1) the player moves up, down, left or right, one cell per move; 2) moving into the box "
        "pushes it one cell in the same direction; 3) a push is allowed only when the cell the box would "
        "move to is floor; 4) there are no diagonal moves.\n"
        "Goal: push the box onto the target."
    ),
    reasoning="check that each move is legal and follow where the player and the box end up after it.",
    answer_format='Give the final moves as one JSON list of lowercase words inside ANSWER_JSON tags, for '
    'example <ANSWER_JSON>["left","left","up"]</ANSWER_JSON>.',
    step="move of the player",
    step_format=f"{MOVE_SENTENCE_FORMAT}.",
    image_change="only the player and, when it was pushed, the box have moved",
    labelled_cells="every cell that is not a wall",
    solution_drawing=(
        "Draw one continuous bright red line, about a tenth of a cell wide, along the player's walk: from "
        "the centre of the player's cell to the centre of the cell from which the player pushes the box "
        "onto the target. It joins centres of neighbouring floor cells with horizontal and vertical segments "
        "only and never crosses a wall. Do not draw the box's path."
    ),
    solution_shows="a red line along the walk of the player that pushes the box onto the target",
)


def labelled_cells(state: SokobanState) -> frozenset[Cell]:
    """The cells the oracle aid labels: every cell that is not a wall (Table 19)."""
    return frozenset((r, c) for r, row in enumerate(state.grid) for c, char in enumerate(row) if char != WALL)


def random_answer(state: SokobanState, rng: np.random.Generator) -> tuple[Direction, ...]:
    """Random directions, 4 to 30 of them (the 'random' baseline).

    Example:
        >>> len(random_answer(from_ascii(["PBT"]), np.random.default_rng(0))) >= 4
        True
    """
    length = int(rng.integers(4, 31))
    return tuple(DIRECTIONS[int(k)] for k in rng.integers(4, size=length))


SPEC = FamilySpec(
    name=NAME,
    buckets=BUCKETS,
    geometry=GEOMETRY,
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
    labelled_cells=labelled_cells,
    random_answer=random_answer,
    apply_step=apply_step,
    is_goal=is_goal,
    answer_tag=DIRECTION_TAG,
    parse_step=parse_move_sentence,
    format_step=format_move_sentence,
    cell_labels=sokoban_fidelity.cell_labels,
    palette_states=functools.partial(sokoban_fidelity.palette_states, from_ascii),
    perturb=sokoban_fidelity.perturb,
    sketch=sokoban_fidelity.sketch,
    route_start=operator.attrgetter("player"),
    route_answer=sokoban_fidelity.route_answer,
)
