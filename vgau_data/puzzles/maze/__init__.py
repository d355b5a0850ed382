"""Maze: walk the agent from its square to the goal through open cells.

Board:
    10x10 cells, each a wall (``#``, drawn dark) or open (``.``, drawn off-white). The
    agent is a blue square (its cell is ``start``), the goal a green hollow square. The
    open cells form an induced tree, so the path between any two open cells is unique.
    Generated mazes keep open cells in rows and columns 1-8 (a wall border), as the
    authors' do; states read from JSON may use the whole board.

Step:
    One orthogonal move of the agent: ``"up"``, ``"down"``, ``"left"`` or ``"right"``.
    Leaving the board is ``out_of_bounds``; entering a wall is ``wall``. The agent's
    position after a step is the new state's ``start`` (trajectory states move it).

Goal:
    The agent stands on the goal cell (``start == goal``); an answer that ends elsewhere
    is ``not_solved``.

Buckets:
    ``optimal_length`` (BFS distance start -> goal): easy 1-6, medium 7-17, hard 18-30.

Answer:
    ``<ANSWER_JSON>["up","left",...]</ANSWER_JSON>``; the last tagged list in the text
    counts. ``answer_payload`` is the compact JSON list, e.g. ``["up","left"]``. The
    format and the grid helpers are shared with sokoban and path (``grids``). One
    interactive step is the sentence ``Next, move one step up.`` (the authors' form).
"""

from __future__ import annotations

import functools
import operator
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

import numpy as np
from PIL import Image, ImageDraw

from vgau_data.errors import GenerationError, StateError
from vgau_data.puzzles.base import (
    DELTAS,
    DIRECTIONS,
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
    pick_edits,
    walk,
)
from vgau_data.puzzles.grids import (
    DIRECTION_TAG,
    GEOMETRY,
    INTERIOR,
    MOVE_SENTENCE_FORMAT,
    NEIGHBOURS,
    OPEN,
    SIZE,
    WALL,
    cell_from_json,
    cells_image,
    direction_payload,
    format_direction_answer,
    format_move_sentence,
    grid_from_json,
    grow_tree,
    induced_path,
    load_state_object,
    parse_direction_answer,
    parse_move_sentence,
)
from vgau_data.puzzles.prompts import FamilyPrompts
from vgau_data.rendering import new_board

# --------------------------------------------------------------------------- constants

BUCKETS: Final[dict[str, tuple[int, int]]] = {"easy": (1, 6), "medium": (7, 17), "hard": (18, 30)}

WALL_RGB: Final = (36, 40, 48)
OPEN_RGB: Final = (244, 240, 230)
FRAME_RGB: Final = (170, 170, 170)
AGENT_RGB: Final = (37, 99, 235)
GOAL_RGB: Final = (22, 163, 74)
AGENT_INSET: Final = 13
GOAL_INSET: Final = 5
GOAL_WIDTH: Final = 5

# --------------------------------------------------------------------------- state


@dataclass(frozen=True, slots=True)
class MazeState:
    """A maze and where the agent stands.

    ``grid`` rows are strings of ``#`` (wall) and ``.`` (open); ``start`` is the agent's
    current cell, ``goal`` the cell to reach. Both are open cells.
    """

    grid: tuple[str, ...]
    start: Cell
    goal: Cell


def to_json(state: MazeState) -> str:
    """SPEC §4 canonical JSON.

    Example:
        >>> to_json(from_ascii(["S.G"]))
        '{"goal":[0,2],"grid":["..."],"start":[0,0]}'
    """
    return canonical_json({"grid": list(state.grid), "start": list(state.start), "goal": list(state.goal)})


def from_json(text: str) -> MazeState:
    """Parse and fully validate a SPEC §4 maze state; raise ``StateError`` on anything off."""
    obj = load_state_object(text)
    if set(obj) != {"grid", "start", "goal"}:
        raise StateError(f"maze state needs exactly the keys grid, start, goal; got {sorted(obj)}")
    grid = grid_from_json(obj["grid"], SIZE)
    start = cell_from_json(obj["start"], "start", grid)
    goal = cell_from_json(obj["goal"], "goal", grid)
    return MazeState(grid, start, goal)


