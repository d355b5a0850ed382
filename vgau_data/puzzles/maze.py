"""Maze: walk the agent from its square to the goal through open cells.

Board:
    10x10 cells, each a wall (``#``, drawn dark) or open (``.``, drawn off-white). The
    agent is a blue square (its cell is ``start``), the goal a green hollow square. The
    open cells form an induced tree, so the path between any two open cells is unique.

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
    Solution,
    canonical_json,
    pick_edits,
    walk,
)
from vgau_data.puzzles.grids import (
    DIRECTION_TAG,
    GEOMETRY,
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
    grow_induced_tree,
    load_state_object,
    parse_direction_answer,
    parse_move_sentence,
)
from vgau_data.puzzles.prompts import FamilyPrompts
from vgau_data.rendering import new_board

# --------------------------------------------------------------------------- constants

BUCKETS: Final[dict[str, tuple[int, int]]] = {"easy": (1, 6), "medium": (7, 17), "hard": (18, 30)}
MAX_ATTEMPTS: Final = 500
"""Trees tried per instance; a 30-move maze needs about 10 on average, 30 at worst in 300."""
STARTS_PER_TREE: Final = 8

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


def generate(difficulty: str, rng: np.random.Generator) -> MazeState:
    """A maze whose start-goal distance lies in ``BUCKETS[difficulty]``.

    Draws the distance uniformly from the bucket, grows a maximal induced tree of open
    cells (a wall cell opens only while it touches exactly one open cell), picks a random
    start and draws the goal from that start's BFS layer at the drawn distance; a start
    without such a layer is redrawn (up to 8 per tree), then the tree. Drawing the
    distance first keeps lengths uniform inside the bucket (taking any layer in range
    piles hard mazes up at 18-20).

    Raises:
        GenerationError: no tree offered a goal at the distance within the attempt budget.
    """
    if difficulty not in BUCKETS:
        raise ValueError(f"unknown difficulty {difficulty!r}; choose from {list(BUCKETS)}")
    low, high = BUCKETS[difficulty]
    distance = int(rng.integers(low, high + 1))
    for _ in range(MAX_ATTEMPTS):
        is_open = grow_induced_tree(rng)
        cells = [i for i in range(SIZE * SIZE) if is_open[i]]
        for _ in range(STARTS_PER_TREE):
            start = cells[int(rng.integers(len(cells)))]
            dist = _distances(is_open, start)
            layer = [cell for cell in cells if dist[cell] == distance]
            if layer:
                goal = layer[int(rng.integers(len(layer)))]
                grid = tuple(
                    "".join(OPEN if is_open[r * SIZE + c] else WALL for c in range(SIZE)) for r in range(SIZE)
                )
                return MazeState(grid, divmod(start, SIZE), divmod(goal, SIZE))
    raise GenerationError(f"maze/{difficulty}: no goal at distance {distance} in {MAX_ATTEMPTS} trees")


def _distances(is_open: bytearray, source: int) -> list[int]:
    dist = [-1] * (SIZE * SIZE)
    dist[source] = 0
    queue = [source]
    for cell in queue:
        d = dist[cell] + 1
        for nb in NEIGHBOURS[cell]:
            if is_open[nb] and dist[nb] < 0:
                dist[nb] = d
                queue.append(nb)
    return dist


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
