"""Path: name the labelled cells on the one road from the start to the destination.

Board:
    10x10 cells, each blocked (``#``, drawn black) or road (``.``, drawn light gray). The
    road cells form a tree (connected, no cycle), so exactly one simple path joins any two
    of them. An orange triangle marks ``start``, a blue triangle ``end``; five road cells
    other than those two carry the letters A-E (``labels``, sorted by letter). At least one
    label lies on the start-end path and at least one off it; letters are assigned at
    random, so their alphabetical order says nothing about the path.

Step:
    An answer step is a label letter (``"A"``-``"E"``). In the interactive environment a
    step instead moves a current-position marker (``position``; None means at ``start``,
    drawn as a red disc elsewhere) one cell ``"up"``/``"down"``/``"left"``/``"right"``
    (``out_of_bounds``, ``wall``); ``episode_answer`` turns the walk into the letters of
    the labelled cells it visits, in order, first visits only. ``position`` is not part of
    the JSON state.

Goal:
    The answer equals the on-path letters in traversal order from ``start`` to ``end``.
    A wrong letter is ``wrong_label`` at its index; a strict prefix of the truth is
    ``not_solved``. For the marker, the goal is standing on ``end``.

Buckets:
    ``optimal_length`` = moves of the start-end path: easy 2-5, medium 8-14, hard 18-25.
    Every right answer has that length (``unique_length``); a wrong one has ``len(answer)``.

Answer:
    ``<answer>A,C</answer>``: comma-separated letters A-E (case and spaces tolerated;
    ``<answer></answer>`` is the empty answer, "no label"). ``answer_payload`` is the
    compact JSON list of letters, e.g. ``["A","C"]``. The interactive per-turn format is
    the direction list ``<ANSWER_JSON>["up",...]</ANSWER_JSON>`` of maze and sokoban
    (``grids``), which also holds the grid helpers path shares with maze.
"""

from __future__ import annotations

import functools
import operator
import re
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

import numpy as np
from PIL import Image, ImageDraw

from vgau_data.answers import answer_text, last_tagged, strip_fences
from vgau_data.errors import GenerationError, StateError
from vgau_data.puzzles.base import (
    DELTAS,
    DIRECTIONS,
    AnswerError,
    Cell,
    Direction,
    FamilySpec,
    Illegal,
    QuestionStyle,
    Replay,
    Sketch,
    Solution,
    canonical_json,
    pick_edits,
)
from vgau_data.puzzles.grids import (
    NEIGHBOURS,
    cell_from_json,
    cells_image,
    format_direction_answer,
    grid_from_json,
    grow_induced_tree,
    load_state_object,
    parse_direction_answer,
)
from vgau_data.rendering import BoardGeometry, font, new_board

# --------------------------------------------------------------------------- constants

SIZE: Final = 10
BUCKETS: Final[dict[str, tuple[int, int]]] = {"easy": (2, 5), "medium": (8, 14), "hard": (18, 25)}
LETTERS: Final = "ABCDE"
_LETTER_SET: Final = frozenset(LETTERS)
N_LABELS: Final = 5
MAX_ATTEMPTS: Final = 500
ROAD_CELLS: Final = (40, 66)
"""Range (half-open) of the road-cell count the generator grows the tree towards."""
ON_PATH_WEIGHTS: Final = {1: 1.0, 2: 3.0, 3: 3.0, 4: 2.0}
"""Relative odds of 1-4 on-path labels in medium and hard (easy: uniform over what fits),
so that few rows share a one-letter answer."""
MAX_PAYLOAD_CHARS: Final = 10_000
MAX_ANSWER_LABELS: Final = 100

WALL: Final = "#"
ROAD: Final = "."

WALL_RGB: Final = (0, 0, 0)
ROAD_RGB: Final = (210, 210, 210)
FRAME_RGB: Final = (255, 255, 255)
START_RGB: Final = (249, 115, 22)
END_RGB: Final = (37, 99, 235)
LETTER_RGB: Final = (0, 0, 0)
MARKER_RGB: Final = (220, 38, 38)
MARKER_LETTER_RGB: Final = (255, 255, 255)
TRIANGLE_INSET: Final = 4
MARKER_TRIANGLE_INSET: Final = 13
MARKER_RADIUS: Final = 21
LETTER_PX: Final = 36
LETTER_STROKE: Final = 1
"""Letters are stroked in their own colour: a bold, legible glyph."""