def to_ascii(state: MazeState) -> list[str]:
    """Rows with ``S`` agent, ``G`` goal, ``*`` agent on goal, ``#`` wall, ``.`` open.

    Example:
        >>> to_ascii(MazeState(("...",), (0, 2), (0, 2)))
        ['..*']
    """
    rows = [list(row) for row in state.grid]
    rows[state.goal[0]][state.goal[1]] = "G"
    rows[state.start[0]][state.start[1]] = "*" if state.start == state.goal else "S"
    return ["".join(row) for row in rows]


def from_ascii(rows: Sequence[str]) -> MazeState:
    """Inverse of ``to_ascii``; any rectangular size (fixtures). Raises ``StateError``.

    Example:
        >>> from_ascii(["S#", ".G"]).goal
        (1, 1)
    """
    if not rows or not rows[0] or any(len(row) != len(rows[0]) for row in rows):
        raise StateError("ascii maze must be a non-empty rectangle of rows")
    start = goal = None
    grid = []
    for r, row in enumerate(rows):
        for c, char in enumerate(row):
            if char in "S*":
                if start is not None:
                    raise StateError("ascii maze has more than one agent (S or *)")
                start = (r, c)
            if char in "G*":
                if goal is not None:
                    raise StateError("ascii maze has more than one goal (G or *)")
                goal = (r, c)
            if char not in "#.SG*":
                raise StateError(f"unknown ascii maze character {char!r} at ({r}, {c})")
        grid.append(row.replace("S", OPEN).replace("G", OPEN).replace("*", OPEN))
    if start is None or goal is None:
        raise StateError("ascii maze needs one agent (S) and one goal (G), or * for both")
    return MazeState(tuple(grid), start, goal)


# --------------------------------------------------------------------------- rules


def apply_step(state: MazeState, step: Direction) -> MazeState | Illegal:
    """Move the agent one cell; ``Illegal`` for an unknown direction, the edge or a wall.

    Example:
        >>> apply_step(from_ascii(["S#G"]), "right")
        Illegal(code='wall', step_index=0)
    """
    delta = DELTAS.get(step) if isinstance(step, str) else None
    if delta is None:
        return Illegal("unknown_action", 0)
    r, c = state.start[0] + delta[0], state.start[1] + delta[1]
    if not (0 <= r < len(state.grid) and 0 <= c < len(state.grid[0])):
        return Illegal("out_of_bounds", 0)
    if state.grid[r][c] == WALL:
        return Illegal("wall", 0)
    return MazeState(state.grid, (r, c), state.goal)


def is_goal(state: MazeState) -> bool:
    """The agent stands on the goal."""
    return state.start == state.goal


def replay(state: MazeState, answer: Sequence[Direction]) -> Replay:
    """Play ``answer`` from the agent's cell; stop at the first illegal move.

    Example:
        >>> replay(from_ascii(["S.G"]), ("right", "right"))
        Replay(feasible=True, length=2, error=None, first_invalid_step=None)
        >>> replay(from_ascii(["S.G"]), ("up",)).error
        'out_of_bounds'
    """
    grid = state.grid
    rows, cols = len(grid), len(grid[0])
    r, c = state.start
    n = len(answer)
    for index, step in enumerate(answer):
        delta = DELTAS.get(step) if isinstance(step, str) else None
        if delta is None:
            return Replay(False, n, "unknown_action", index)
        r += delta[0]
        c += delta[1]
        if not (0 <= r < rows and 0 <= c < cols):
            return Replay(False, n, "out_of_bounds", index)
        if grid[r][c] == WALL:
            return Replay(False, n, "wall", index)
    if (r, c) != state.goal:
        return Replay(False, n, "not_solved", n)
    return Replay(True, n)



