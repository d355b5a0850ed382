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
    step is a ``PathStep(move, hit_labels)``, the paper's per-step format (Table 26): the
    current-position marker (the orange start triangle, ``position``; None means at
    ``start``) moves one cell ``"up"``/``"down"``/``"left"``/``"right"``
    (``out_of_bounds``, ``wall``), and the model declares the labels it newly passes on
    that move. Declarations add up (``declared``); one that stops being a prefix of the
    true on-path letters is ``wrong_label``, as in the authors' environment.
    ``position`` and ``declared`` are not part of the JSON state.

Goal:
    The answer equals the on-path letters in traversal order from ``start`` to ``end``.
    A wrong letter is ``wrong_label`` at its index; a strict prefix of the truth is
    ``not_solved``. For the marker, the goal is standing on ``end`` having declared
    exactly those letters: the answer of an episode is what it declared, and an episode
    that does not reach the destination is never solved.

Buckets:
    ``optimal_length`` = moves of the start-end path: easy 2-5, medium 8-14, hard 18-25.
    Every right answer has that length (``unique_length``); a wrong one has ``len(answer)``.

Answer:
    ``<answer>A,C</answer>``: comma-separated letters A-E (case and spaces tolerated;
    ``<answer></answer>`` is the empty answer, "no label"). ``answer_payload`` is the
    compact JSON list of letters, e.g. ``["A","C"]``. An interactive episode answers with
    its walk instead: one ``<STEP_JSON>{"move":"up","hit_labels":["A"]}</STEP_JSON>`` per
    step and no ``<answer>`` tag. ``replay`` judges such a walk by moving the marker and
    comparing the declared letters, so the text itself says whether the destination was
    reached, for every consumer (records, submissions, ``score``). A text with an
    ``<answer>`` tag is judged by its letters.
"""

from __future__ import annotations

import dataclasses
import functools
import itertools
import operator
import re
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Final, NamedTuple

import numpy as np
from PIL import Image, ImageDraw

from vgau_data.answers import (
    STEP_TAG,
    answer_text,
    last_step_value,
    last_tagged,
    load_lenient,
    lower_aligned,
    step_text,
    strip_fences,
)
from vgau_data.errors import GenerationError, StateError
from vgau_data.puzzles.base import (
    DELTAS,
    DIRECTIONS,
    AnswerError,
    Cell,
    Direction,
    FamilySpec,
    Illegal,
    Replay,
    Sketch,
    Slot,
    Solution,
    canonical_json,
    draw_slot,
    parse_direction,
    pick_edits,
    route_directions,
)
from vgau_data.puzzles.grids import (
    NEIGHBOURS,
    cell_from_json,
    cells_image,
    grid_from_json,
    grow_tree,
    induced_path,
    load_state_object,
)
from vgau_data.puzzles.prompts import FamilyPrompts
from vgau_data.rendering import BoardGeometry, font, new_board

# --------------------------------------------------------------------------- constants

SIZE: Final = 10
BUCKETS: Final[dict[str, tuple[int, int]]] = {"easy": (2, 5), "medium": (8, 14), "hard": (18, 25)}
LENGTH_MIX: Final[dict[str, dict[int, int]]] = {
    "easy": {2: 5, 3: 4, 4: 6, 5: 5},
    "medium": {8: 2, 9: 3, 10: 4, 11: 5, 12: 3, 13: 4, 14: 9},
    "hard": {18: 5, 19: 6, 20: 6, 21: 5, 22: 6, 23: 8, 24: 6, 25: 8},
}
"""Rows per path length in the authors' 100 published instances (their ``distance``, counted once)."""
LETTERS: Final = "ABCDE"
_LETTER_SET: Final = frozenset(LETTERS)
N_LABELS: Final = 5
MAX_ATTEMPTS: Final = 500
ROAD_CELLS: Final = (40, 66)
"""Range (half-open) of the road-cell count the generator grows the tree towards."""
ROUTE_SHAPE: Final[dict[str, tuple[float, float]]] = {
    "easy": (0.88, 1.0),
    "medium": (0.65, 0.81),
    "hard": (0.58, 0.54),
}
"""Per bucket, the authors' turns per inner path cell and start-end distance per move
(their means: 2.25 of 2.55, 6.93 of 10.73, 12.06 of 20.78; 3.55 of 3.55, 9.53 of 11.73,
11.86 of 21.78): easy routes are staircases, hard ones wind back."""
ROUTE_PROGRESS: Final = 1.0
ROUTE_TURN: Final = 0.6
"""The depth-first search's preference for moves away from the start and for turns
(``grids.induced_path``); tuned so its paths come near ``ROUTE_SHAPE`` unselected."""
ROUTE_CANDIDATES: Final = 8
ON_ROUTE_SHARE: Final = {2: 2, 3: 5, 4: 3}
"""Share of medium and hard rows with 2-4 labels on the path. The authors always put 3
there; a fixed count would tell a model the answer's length, so ours vary around it."""
MAX_PAYLOAD_CHARS: Final = 10_000
MAX_ANSWER_LABELS: Final = 100
MAX_WALK_STEPS: Final = 1000