GEOMETRY: Final = BoardGeometry(rows=SIZE, cols=SIZE, cell_px=52)
TAG: Final = "answer"

# --------------------------------------------------------------------------- state


@dataclass(frozen=True, slots=True)
class PathState:
    """A road map, its start, destination and labels, and the interactive marker.

    ``grid`` rows are ``#`` (blocked) and ``.`` (road); ``labels`` is a tuple of
    ``(letter, cell)`` sorted by letter; ``position`` is the marker's cell (None: at
    ``start``), used only by the interactive environment and never serialised.
    """

    grid: tuple[str, ...]
    start: Cell
    end: Cell
    labels: tuple[tuple[str, Cell], ...]
    position: Cell | None = None


def to_json(state: PathState) -> str:
    """SPEC §4 canonical JSON (``position`` is not part of it).

    Example:
        >>> to_json(from_ascii(["SAT"]))
        '{"end":[0,2],"grid":["..."],"labels":{"A":[0,1]},"start":[0,0]}'
    """
    return canonical_json(
        {
            "grid": list(state.grid),
            "start": list(state.start),
            "end": list(state.end),
            "labels": {letter: list(cell) for letter, cell in state.labels},
        }
    )


def from_json(text: str) -> PathState:
    """Parse and fully validate a SPEC §4 path state; raise ``StateError`` on anything off.

    Checks the 10x10 ``#``/``.`` grid, that start, end and labels are distinct road cells,
    that label keys are letters A-E, and that the road cells form a tree.
    """
    obj = load_state_object(text)
    if set(obj) != {"grid", "start", "end", "labels"}:
        raise StateError(f"path state needs exactly the keys grid, start, end, labels; got {sorted(obj)}")
    grid = grid_from_json(obj["grid"], SIZE)
    start = cell_from_json(obj["start"], "start", grid)
    end = cell_from_json(obj["end"], "end", grid)
    raw = obj["labels"]
    if not isinstance(raw, dict):
        raise StateError(f'labels must be an object like {{"A": [r, c]}}, got {type(raw).__name__}')
    labels = []
    for letter in sorted(raw):
        if letter not in _LETTER_SET:
            raise StateError(f"label key {letter!r:.20} must be one of the letters {', '.join(LETTERS)}")
        labels.append((letter, cell_from_json(raw[letter], f"label {letter}", grid)))
    return _checked(PathState(grid, start, end, tuple(labels)))


def _checked(state: PathState) -> PathState:
    """Raise ``StateError`` unless the labels sit on distinct free road cells and the road is a tree."""
    if state.start == state.end:
        raise StateError(f"start and end are the same cell {list(state.start)}")
    used = {state.start, state.end}
    for letter, cell in state.labels:
        if cell in used:
            raise StateError(f"label {letter} at {list(cell)} shares its cell with start, end or another label")
        used.add(cell)
    grid = state.grid
    road = [(r, c) for r, row in enumerate(grid) for c, char in enumerate(row) if char == ROAD]
    edges = sum(
        (r + 1 < len(grid) and grid[r + 1][c] == ROAD) + (c + 1 < len(grid[0]) and grid[r][c + 1] == ROAD)
        for r, c in road
    )
    if edges != len(road) - 1 or len(_reachable(grid, state.start)) != len(road):
        raise StateError("the road cells must form a tree (connected, without cycles), so the path is unique")
    return state


def _reachable(grid: tuple[str, ...], source: Cell) -> dict[Cell, Cell | None]:
    """BFS parents of every road cell reachable from ``source``."""
    rows, cols = len(grid), len(grid[0])
    parent: dict[Cell, Cell | None] = {source: None}
    queue = deque([source])
    while queue:
        r, c = queue.popleft()
        for dr, dc in ((-1, 0), (1, 0), (0, -1), (0, 1)):
            nr, nc = r + dr, c + dc
            if 0 <= nr < rows and 0 <= nc < cols and grid[nr][nc] == ROAD and (nr, nc) not in parent:
                parent[(nr, nc)] = (r, c)
                queue.append((nr, nc))
    return parent