# --------------------------------------------------------------------------- solver


def solve(state: MazeState) -> Solution | None:
    """Shortest move list by BFS over open cells, or None if the goal is unreachable.

    Example:
        >>> solve(from_ascii(["S.", "#G"])).answer
        ('right', 'down')
    """
    grid = state.grid
    rows, cols = len(grid), len(grid[0])
    parent: dict[Cell, tuple[Cell, Direction] | None] = {state.start: None}
    queue = deque([state.start])
    while queue:
        cell = queue.popleft()
        if cell == state.goal:
            break
        for direction in DIRECTIONS:
            dr, dc = DELTAS[direction]
            nxt = (cell[0] + dr, cell[1] + dc)
            if 0 <= nxt[0] < rows and 0 <= nxt[1] < cols and grid[nxt[0]][nxt[1]] != WALL and nxt not in parent:
                parent[nxt] = (cell, direction)
                queue.append(nxt)
    if state.goal not in parent:
        return None
    steps: list[Direction] = []
    link = parent[state.goal]
    while link is not None:
        cell, direction = link
        steps.append(direction)
        link = parent[cell]
    steps.reverse()
    return Solution(tuple(steps), len(steps))


# --------------------------------------------------------------------------- generator


@dataclass(frozen=True, slots=True)
class MazeStructure:
    """Table 5 / Table 6 of the paper: a maze's structure and its solution path's.

    ``branch`` cells have three or more open neighbours, ``corridor`` cells exactly two;
    the ``path_*`` counts are over the start-goal path, both ends included.
    """

    walkable: float
    branch: float
    corridor: float
    path_nodes: float
    path_branch: float
    path_corridor: float


PAPER_STRUCTURE: Final[dict[str, MazeStructure]] = {
    "easy": MazeStructure(20.30, 4.25, 9.35, 4.10, 1.55, 2.00),
    "medium": MazeStructure(30.10, 5.83, 16.07, 13.27, 3.70, 8.97),
    "hard": MazeStructure(39.12, 6.98, 22.76, 24.64, 6.00, 18.00),
}
"""The paper's Tables 5 and 6 (bucket means); the generator aims at their proportions."""
LENGTH_MIX: Final[dict[str, dict[int, int]]] = {
    "easy": {1: 5, 2: 5, 3: 3, 5: 4, 6: 3},
    "medium": {7: 3, 8: 1, 9: 6, 12: 3, 13: 5, 14: 3, 15: 4, 16: 3, 17: 2},
    "hard": {18: 6, 19: 1, 20: 6, 21: 1, 22: 2, 23: 3, 25: 14, 26: 10, 27: 5, 28: 2},
}
"""Rows per path length in the authors' 100 published mazes (their ``steps``, counted once)."""
OPEN_CELLS: Final[dict[str, tuple[int, int]]] = {"easy": (16, 24), "medium": (25, 35), "hard": (35, 43)}
"""Range of open cells the tree grows to, per bucket (the authors' mazes span 15-24, 24-36, 36-43)."""
CORRIDOR_SPROUT_WEIGHT: Final = 1.5
"""Odds of a corridor cell sprouting the next leaf, relative to any other open cell.

Uniform sprouting (1.0) leaves hard mazes about 10% short of the paper's branch counts;
1.5 puts every Table 5/6 figure within a few percent of the paper in expectation."""
CANDIDATES: Final = 12
"""Mazes drawn per row; the one nearest the paper's proportions for its length and size is kept."""
MAX_DFS_TRIES: Final = 200