WALL: Final = "#"
ROAD: Final = "."

WALL_RGB: Final = (0, 0, 0)
ROAD_RGB: Final = (210, 210, 210)
FRAME_RGB: Final = (255, 255, 255)
START_RGB: Final = (249, 115, 22)
END_RGB: Final = (37, 99, 235)
LETTER_RGB: Final = (0, 0, 0)
TRIANGLE_INSET: Final = 4
MARKER_TRIANGLE_INSET: Final = 13
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
    ``(letter, cell)`` sorted by letter. ``position`` is the marker's cell (None: at
    ``start``) and ``declared`` the letters declared so far; both are used only by the
    interactive environment, and serialised only once the marker has moved.
    """

    grid: tuple[str, ...]
    start: Cell
    end: Cell
    labels: tuple[tuple[str, Cell], ...]
    position: Cell | None = None
    declared: tuple[str, ...] = ()


class PathStep(NamedTuple):
    """One interactive step: a marker move and the labels the model says it newly passes."""

    move: Direction
    hit_labels: tuple[str, ...] = ()


def to_json(state: PathState) -> str:
    """SPEC §4 canonical JSON; a mid-episode state adds the marker (``position``, ``declared``).

    A puzzle's state (marker on the start, nothing declared) has exactly SPEC's four keys;
    the marker's keys let a record name the board an interactive step should show.

    Example:
        >>> to_json(from_ascii(["SAT"]))
        '{"end":[0,2],"grid":["..."],"labels":{"A":[0,1]},"start":[0,0]}'
        >>> to_json(apply_step(from_ascii(["SAT"]), PathStep("right", ("A",))))
        '{"declared":["A"],"end":[0,2],"grid":["..."],"labels":{"A":[0,1]},"position":[0,1],"start":[0,0]}'
    """
    obj: dict[str, Any] = {
        "grid": list(state.grid),
        "start": list(state.start),
        "end": list(state.end),
        "labels": {letter: list(cell) for letter, cell in state.labels},
    }
    if state.position is not None or state.declared:
        obj["position"] = list(state.position or state.start)
        obj["declared"] = list(state.declared)
    return canonical_json(obj)


def from_json(text: str) -> PathState:
    """Parse and fully validate a SPEC §4 path state; raise ``StateError`` on anything off.

    Checks the 10x10 ``#``/``.`` grid, that start, end and labels are distinct road cells,
    that label keys are letters A-E, and that the road cells form a tree.
    """
    obj = load_state_object(text)
    keys = set(obj)
    if keys not in ({"grid", "start", "end", "labels"}, {"grid", "start", "end", "labels", "position", "declared"}):
        raise StateError(
            f"path state needs the keys grid, start, end, labels (and, mid-episode, position and declared); got {sorted(obj)}"
        )
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
    state = _checked(PathState(grid, start, end, tuple(labels)))
    if "position" not in obj:
        return state
    declared = obj["declared"]
    if (
        not isinstance(declared, list)
        or len(declared) > len(labels)
        or not all(isinstance(letter, str) and letter in raw for letter in declared)
        or len(set(declared)) != len(declared)
    ):
        raise StateError("declared must list distinct letters of the board's labels")
    position = cell_from_json(obj["position"], "position", grid)
    return PathState(grid, start, end, tuple(labels), None if position == start else position, tuple(declared))


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


def route(state: PathState) -> tuple[Cell, ...] | None:
    """The cells of the start-end path, both ends included (None if end is unreachable).

    Example:
        >>> route(from_ascii(["SA.T", "##B#"]))
        ((0, 0), (0, 1), (0, 2), (0, 3))
    """
    return _route(state.grid, state.start, state.end)


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


def _here(state: PathState) -> Cell:
    return state.start if state.position is None else state.position


def _move(grid: tuple[str, ...], here: Cell, move: object) -> Cell | str:
    """The cell a move leads to, or the reason code it is illegal."""
    delta = DELTAS.get(move) if isinstance(move, str) else None
    if delta is None:
        return "unknown_action"
    r, c = here[0] + delta[0], here[1] + delta[1]
    if not (0 <= r < len(grid) and 0 <= c < len(grid[0])):
        return "out_of_bounds"
    if grid[r][c] == WALL:
        return "wall"
    return (r, c)


def _declares_in_order(declared: Sequence[str], letters: Sequence[str]) -> bool:
    return len(declared) <= len(letters) and tuple(declared) == tuple(letters[: len(declared)])


def apply_step(state: PathState, step: PathStep) -> PathState | Illegal:
    """Move the marker one cell and add the labels declared on the way (interactive step).

    ``Illegal``: off the board, into a wall, or declarations that stop being a prefix of
    the on-path letters (``wrong_label``).

    Example:
        >>> s = from_ascii(["SA.T"])
        >>> apply_step(s, PathStep("right", ("A",))).declared
        ('A',)
        >>> apply_step(s, PathStep("left"))
        Illegal(code='out_of_bounds', step_index=0)
        >>> apply_step(s, PathStep("right", ("B",)))
        Illegal(code='wrong_label', step_index=0)
    """
    if not isinstance(step, PathStep):
        return Illegal("unknown_action", 0)
    there = _move(state.grid, _here(state), step.move)
    if isinstance(there, str):
        return Illegal(there, 0)
    declared = state.declared + tuple(step.hit_labels)
    truth = _truth(state.grid, state.start, state.end, state.labels)
    if truth is None or not _declares_in_order(declared, truth[0]):
        return Illegal("wrong_label", 0)
    position = None if there == state.start else there
    return PathState(state.grid, state.start, state.end, state.labels, position, declared)


def is_goal(state: PathState) -> bool:
    """The marker stands on the destination and every on-path letter has been declared."""
    truth = _truth(state.grid, state.start, state.end, state.labels)
    return _here(state) == state.end and truth is not None and state.declared == truth[0]


def replay(state: PathState, answer: Sequence[Any]) -> Replay:
    """Judge a label list against the true on-path letters, or a walk (``PathStep``s) by playing it.

    Example:
        >>> s = from_ascii(["SA.T", "##B#"])
        >>> replay(s, ("A",))
        Replay(feasible=True, length=3, error=None, first_invalid_step=None)
        >>> replay(s, ("A", "B")).error
        'wrong_label'
        >>> replay(s, (PathStep("right", ("A",)), PathStep("right"))).error  # one cell short
        'not_solved'
    """
    if answer and isinstance(answer[0], PathStep):
        return _replay_walk(state, answer)
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


def _replay_walk(state: PathState, walk: Sequence[Any]) -> Replay:
    """``apply_step`` along ``walk`` then ``is_goal``, without building states (same verdicts)."""
    n = len(walk)
    truth = _truth(state.grid, state.start, state.end, state.labels)
    here, declared = _here(state), list(state.declared)
    for index, step in enumerate(walk):
        if not isinstance(step, PathStep):
            return Replay(False, n, "unknown_action", index)
        there = _move(state.grid, here, step.move)
        if isinstance(there, str):
            return Replay(False, n, there, index)
        declared.extend(step.hit_labels)
        if truth is None or not _declares_in_order(declared, truth[0]):
            return Replay(False, n, "wrong_label", index)
        here = there
    if truth is None or here != state.end or len(declared) != len(truth[0]):
        return Replay(False, n, "not_solved", n)
    return Replay(True, n)


def trajectory(state: PathState, answer: Sequence[Any]) -> list[PathState]:
    """The marker walking the true path, one state per move, declaring each label as it passes it."""
    return [state_after for _, state_after in _route_walk(state)]


def answer_steps(state: PathState, answer: Sequence[Any]) -> tuple[PathStep, ...]:
    """The walk that plays ``answer``: itself when it is a walk; for the on-path letters, the route.

    Raises:
        ValueError: letters other than the route's (only the true letters have a walk).

    Example:
        >>> answer_steps(from_ascii(["SA.T", "##B#"]), ("A",))
        (PathStep(move='right', hit_labels=('A',)), PathStep(move='right', hit_labels=()), PathStep(move='right', hit_labels=()))
    """
    if answer and isinstance(answer[0], PathStep):
        return tuple(answer)
    walk = _route_walk(state)
    if tuple(answer) != tuple(letter for step, _ in walk for letter in step.hit_labels):
        raise ValueError(f"path: {answer!r} are not the on-path letters, so no walk plays them")
    return tuple(step for step, _ in walk)


def _route_walk(state: PathState) -> list[tuple[PathStep, PathState]]:
    """Each move along the start-end route with its declaration, and the state after it."""
    route = _route(state.grid, state.start, state.end)
    if route is None:
        raise ValueError("the destination is unreachable from the start")
    letter_at = {cell: letter for letter, cell in state.labels}
    walk = []
    current = state
    for before, after in itertools.pairwise(route):
        move = next(d for d, (dr, dc) in DELTAS.items() if (before[0] + dr, before[1] + dc) == after)
        step = PathStep(move, (letter_at[after],) if after in letter_at else ())  # type: ignore[arg-type]
        current = apply_step(current, step)  # type: ignore[assignment]
        walk.append((step, current))
    return walk


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


def generate(difficulty: str, rng: np.random.Generator, slot: Slot | None = None) -> PathState:
    """A map whose start-end path has exactly ``slot.length`` moves.

    Lays the path as a random induced simple path (randomized DFS: each new cell touches
    only the previous one), grows side roads as an induced tree around it (which cannot
    shorten or duplicate the path), then labels it as the authors do: ``on_route_count``
    inner path cells, and the other labels on side roads next to the path (``decoy
    distances``), with the letters shuffled.

    Raises:
        ValueError: unknown difficulty, or a slot length outside the bucket.
        GenerationError: nothing fitted within the attempt budget.
    """
    if difficulty not in BUCKETS:
        raise ValueError(f"unknown difficulty {difficulty!r}; choose from {list(BUCKETS)}")
    slot = slot or draw_slot(LENGTH_MIX, difficulty, rng)
    low, high = BUCKETS[difficulty]
    if not low <= slot.length <= high:
        raise ValueError(f"path/{difficulty}: length {slot.length} is outside {low}-{high}")
    on_count = on_route_count(difficulty, slot)
    for _ in range(MAX_ATTEMPTS):
        route = _sample_route(difficulty, slot, rng)
        is_road = grow_tree(rng, route, max(int(rng.integers(*ROAD_CELLS)), len(route) + N_LABELS))
        decoys = _decoys(is_road, route, N_LABELS - on_count, difficulty == "easy", rng)
        if decoys is None:
            continue
        inner = route[1:-1]
        cells = [inner[int(i)] for i in rng.choice(len(inner), size=on_count, replace=False)] + decoys
        order = rng.permutation(N_LABELS)
        labels = tuple(sorted((LETTERS[int(order[j])], divmod(cell, SIZE)) for j, cell in enumerate(cells)))
        grid = tuple("".join(ROAD if is_road[r * SIZE + c] else WALL for c in range(SIZE)) for r in range(SIZE))
        return PathState(grid, divmod(route[0], SIZE), divmod(route[-1], SIZE), labels)
    raise GenerationError(f"path/{difficulty}: no map with a {slot.length}-move path in {MAX_ATTEMPTS} attempts")


def _sample_route(difficulty: str, slot: Slot, rng: np.random.Generator) -> list[int]:
    """Of ``ROUTE_CANDIDATES`` induced paths of the slot's length, the nearest to the
    authors' shape: ``ROUTE_SHAPE``'s shares of turns and of start-end distance, each
    target rounded down or up by the slot's quantile."""
    turn_share, span_share = ROUTE_SHAPE[difficulty]
    turns_wanted = int(turn_share * (slot.length - 1) + slot.quantile)
    span_wanted = int(span_share * slot.length + (slot.quantile + 0.5) % 1.0)

    def miss(route: list[int]) -> int:
        cells = [divmod(cell, SIZE) for cell in route]
        steps = [(b[0] - a[0], b[1] - a[1]) for a, b in itertools.pairwise(cells)]
        turns = sum(a != b for a, b in itertools.pairwise(steps))
        span = abs(cells[0][0] - cells[-1][0]) + abs(cells[0][1] - cells[-1][1])
        return abs(turns - turns_wanted) + abs(span - span_wanted)

    routes: list[list[int]] = []
    for _ in range(MAX_ATTEMPTS):
        route = induced_path(rng, slot.length, progress=ROUTE_PROGRESS, turn=ROUTE_TURN)
        if route is not None:
            routes.append(route)
            if len(routes) == ROUTE_CANDIDATES:
                break
    if not routes:
        raise GenerationError(f"path/{difficulty}: no {slot.length}-move path in {MAX_ATTEMPTS} searches")
    return min(routes, key=miss)