def to_ascii(state: PathState) -> list[str]:
    """Rows with ``S`` start, ``T`` end (target), letters for labels, ``#``, ``.`` (no marker).

    Example:
        >>> to_ascii(from_ascii(["S#", "BT"]))
        ['S#', 'BT']
    """
    rows = [list(row) for row in state.grid]
    rows[state.start[0]][state.start[1]] = "S"
    rows[state.end[0]][state.end[1]] = "T"
    for letter, (r, c) in state.labels:
        rows[r][c] = letter
    return ["".join(row) for row in rows]


def from_ascii(rows: Sequence[str]) -> PathState:
    """Inverse of ``to_ascii``; any rectangular size (fixtures). Raises ``StateError``."""
    if not rows or not rows[0] or any(len(row) != len(rows[0]) for row in rows):
        raise StateError("ascii path map must be a non-empty rectangle of rows")
    marks: dict[str, Cell] = {}
    grid = []
    for r, row in enumerate(rows):
        for c, char in enumerate(row):
            if char not in "#.ST" + LETTERS:
                raise StateError(f"unknown ascii path character {char!r} at ({r}, {c})")
            if char not in "#.":
                if char in marks:
                    raise StateError(f"ascii path map has more than one {char!r}")
                marks[char] = (r, c)
        grid.append("".join(WALL if char == WALL else ROAD for char in row))
    if "S" not in marks or "T" not in marks:
        raise StateError("ascii path map needs one start (S) and one end (T)")
    labels = tuple((letter, marks[letter]) for letter in LETTERS if letter in marks)
    return _checked(PathState(tuple(grid), marks["S"], marks["T"], labels))


# --------------------------------------------------------------------------- rules


@functools.lru_cache(maxsize=4096)
def _route(grid: tuple[str, ...], start: Cell, end: Cell) -> tuple[Cell, ...] | None:
    """The cells of the start-end path (both included), or None if end is unreachable."""
    parent = _reachable(grid, start)
    if end not in parent:
        return None
    cells = [end]
    while (up := parent[cells[-1]]) is not None:
        cells.append(up)
    return tuple(reversed(cells))


@functools.lru_cache(maxsize=4096)
def _truth(
    grid: tuple[str, ...], start: Cell, end: Cell, labels: tuple[tuple[str, Cell], ...]
) -> tuple[tuple[str, ...], int] | None:
    """(on-path letters in order, moves of the path), or None if end is unreachable."""
    route = _route(grid, start, end)
    if route is None:
        return None
    letter_at = {cell: letter for letter, cell in labels}
    return tuple(letter_at[cell] for cell in route if cell in letter_at), len(route) - 1


def apply_step(state: PathState, step: Direction) -> PathState | Illegal:
    """Move the marker one cell (interactive step); ``Illegal`` off the board or into a wall.

    Example:
        >>> apply_step(from_ascii(["S.T"]), "right").position
        (0, 1)
        >>> apply_step(from_ascii(["S.T"]), "left")
        Illegal(code='out_of_bounds', step_index=0)
    """
    delta = DELTAS.get(step) if isinstance(step, str) else None
    if delta is None:
        return Illegal("unknown_action", 0)
    here = state.start if state.position is None else state.position
    r, c = here[0] + delta[0], here[1] + delta[1]
    if not (0 <= r < len(state.grid) and 0 <= c < len(state.grid[0])):
        return Illegal("out_of_bounds", 0)
    if state.grid[r][c] == WALL:
        return Illegal("wall", 0)
    position = None if (r, c) == state.start else (r, c)
    return PathState(state.grid, state.start, state.end, state.labels, position)


def is_goal(state: PathState) -> bool:
    """The marker stands on the destination."""
    return (state.start if state.position is None else state.position) == state.end