def generate(difficulty: str, rng: np.random.Generator, slot: Slot | None = None) -> MazeState:
    """A maze whose start-goal distance is ``slot.length`` (appendix A.1.1's construction).

    Per candidate: a simple path of that length by randomized DFS (open cells only in rows
    and columns 1-8), grown by leaf cells (``grids.grow_tree``) to a size drawn from
    ``OPEN_CELLS``; the open cells form a tree, so every pair of cells has one simple path.
    Start and goal are then drawn among all ordered pairs at the target distance (the DFS
    path guarantees one), so their ends are as often dead ends as any cell. Of
    ``CANDIDATES`` such mazes the one whose branch and corridor counts, overall and on the
    path, lie nearest the paper's Table 5/6 proportions is kept; the targets are rounded
    up or down by ``slot.quantile``, so a bucket's means land on the paper's. The result
    is checked by BFS and by counting simple paths (exactly one).

    Raises:
        ValueError: unknown difficulty, or a slot length outside the bucket.
        GenerationError: the DFS found no path (never seen) or the checks failed (a bug).
    """
    if difficulty not in BUCKETS:
        raise ValueError(f"unknown difficulty {difficulty!r}; choose from {list(BUCKETS)}")
    slot = slot or draw_slot(LENGTH_MIX, difficulty, rng)
    low, high = BUCKETS[difficulty]
    if not low <= slot.length <= high:
        raise ValueError(f"maze/{difficulty}: length {slot.length} is outside {low}-{high}")
    candidates = [_candidate(difficulty, slot, rng) for _ in range(CANDIDATES)]
    _, is_open, route = min(candidates, key=lambda candidate: candidate[0])  # the first of the nearest
    grid = tuple("".join(OPEN if is_open[r * SIZE + c] else WALL for c in range(SIZE)) for r in range(SIZE))
    state = MazeState(grid, divmod(route[0], SIZE), divmod(route[-1], SIZE))
    if _distances(is_open, route[0])[route[-1]] != slot.length or count_simple_paths(state, limit=2) != 1:
        raise GenerationError(f"maze/{difficulty}: the maze fails its BFS or unique-path check: {to_json(state)}")
    return state


def _candidate(difficulty: str, slot: Slot, rng: np.random.Generator) -> tuple[int, bytearray, list[int]]:
    """One maze for ``slot`` and how far its four counts are from the paper's proportions."""
    paper = PAPER_STRUCTURE[difficulty]
    size = int(rng.integers(OPEN_CELLS[difficulty][0], OPEN_CELLS[difficulty][1] + 1))
    is_open = grow_tree(rng, _dfs_path(slot.length, rng, difficulty), size, INTERIOR, CORRIDOR_SPROUT_WEIGHT)
    route = _route_at_distance(is_open, slot.length, rng)
    degree = [sum(is_open[nb] for nb in NEIGHBOURS[i]) if is_open[i] else 0 for i in range(SIZE * SIZE)]
    cells, nodes = sum(is_open), len(route)
    targets_and_counts = (
        (paper.branch / paper.walkable * cells, sum(d >= 3 for d in degree)),
        (paper.corridor / paper.walkable * cells, degree.count(2)),
        (paper.path_branch / paper.path_nodes * nodes, sum(degree[i] >= 3 for i in route)),
        (paper.path_corridor / paper.path_nodes * nodes, sum(degree[i] == 2 for i in route)),
    )
    miss = sum(  # each target rounded down or up by the slot's quantile (offset per count)
        abs(count - int(target + (slot.quantile + k / 4) % 1.0))
        for k, (target, count) in enumerate(targets_and_counts)
    )
    return miss, is_open, route


def _dfs_path(moves: int, rng: np.random.Generator, difficulty: str) -> list[int]:
    for _ in range(MAX_DFS_TRIES):
        path = induced_path(rng, moves, INTERIOR)
        if path is not None:
            return path
    raise GenerationError(f"maze/{difficulty}: no {moves}-move path in {MAX_DFS_TRIES} depth-first searches")


def _route_at_distance(is_open: bytearray, distance: int, rng: np.random.Generator) -> list[int]:
    """The cells from start to goal of a uniformly drawn ordered pair at ``distance`` in the tree."""
    cells = [i for i in range(SIZE * SIZE) if is_open[i]]
    pairs = [(source, cell) for source in cells for cell, d in _distances(is_open, source).items() if d == distance]
    source, goal = pairs[int(rng.integers(len(pairs)))]
    parent = _parents(is_open, source)
    route = [goal]
    while route[-1] != source:
        route.append(parent[route[-1]])
    return route[::-1]