def on_route_count(difficulty: str, slot: Slot) -> int:
    """Labels on the path: easy as many as fit, up to 3 (the authors' rule); else by ``ON_ROUTE_SHARE`` at the quantile.

    Example:
        >>> on_route_count("easy", Slot(2, 0.5)), on_route_count("easy", Slot(5, 0.5))
        (1, 3)
    """
    if difficulty == "easy":
        return min(3, slot.length - 1)
    total = sum(ON_ROUTE_SHARE.values())
    point = slot.quantile * total
    for count, share in ON_ROUTE_SHARE.items():
        if point < share:
            return count
        point -= share
    return max(ON_ROUTE_SHARE)


def _decoys(
    is_road: bytearray, route: list[int], count: int, spread: bool, rng: np.random.Generator
) -> list[int] | None:
    """``count`` side-road cells near the path: next to it, or with ``spread`` and more
    than two, one next to it and the rest two cells away (as the authors' easy maps);
    nearer or farther when none is left; None when the side roads are too few."""
    distance = dict.fromkeys(route, 0)
    queue = list(route)
    for cell in queue:
        for nb in NEIGHBOURS[cell]:
            if is_road[nb] and nb not in distance:
                distance[nb] = distance[cell] + 1
                queue.append(nb)
    free = [cell for cell in queue if distance[cell] > 0]
    if len(free) < count:
        return None
    wanted = [1] * count if count <= 2 or not spread else [1] + [2] * (count - 1)
    chosen: list[int] = []
    for d in wanted:
        nearest = min(abs(distance[cell] - d) for cell in free)
        options = [cell for cell in free if abs(distance[cell] - d) == nearest]
        pick = options[int(rng.integers(len(options)))]
        chosen.append(pick)
        free.remove(pick)
    return chosen