def replay(state: PathState, answer: Sequence[str]) -> Replay:
    """Judge a label list against the true on-path letters.

    Example:
        >>> s = from_ascii(["SA.T", "##B#"])
        >>> replay(s, ("A",))
        Replay(feasible=True, length=3, error=None, first_invalid_step=None)
        >>> replay(s, ("A", "B")).error
        'wrong_label'
    """
    n = len(answer)
    truth = _truth(state.grid, state.start, state.end, state.labels)
    if truth is None:
        return Replay(False, n, "not_solved", 0)
    letters, moves = truth
    for index, letter in enumerate(answer):
        if not isinstance(letter, str) or letter not in _LETTER_SET:
            return Replay(False, n, "unknown_action", index)
        if index >= len(letters) or letter != letters[index]:
            return Replay(False, n, "wrong_label", index)
    if n < len(letters):
        return Replay(False, n, "not_solved", n)
    return Replay(True, moves)


def trajectory(state: PathState, answer: Sequence[str]) -> list[PathState]:
    """The marker walking the true path, one state per move (whatever ``answer`` is)."""
    route = _route(state.grid, state.start, state.end)
    if route is None:
        raise ValueError("the destination is unreachable from the start")
    return [PathState(state.grid, state.start, state.end, state.labels, cell) for cell in route[1:]]


def episode_answer(initial_state: PathState, steps: Sequence[Direction]) -> tuple[str, ...]:
    """Letters of the labelled cells the marker visits, in order, first visits only.

    The walk stops at the first illegal move.

    Example:
        >>> episode_answer(from_ascii(["SA.T", "##B#"]), ("right", "right", "down", "up", "right"))
        ('A', 'B')
    """
    letter_at = {cell: letter for letter, cell in initial_state.labels}
    state = initial_state
    here = state.start if state.position is None else state.position
    seen = {here}
    letters = [letter_at[here]] if here in letter_at else []
    for step in steps:
        nxt = apply_step(state, step)
        if isinstance(nxt, Illegal):
            break
        state = nxt
        here = state.start if state.position is None else state.position
        if here not in seen:
            seen.add(here)
            if here in letter_at:
                letters.append(letter_at[here])
    return tuple(letters)


# --------------------------------------------------------------------------- solver


def solve(state: PathState) -> Solution | None:
    """The on-path letters and the path's moves (BFS over the road), None if unreachable.

    Example:
        >>> solve(from_ascii(["SA.T", "##B#"]))
        Solution(answer=('A',), optimal_length=3)
    """
    truth = _truth(state.grid, state.start, state.end, state.labels)
    if truth is None:
        return None
    return Solution(truth[0], truth[1])


# --------------------------------------------------------------------------- generator


def generate(difficulty: str, rng: np.random.Generator) -> PathState:
    """A map whose start-end path has a number of moves in ``BUCKETS[difficulty]``.

    Draws the path length, lays it as a random induced self-avoiding walk (each new cell
    touches only the previous one), grows side roads as an induced tree around it (which
    cannot shorten or duplicate the path), then puts 1-4 labels on inner path cells
    (``ON_PATH_WEIGHTS``) and the rest on side roads, with the letters shuffled.

    Raises:
        GenerationError: nothing fitted within the attempt budget.
    """
    if difficulty not in BUCKETS:
        raise ValueError(f"unknown difficulty {difficulty!r}; choose from {list(BUCKETS)}")
    low, high = BUCKETS[difficulty]
    moves = int(rng.integers(low, high + 1))  # drawn once, so long paths are not under-represented
    for _ in range(MAX_ATTEMPTS):
        route = _induced_walk(rng, moves)
        if route is None:
            continue
        limit = max(int(rng.integers(*ROAD_CELLS)), len(route) + N_LABELS)
        is_road = grow_induced_tree(rng, route, limit)
        on_route = set(route)
        off = [i for i in range(SIZE * SIZE) if is_road[i] and i not in on_route]
        inner = route[1:-1]
        k_low, k_high = max(1, N_LABELS - len(off)), min(N_LABELS - 1, len(inner))
        if k_low > k_high:
            continue
        weights = np.array([ON_PATH_WEIGHTS[k] if difficulty != "easy" else 1.0 for k in range(k_low, k_high + 1)])
        k = k_low + int(rng.choice(len(weights), p=weights / weights.sum()))
        cells = [inner[int(i)] for i in rng.choice(len(inner), size=k, replace=False)]
        cells += [off[int(i)] for i in rng.choice(len(off), size=N_LABELS - k, replace=False)]
        order = rng.permutation(N_LABELS)
        labels = tuple(sorted((LETTERS[int(order[j])], divmod(cell, SIZE)) for j, cell in enumerate(cells)))
        grid = tuple("".join(ROAD if is_road[r * SIZE + c] else WALL for c in range(SIZE)) for r in range(SIZE))
        return PathState(grid, divmod(route[0], SIZE), divmod(route[-1], SIZE), labels)
    raise GenerationError(f"path/{difficulty}: no map with a {moves}-move path in {MAX_ATTEMPTS} attempts")