def _parents(is_open: bytearray, source: int) -> dict[int, int]:
    parent = {source: source}
    queue = [source]
    for cell in queue:
        for nb in NEIGHBOURS[cell]:
            if is_open[nb] and nb not in parent:
                parent[nb] = cell
                queue.append(nb)
    return parent


def _distances(is_open: bytearray, source: int) -> dict[int, int]:
    dist = {source: 0}
    queue = [source]
    for cell in queue:
        d = dist[cell] + 1
        for nb in NEIGHBOURS[cell]:
            if is_open[nb] and nb not in dist:
                dist[nb] = d
                queue.append(nb)
    return dist


def count_simple_paths(state: MazeState, limit: int = 2) -> int:
    """Simple paths from start to goal, counted by depth-first search up to ``limit``.

    The generator's uniqueness check (the paper counts them explicitly): its mazes are
    trees, so the answer is 1 and the search visits each open cell once.

    Example:
        >>> count_simple_paths(from_ascii(["S..", "..G"]))
        2
    """
    grid = state.grid
    rows, cols = len(grid), len(grid[0])
    found = 0
    on_path = {state.start}
    stack = [(state.start, iter(DIRECTIONS))]
    while stack and found < limit:
        cell, moves = stack[-1]
        step = next(moves, None)
        if step is None:
            on_path.discard(cell)
            stack.pop()
            continue
        r, c = cell[0] + DELTAS[step][0], cell[1] + DELTAS[step][1]
        if not (0 <= r < rows and 0 <= c < cols) or grid[r][c] == WALL or (r, c) in on_path:
            continue
        if (r, c) == state.goal:
            found += 1
            continue
        on_path.add((r, c))
        stack.append(((r, c), iter(DIRECTIONS)))
    return found


# --------------------------------------------------------------------------- renderer


def render(state: MazeState) -> Image.Image:
    """The board: dark walls, off-white open cells, blue agent square, green hollow goal."""
    image = _background(state.grid).copy()
    draw = ImageDraw.Draw(image)
    draw.rectangle(GEOMETRY.cell_box(state.goal, GOAL_INSET), outline=GOAL_RGB, width=GOAL_WIDTH)
    draw.rectangle(GEOMETRY.cell_box(state.start, AGENT_INSET), fill=AGENT_RGB)
    return image


@functools.lru_cache(maxsize=256)
def _background(grid: tuple[str, ...]) -> Image.Image:
    image = new_board(GEOMETRY, FRAME_RGB)
    image.paste(cells_image(grid, {WALL: WALL_RGB, OPEN: OPEN_RGB}), GEOMETRY.cell_box((0, 0))[:2])
    return image


# --------------------------------------------------------------------------- answers
# The direction list ``<ANSWER_JSON>["up","left"]</ANSWER_JSON>`` shared with sokoban.

parse_answer = parse_direction_answer
answer_payload = direction_payload
format_answer = format_direction_answer


# --------------------------------------------------------------------------- prompts
# Table 12 (Text-CoT), 18 (Self-GtA), 24 (Self-VCoT) and 30 (Self-VR), in our own words.