# --------------------------------------------------------------------------- renderer


def render(state: PathState) -> Image.Image:
    """Black walls, gray road, letters, the blue destination triangle and the orange marker triangle.

    The orange triangle marks the marker's cell (the start until it moves), as the
    authors' environment moves the start triangle; on a letter the letter is drawn over
    it, and on the destination it is drawn smaller so the blue triangle shows around it.
    """
    image = _background(state.grid, state.end, state.labels).copy()
    here = _here(state)
    inset = MARKER_TRIANGLE_INSET if here == state.end else TRIANGLE_INSET
    _triangle(ImageDraw.Draw(image), here, inset, START_RGB)
    for letter, cell in state.labels:
        if cell == here:
            _letter(image, cell, letter, LETTER_RGB)
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
def _background(grid: tuple[str, ...], end: Cell, labels: tuple[tuple[str, Cell], ...]) -> Image.Image:
    image = new_board(GEOMETRY, FRAME_RGB)
    image.paste(cells_image(grid, {WALL: WALL_RGB, ROAD: ROAD_RGB}), GEOMETRY.cell_box((0, 0))[:2])
    draw = ImageDraw.Draw(image)
    _triangle(draw, end, TRIANGLE_INSET, END_RGB)
    for letter, cell in labels:
        _letter(image, cell, letter, LETTER_RGB)
    return image