def _induced_walk(rng: np.random.Generator, moves: int) -> list[int] | None:
    """A random induced self-avoiding walk of ``moves`` moves (flat indices), or None at a dead end."""
    is_road = bytearray(SIZE * SIZE)
    touching = bytearray(SIZE * SIZE)
    here = int(rng.integers(SIZE * SIZE))
    draws = rng.random(moves).tolist()
    route = [here]
    for k in range(moves + 1):
        is_road[here] = 1
        for nb in NEIGHBOURS[here]:
            touching[nb] += 1
        if k == moves:
            break
        options = [nb for nb in NEIGHBOURS[here] if not is_road[nb] and touching[nb] == 1]
        if not options:
            return None
        here = options[int(draws[k] * len(options))]
        route.append(here)
    return route


# --------------------------------------------------------------------------- renderer


def render(state: PathState) -> Image.Image:
    """Black walls, gray road, orange start and blue end triangles, letters, red marker disc.

    On the marker's cell the disc is drawn over the background and the cell's letter (in
    white) or the destination triangle (smaller) is drawn again on top of it.
    """
    image = _background(state.grid, state.start, state.end, state.labels).copy()
    if state.position is not None and state.position != state.start:
        draw = ImageDraw.Draw(image)
        cx, cy = GEOMETRY.center(state.position)
        draw.ellipse(
            (cx - MARKER_RADIUS, cy - MARKER_RADIUS, cx + MARKER_RADIUS, cy + MARKER_RADIUS), fill=MARKER_RGB
        )
        if state.position == state.end:
            _triangle(draw, state.end, MARKER_TRIANGLE_INSET, END_RGB)
        for letter, cell in state.labels:
            if cell == state.position:
                _letter(image, cell, letter, MARKER_LETTER_RGB)
    return image