PROMPTS: Final = FamilyPrompts(
    legend=(
        "The image shows a maze. Dark cells are walls, which cannot be entered; off-white cells are open "
        "and can be walked on. The blue filled square is the agent, standing on its start cell. The green "
        "hollow square marks the goal cell, which is open too. The grey border lies outside the maze."
    ),
    rules=(
        "Moves: up, down, left or right, one cell per move, never diagonally, never jumping, never into a "
        "wall. The maze is solved when the agent moves onto the goal cell."
    ),
    reasoning="identify the agent's start and the goal, describe the moves you plan, and check that none "
    "of them enters a wall.",
    answer_format='Give the final moves as one JSON list of lowercase words inside ANSWER_JSON tags, for '
    'example <ANSWER_JSON>["up","left","down"]</ANSWER_JSON>.',
    step="move of the agent",
    step_format=f"{MOVE_SENTENCE_FORMAT}.",
    image_change="only the blue agent square has moved",
    labelled_cells="every cell, walls included",
    aid_note="Each red line runs along a cell edge, so the green goal square sits inside one grid cell.",
    solution_drawing=(
        "Draw one continuous bright red line, about a tenth of a cell wide, from the centre of the agent's "
        "start cell to the centre of the goal cell. It joins centres of neighbouring open cells with "
        "horizontal and vertical segments only and never crosses or touches a wall."
    ),
    solution_shows="a red line along a route from the agent to the goal",
)


def random_answer(state: MazeState, rng: np.random.Generator) -> tuple[Direction, ...]:
    """A random legal walk of 1-30 moves (it ignores the goal): the random baseline."""
    length = int(rng.integers(1, 31))
    grid = state.grid
    r, c = state.start
    steps: list[Direction] = []
    for _ in range(length):
        legal = [
            d
            for d in DIRECTIONS
            if 0 <= r + DELTAS[d][0] < len(grid)
            and 0 <= c + DELTAS[d][1] < len(grid[0])
            and grid[r + DELTAS[d][0]][c + DELTAS[d][1]] != WALL
        ]
        if not legal:
            break
        direction = legal[int(rng.integers(len(legal)))]
        steps.append(direction)
        r, c = r + DELTAS[direction][0], c + DELTAS[direction][1]
    return tuple(steps)


# --------------------------------------------------------------------------- fidelity


def cell_labels(state: MazeState) -> tuple[str, ...]:
    """What each cell shows, row-major: ``wall``, ``open``, ``agent``, ``goal`` or ``agent+goal``.

    Example:
        >>> cell_labels(from_ascii(["S#G"]))
        ('agent', 'wall', 'goal')
    """
    marks = {state.start: "agent", state.goal: "goal"} if state.start != state.goal else {state.start: "agent+goal"}
    return tuple(
        marks.get((r, c), "wall" if char == WALL else "open") for r, row in enumerate(state.grid) for c, char in enumerate(row)
    )


def palette_states() -> tuple[MazeState, ...]:
    """Boards showing every label: walls, open cells, agent and goal apart and together."""
    rows = ["S.G#" + "." * 6] + ["#." * 5] * 9
    return (from_ascii(rows), from_ascii(["*" + rows[0][1:].replace("G", ".")] + rows[1:]))


def perturb(state: MazeState, k: int, rng: np.random.Generator) -> MazeState:
    """``state`` with ``k`` cells other than the agent's and the goal's flipped between wall and open."""
    cells = [(r, c) for r in range(len(state.grid)) for c in range(len(state.grid[0])) if (r, c) not in (state.start, state.goal)]
    grid = [list(row) for row in state.grid]
    for r, c in pick_edits([[(1, cell)] for cell in cells], k, rng):
        grid[r][c] = OPEN if grid[r][c] == WALL else WALL
    return MazeState(tuple("".join(row) for row in grid), state.start, state.goal)


def sketch(state: MazeState, answer: Sequence[Direction]) -> Sketch:
    """The red route of the agent from its cell through every cell it walks."""
    return Sketch(routes=((state.start, *(s.start for s in walk(state, answer, apply_step))),))




SPEC = FamilySpec(
    name="maze",
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
    random_answer=random_answer,
    apply_step=apply_step,
    is_goal=is_goal,
    answer_tag=DIRECTION_TAG,
    parse_step=parse_move_sentence,
    format_step=format_move_sentence,
    cell_labels=cell_labels,
    palette_states=palette_states,
    perturb=perturb,
    sketch=sketch,
    route_start=operator.attrgetter("start"),
)