# --------------------------------------------------------------------------- answers

_SPLIT = re.compile(r"[\s,;]+")
_STRIP = "\"'`[](){}.*"


def parse_answer(text: str) -> tuple[Any, ...]:
    """The letters of the last ``<answer>...</answer>`` in ``text``, else the walk of its steps.

    Tolerates prose around the tags, fences, case, spaces, quotes and brackets, ``;`` or
    ``->`` separators and trailing commas; empty content is the empty answer. A text
    without ``<answer>`` but with ``<STEP_JSON>`` steps (an interactive episode's answer)
    is read as a walk of ``PathStep``s. Raises ``AnswerError`` (``no_answer``,
    ``bad_format``, ``unknown_action``) and nothing else.

    Example:
        >>> parse_answer("Route: <Answer> b, 'e', </Answer>")
        ('B', 'E')
        >>> parse_answer("<answer></answer>")
        ()
        >>> parse_answer('<STEP_JSON>{"move":"up","hit_labels":["a"]}</STEP_JSON>')
        (PathStep(move='up', hit_labels=('A',)),)
    """
    text = answer_text(text)
    payload = last_tagged(text, TAG)
    if payload is None:
        walk = _parse_walk(text)
        if walk:
            return walk
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
    return tuple(_letter_of(token) for token in tokens)