def _triangle(draw: ImageDraw.ImageDraw, cell: Cell, inset: int, colour: tuple[int, int, int]) -> None:
    x0, y0, x1, y1 = GEOMETRY.cell_box(cell, inset)
    draw.polygon([((x0 + x1) // 2, y0), (x0, y1), (x1, y1)], fill=colour)


def _letter(image: Image.Image, cell: Cell, letter: str, colour: tuple[int, int, int]) -> None:
    x0, y0, _, _ = GEOMETRY.cell_box(cell)
    image.paste(colour, (x0, y0), _glyph(letter))


@functools.cache
def _glyph(letter: str) -> Image.Image:
    """A cell-sized mask of ``letter``, centred, stroked in its own colour (bold)."""
    mask = Image.new("L", (GEOMETRY.cell_px, GEOMETRY.cell_px), 0)
    half = GEOMETRY.cell_px // 2
    ImageDraw.Draw(mask).text(
        (half, half), letter, font=font(LETTER_PX), fill=255, anchor="mm", stroke_width=LETTER_STROKE, stroke_fill=255
    )
    return mask


@functools.lru_cache(maxsize=256)
def _background(
    grid: tuple[str, ...], start: Cell, end: Cell, labels: tuple[tuple[str, Cell], ...]
) -> Image.Image:
    image = new_board(GEOMETRY, FRAME_RGB)
    image.paste(cells_image(grid, {WALL: WALL_RGB, ROAD: ROAD_RGB}), GEOMETRY.cell_box((0, 0))[:2])
    draw = ImageDraw.Draw(image)
    _triangle(draw, start, TRIANGLE_INSET, START_RGB)
    _triangle(draw, end, TRIANGLE_INSET, END_RGB)
    for letter, cell in labels:
        _letter(image, cell, letter, LETTER_RGB)
    return image


# --------------------------------------------------------------------------- answers

_SPLIT = re.compile(r"[\s,;]+")
_STRIP = "\"'`[](){}.*"


def parse_answer(text: str) -> tuple[str, ...]:
    """The letters of the last ``<answer>...</answer>`` in ``text``.

    Tolerates prose around the tags, fences, case, spaces, quotes and brackets, ``;`` or
    ``->`` separators and trailing commas; empty content is the empty answer. Raises
    ``AnswerError`` (``no_answer``, ``bad_format``, ``unknown_action``) and nothing else.

    Example:
        >>> parse_answer("Route: <Answer> b, 'e', </Answer>")
        ('B', 'E')
        >>> parse_answer("<answer></answer>")
        ()
    """
    text = answer_text(text)
    payload = last_tagged(text, TAG)
    if payload is None:
        raise AnswerError("no_answer", f"no <{TAG}>...</{TAG}> found")
    if len(payload) > MAX_PAYLOAD_CHARS:
        raise AnswerError("bad_format", f"payload of {len(payload)} characters")
    body = strip_fences(payload)
    for arrow in ("->", "=>", "\u2192"):
        body = body.replace(arrow, ",")
    tokens = [token.strip(_STRIP) for token in _SPLIT.split(body)]
    tokens = [token for token in tokens if token]
    if len(tokens) > MAX_ANSWER_LABELS:
        raise AnswerError("bad_format", f"{len(tokens)} labels (more than {MAX_ANSWER_LABELS})")
    letters = []
    for token in tokens:
        letter = token.upper()
        if letter not in _LETTER_SET:
            raise AnswerError("unknown_action", f"not a label letter A-E: {token!r:.40}")
        letters.append(letter)
    return tuple(letters)


def answer_payload(answer: Sequence[str]) -> str:
    """Compact JSON list of letters, e.g. ``["A","C"]`` (the dataset's ``solution`` column).

    Example:
        >>> answer_payload(("A", "C"))
        '["A","C"]'
    """
    return canonical_json(list(answer))


def format_answer(answer: Sequence[str]) -> str:
    """The full answer text: ``<answer>A,C</answer>``."""
    return f"<{TAG}>{','.join(answer)}</{TAG}>"


# --------------------------------------------------------------------------- prompts

_RULES = (
    "The image shows a 10x10 map. Black cells are blocked; light-gray cells are road. "
    "The orange triangle marks the start and the blue triangle marks the destination. "
    "Five road cells carry the letters A, B, C, D and E. "
    "Cells are addressed as (r, c), 0-based, with (0, 0) the top-left cell; r grows downward "
    "and c grows rightward.\n"
    "You may move between road cells that share a side (up, down, left, right). The roads "
    "branch like a tree, so exactly one route leads from the start to the destination "
    "without visiting any cell twice; it is also the shortest route.\n"
    "Task: list the letters of the labelled cells this route passes through, in the order "
    "they are met when walking from the start to the destination. Leave out letters that "
    "are not on the route."
)
_FORMAT = (
    "Answer format: <answer>A,C</answer> (upper-case letters separated by commas; "
    "<answer></answer> if the route passes no letter)."
)


def question(state: PathState, style: QuestionStyle) -> str:
    """The prompt for ``text_cot`` or ``direct`` (rules, legend, coordinates, format)."""
    if style == "text_cot":
        return (
            f"{_RULES}\nThink step by step: trace the route from the start to the destination, "
            f"then give the final answer on the last line in exactly this format.\n{_FORMAT}"
        )
    if style == "direct":
        return f"{_RULES}\nReply with the answer only, in exactly this format and nothing else.\n{_FORMAT}"
    raise ValueError(f"unknown question style {style!r}; choose 'text_cot' or 'direct'")


def random_answer(state: PathState, rng: np.random.Generator) -> tuple[str, ...]:
    """1 to 5 of the board's letters in random order: the random baseline."""
    letters = [letter for letter, _ in state.labels]
    if not letters:
        return ()
    order = rng.permutation(len(letters))
    count = int(rng.integers(1, len(letters) + 1))
    return tuple(letters[int(i)] for i in order[:count])


def random_step(state: PathState, rng: np.random.Generator) -> Direction:
    """A random direction of the marker: the random baseline of interactive episodes."""
    return DIRECTIONS[int(rng.integers(len(DIRECTIONS)))]


# --------------------------------------------------------------------------- fidelity


def cell_labels(state: PathState) -> tuple[str, ...]:
    """Row-major: ``wall``, ``road``, ``start``, ``end`` or a letter, with ``+marker`` where the marker stands.

    Example:
        >>> cell_labels(PathState(("...",), (0, 0), (0, 2), (("A", (0, 1)),), (0, 1)))
        ('start', 'A+marker', 'end')
    """
    marks = {state.start: "start", state.end: "end"} | {cell: letter for letter, cell in state.labels}
    labels = [marks.get((r, c), "wall" if char == WALL else "road") for r, row in enumerate(state.grid) for c, char in enumerate(row)]
    if state.position is not None and state.position != state.start:  # the marker is not drawn on the start
        index = state.position[0] * len(state.grid[0]) + state.position[1]
        labels[index] += "+marker"
    return tuple(labels)


def palette_states() -> tuple[PathState, ...]:
    """A board with every mark, and the marker on a road cell, the destination and each letter."""
    base = from_ascii(["SABCDET..."] + ["#." * 5] * 9)
    spots = [(0, 7), base.end, *(cell for _, cell in base.labels)]
    return (base, *(PathState(base.grid, base.start, base.end, base.labels, spot) for spot in spots))


def perturb(state: PathState, k: int, rng: np.random.Generator) -> PathState:
    """``state`` with ``k`` unmarked cells (no start, end, letter or marker) flipped between wall and road."""
    fixed = {state.start, state.end, state.position, *(cell for _, cell in state.labels)}
    cells = [(r, c) for r in range(len(state.grid)) for c in range(len(state.grid[0])) if (r, c) not in fixed]
    grid = [list(row) for row in state.grid]
    for r, c in pick_edits([[(1, cell)] for cell in cells], k, rng):
        grid[r][c] = ROAD if grid[r][c] == WALL else WALL
    return PathState(tuple("".join(row) for row in grid), state.start, state.end, state.labels, state.position)


def sketch(state: PathState, answer: Sequence[str]) -> Sketch:
    """The red route from the start to the destination along the road (whatever ``answer`` is)."""
    route = _route(state.grid, state.start, state.end)
    if route is None:
        raise ValueError("the destination is unreachable from the start")
    return Sketch(routes=(route,))




SPEC = FamilySpec(
    name="path",
    buckets=BUCKETS,
    geometry=GEOMETRY,
    unique_length=True,
    from_json=from_json,
    to_json=to_json,
    generate=generate,
    solve=solve,
    replay=replay,
    trajectory=trajectory,
    render=render,
    parse_answer=parse_answer,
    format_answer=format_answer,
    answer_payload=answer_payload,
    question=question,
    random_answer=random_answer,
    apply_step=apply_step,
    is_goal=is_goal,
    parse_steps=parse_direction_answer,
    format_steps=format_direction_answer,
    episode_answer=episode_answer,
    answer_tag=TAG,
    step_description=(
        "one move of your marker along the road, starting at the start cell; the marker is drawn as a red "
        "disc. Walk it to the destination: the letters it passes are collected for you as your answer"
    ),
    random_step=random_step,
    step_example='<ANSWER_JSON>["right"]</ANSWER_JSON>',
    cell_labels=cell_labels,
    palette_states=palette_states,
    perturb=perturb,
    sketch=sketch,
    route_start=operator.attrgetter("start"),
)