def _letter_of(token: object) -> str:
    letter = token.strip().upper() if isinstance(token, str) else None
    if letter not in _LETTER_SET:
        raise AnswerError("unknown_action", f"not a label letter A-E: {token!r:.40}")
    return letter  # type: ignore[return-value]


def _parse_walk(text: str) -> tuple[PathStep, ...]:
    """Every complete ``<STEP_JSON>...</STEP_JSON>`` in order (one scan: linear in the text)."""
    lowered = lower_aligned(text)
    opening, closing = f"<{STEP_TAG.lower()}>", f"</{STEP_TAG.lower()}>"
    steps: list[PathStep] = []
    position = 0
    while (start := lowered.find(opening, position)) >= 0:
        end = lowered.find(closing, start)
        if end < 0:
            break
        if len(steps) == MAX_WALK_STEPS:
            raise AnswerError("bad_format", f"more than {MAX_WALK_STEPS} steps")
        steps.append(_step_of(load_lenient(text[start + len(opening) : end])))
        position = end + len(closing)
    return tuple(steps)


def _step_of(value: Any) -> PathStep:
    if not isinstance(value, dict):
        raise AnswerError("bad_format", 'a step must be {"move": ..., "hit_labels": [...]}')
    fields = {str(key).strip().lower(): field for key, field in value.items()}
    labels = fields.get("hit_labels", [])
    if labels is None:
        labels = []
    if not isinstance(labels, list) or len(labels) > N_LABELS:
        raise AnswerError("bad_format", f"hit_labels must be a list of at most {N_LABELS} letters")
    return PathStep(parse_direction(fields.get("move")), tuple(_letter_of(label) for label in labels))


def parse_step(text: str) -> PathStep:
    """The step in the last ``<STEP_JSON>{"move": ..., "hit_labels": [...]}</STEP_JSON>`` of a reply.

    Example:
        >>> parse_step('<STEP_JSON>{"move":"Left","hit_labels":[]}</STEP_JSON>')
        PathStep(move='left', hit_labels=())
    """
    return _step_of(last_step_value(text))


def format_step(step: PathStep) -> str:
    """One step in the per-turn format (Table 26).

    Example:
        >>> format_step(PathStep("up", ("C",)))
        '<STEP_JSON>{"move":"up","hit_labels":["C"]}</STEP_JSON>'
    """
    return step_text({"move": step.move, "hit_labels": list(step.hit_labels)})


def answer_payload(answer: Sequence[str]) -> str:
    """Compact JSON list of letters, e.g. ``["A","C"]`` (the dataset's ``solution`` column).

    Example:
        >>> answer_payload(("A", "C"))
        '["A","C"]'
    """
    return canonical_json(list(answer))


def format_answer(answer: Sequence[Any]) -> str:
    """The answer text: ``<answer>A,C</answer>`` for letters, one step per line for a walk."""
    if answer and isinstance(answer[0], PathStep):
        return "\n".join(format_step(step) for step in answer)
    return f"<{TAG}>{','.join(answer)}</{TAG}>"


# --------------------------------------------------------------------------- prompts
# Table 14 (Text-CoT), 21 (Self-GtA), 26 (Self-VCoT) and 32 (Self-VR), in our own words.

PROMPTS: Final = FamilyPrompts(
    legend=(
        "The image shows a map with five labelled points: A, B, C, D and E. Black cells are walls, which "
        "cannot be entered; light-grey cells are walkable. The orange triangle marks the start and the blue "
        "triangle the destination. Each letter marks a walkable cell."
    ),
    rules=(
        "Moves: up, down, left or right, one cell per step, never diagonally, never jumping, never into a "
        "wall. Follow the valid simple path from the start to the destination: no backtracking and no cell "
        "visited twice.\n"
        "Task: determine which labelled points lie on that path, going from the orange triangle to the blue "
        "triangle."
    ),
    reasoning="identify the start and the destination, describe the moves of the route, and check that it "
    "never enters a black cell.",
    answer_format="Give only the letters the path passes, in the order it passes them, inside answer tags, "
    "for example <answer>A,C</answer>.",
    step="move of the orange triangle, which marks your current position",
    step_format='<STEP_JSON>{"move":"up","hit_labels":["A"]}</STEP_JSON>, where move is up, down, left or '
    "right and hit_labels lists, in upper case, only the labels newly passed on this move ([] when none).",
    image_change="only the orange triangle, your current position, has moved",
    labelled_cells="every cell, walls included",
    solution_drawing=(
        "Draw one continuous bright red line, about a tenth of a cell wide, from the centre of the start "
        "cell to the centre of the destination cell. It joins centres of neighbouring walkable cells with "
        "horizontal and vertical segments only, never crosses or touches a black cell, and visits no cell "
        "twice."
    ),
    solution_shows="a red line along the simple path from the start to the destination",
)


def random_answer(state: PathState, rng: np.random.Generator) -> tuple[str, ...]:
    """1 to 5 of the board's letters in random order: the random baseline."""
    letters = [letter for letter, _ in state.labels]
    if not letters:
        return ()
    order = rng.permutation(len(letters))
    count = int(rng.integers(1, len(letters) + 1))
    return tuple(letters[int(i)] for i in order[:count])


def random_step(state: PathState, rng: np.random.Generator) -> PathStep:
    """A random move declaring nothing: the random baseline of interactive episodes."""
    return PathStep(DIRECTIONS[int(rng.integers(len(DIRECTIONS)))])


# --------------------------------------------------------------------------- fidelity


def cell_labels(state: PathState) -> tuple[str, ...]:
    """Row-major: ``wall``, ``road``, ``end`` or a letter, with the orange marker triangle as ``marker``
    on a plain road cell (the start, until it moves) and ``+marker`` on a letter or the destination.

    Example:
        >>> cell_labels(PathState(("...",), (0, 0), (0, 2), (("A", (0, 1)),), (0, 1)))
        ('road', 'A+marker', 'end')
    """
    marks = {state.end: "end"} | {cell: letter for letter, cell in state.labels}
    labels = [marks.get((r, c), "wall" if char == WALL else "road") for r, row in enumerate(state.grid) for c, char in enumerate(row)]
    here = _here(state)
    index = here[0] * len(state.grid[0]) + here[1]
    labels[index] = "marker" if labels[index] == "road" else f"{labels[index]}+marker"
    return tuple(labels)


def palette_states() -> tuple[PathState, ...]:
    """A board with every mark: the marker on the start, a road cell, the destination and each letter."""
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
    return dataclasses.replace(state, grid=tuple("".join(row) for row in grid))


def sketch(state: PathState, answer: Sequence[str]) -> Sketch:
    """The red route from the start to the destination along the road (whatever ``answer`` is)."""
    route = _route(state.grid, state.start, state.end)
    if route is None:
        raise ValueError("the destination is unreachable from the start")
    return Sketch(routes=(route,))


def route_answer(state: PathState, cells: Sequence[Cell]) -> tuple[PathStep, ...]:
    """The walk along a drawn route's cells, declaring each letter when the route first enters it.

    Example:
        >>> route_answer(from_ascii(["SA.T"]), [(0, 0), (0, 1), (0, 2), (0, 3)])[0]
        PathStep(move='right', hit_labels=('A',))
    """
    letter_at = {cell: letter for letter, cell in state.labels}
    seen = set(cells[:1])
    steps = []
    for move, cell in zip(route_directions(cells), cells[1:]):
        steps.append(PathStep(move, (letter_at[cell],) if cell in letter_at and cell not in seen else ()))
        seen.add(cell)
    return tuple(steps)


SPEC = FamilySpec(
    name="path",
    buckets=BUCKETS,
    geometry=GEOMETRY,
    unique_length=True,
    from_json=from_json,
    to_json=to_json,
    generate=generate,
    length_mix=LENGTH_MIX,
    solve=solve,
    replay=replay,
    trajectory=trajectory,
    render=render,
    parse_answer=parse_answer,
    format_answer=format_answer,
    answer_payload=answer_payload,
    prompts=PROMPTS,
    random_answer=random_answer,
    apply_step=apply_step,
    is_goal=is_goal,
    parse_step=parse_step,
    format_step=format_step,
    answer_steps=answer_steps,
    answer_tag=TAG,
    random_step=random_step,
    cell_labels=cell_labels,
    palette_states=palette_states,
    perturb=perturb,
    sketch=sketch,
    route_start=operator.attrgetter("start"),
    route_answer=route_answer,
)
