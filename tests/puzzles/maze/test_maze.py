"""Tests for the maze family: rules, solver, generator, render, answer parsing."""

from __future__ import annotations

import json
from collections import Counter, deque

import numpy as np
import pytest
from PIL import Image

from vgau_data.errors import StateError
from vgau_data.puzzles.base import BUCKET_SIZES, DELTAS, AnswerError, Illegal, Replay
from vgau_data.puzzles.maze import SPEC
from vgau_data.puzzles.maze import solver as maze_solver
from vgau_data.puzzles.maze.answers import answer_payload, format_answer, parse_answer
from vgau_data.puzzles.maze.generator import BUCKETS, LENGTH_MIX, PAPER_STRUCTURE, generate
from vgau_data.puzzles.maze.render import (
    AGENT_RGB,
    FRAME_RGB,
    GEOMETRY,
    GOAL_INSET,
    GOAL_RGB,
    GOAL_WIDTH,
    OPEN_RGB,
    WALL_RGB,
    render,
)
from vgau_data.puzzles.maze.rules import apply_step, is_goal, replay
from vgau_data.puzzles.maze.solver import random_answer, solve
from vgau_data.puzzles.maze.state import MazeState, from_ascii, from_json, to_ascii, to_json
from vgau_data.seeding import rng_for

# Fixtures: S agent, G goal, * agent on goal, # wall, . open.
CORRIDOR = (
    "S.#",
    "#.#",
    "#.G",
)
TEN = (
    "S...#.....",
    ".##.#.###.",
    ".#..#...#.",
    ".#.####.#.",
    ".#......#.",
    ".######.#.",
    "........#.",
    "#.#####.#.",
    "#.....#...",
    "####..#.#G",
)
SEEDS = (0, 1, 2)


def brute_distance(state: MazeState) -> int | None:
    """Independent BFS on the grid: shortest number of moves from start to goal."""
    rows, cols = len(state.grid), len(state.grid[0])
    seen = {state.start: 0}
    queue = deque([state.start])
    while queue:
        r, c = queue.popleft()
        if (r, c) == state.goal:
            return seen[(r, c)]
        for nr, nc in ((r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1)):
            if 0 <= nr < rows and 0 <= nc < cols and state.grid[nr][nc] == "." and (nr, nc) not in seen:
                seen[(nr, nc)] = seen[(r, c)] + 1
                queue.append((nr, nc))
    return None


def count_simple_paths(state: MazeState, cap: int = 3) -> int:
    """Simple paths from start to goal by DFS (stops counting at ``cap``)."""
    rows, cols = len(state.grid), len(state.grid[0])
    count = 0
    stack = [(state.start, frozenset([state.start]))]
    while stack and count < cap:
        (r, c), seen = stack.pop()
        if (r, c) == state.goal:
            count += 1
            continue
        for nr, nc in ((r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1)):
            if 0 <= nr < rows and 0 <= nc < cols and state.grid[nr][nc] == "." and (nr, nc) not in seen:
                stack.append(((nr, nc), seen | {(nr, nc)}))
    return count


def random_grid_state(rng: np.random.Generator, rows: int, cols: int, p_wall: float) -> MazeState:
    grid = ["".join("#" if rng.random() < p_wall else "." for _ in range(cols)) for _ in range(rows)]
    open_cells = [(r, c) for r in range(rows) for c in range(cols) if grid[r][c] == "."]
    if len(open_cells) < 2:
        grid[0] = "." + grid[0][1:]
        grid[-1] = grid[-1][:-1] + "."
        open_cells = [(0, 0), (rows - 1, cols - 1)]
    i, j = rng.choice(len(open_cells), size=2, replace=False)
    return MazeState(tuple(grid), open_cells[int(i)], open_cells[int(j)])


@pytest.fixture(scope="module")
def generated() -> dict[str, list[MazeState]]:
    return {d: [generate(d, np.random.default_rng(seed)) for seed in SEEDS] for d in BUCKETS}


# --------------------------------------------------------------------------- state


def test_ascii__round_trip() -> None:
    state = from_ascii(TEN)
    assert state.start == (0, 0) and state.goal == (9, 9)
    assert tuple(to_ascii(state)) == TEN
    assert to_ascii(MazeState(("..",), (0, 1), (0, 1))) == [".*"]


def test_json__round_trip_and_schema() -> None:
    state = from_ascii(TEN)
    text = to_json(state)
    grid = [row.replace("S", ".").replace("G", ".") for row in TEN]
    assert json.loads(text) == {"grid": grid, "start": [0, 0], "goal": [9, 9]}
    assert from_json(text) == state
    assert to_json(from_json(text)) == text


@pytest.mark.parametrize(
    "mutate",
    [
        lambda o: "not json",
        lambda o: "[1, 2]",
        lambda o: "[" * 100_000,
        lambda o: {k: v for k, v in o.items() if k != "goal"},
        lambda o: {**o, "extra": 1},
        lambda o: {**o, "grid": o["grid"][:9]},
        lambda o: {**o, "grid": o["grid"][:9] + [o["grid"][9] + "."]},
        lambda o: {**o, "grid": o["grid"][:9] + ["x" * 10]},
        lambda o: {**o, "grid": "#" * 100},
        lambda o: {**o, "grid": o["grid"][:9] + [10]},
        lambda o: {**o, "start": [0, 4]},  # a wall
        lambda o: {**o, "start": [0, 10]},
        lambda o: {**o, "start": [-1, 0]},
        lambda o: {**o, "start": [0]},
        lambda o: {**o, "start": [0, 0.0]},
        lambda o: {**o, "start": [True, False]},
        lambda o: {**o, "start": "0,0"},
        lambda o: {**o, "goal": None},
    ],
)
def test_from_json__rejects_malformed(mutate) -> None:
    obj = json.loads(to_json(from_ascii(TEN)))
    bad = mutate(obj)
    with pytest.raises(StateError):
        from_json(bad if isinstance(bad, str) else json.dumps(bad))


def test_from_ascii__rejects_bad_fixtures() -> None:
    for rows in (["S.", "."], ["S.x", "..G"], ["S..", "S.G"], ["...", "..G"], []):
        with pytest.raises(StateError):
            from_ascii(rows)


# --------------------------------------------------------------------------- rules


def test_apply_step__out_of_bounds() -> None:
    state = from_ascii(CORRIDOR)
    assert apply_step(state, "up") == Illegal("out_of_bounds", 0)
    assert apply_step(state, "left") == Illegal("out_of_bounds", 0)
    assert replay(state, ("right", "down", "down", "down")) == Replay(False, 4, "out_of_bounds", 3)


def test_apply_step__wall() -> None:
    state = from_ascii(CORRIDOR)
    assert apply_step(state, "down") == Illegal("wall", 0)
    assert replay(state, ("right", "right")) == Replay(False, 2, "wall", 1)


def test_replay__not_solved() -> None:
    state = from_ascii(CORRIDOR)
    assert replay(state, ("right", "down")) == Replay(False, 2, "not_solved", 2)
    assert replay(state, ()) == Replay(False, 0, "not_solved", 0)


def test_replay__unknown_direction_is_unknown_action() -> None:
    assert replay(from_ascii(CORRIDOR), ("right", "north")).error == "unknown_action"
    assert apply_step(from_ascii(CORRIDOR), "north") == Illegal("unknown_action", 0)
    assert replay(from_ascii(CORRIDOR), (["right"],)).error == "unknown_action"  # type: ignore[arg-type]


def test_replay__feasible_and_detours_count() -> None:
    state = from_ascii(CORRIDOR)
    assert replay(state, ("right", "down", "down", "right")) == Replay(True, 4)
    detour = ("right", "left", "right", "down", "down", "right")
    assert replay(state, detour) == Replay(True, 6)
    # passing over the goal and leaving it is not solved
    assert replay(state, ("right", "down", "down", "right", "left")).error == "not_solved"


def test_apply_step__moves_agent_and_trajectory_ends_on_goal() -> None:
    state = from_ascii(CORRIDOR)
    moved = apply_step(state, "right")
    assert moved == MazeState(state.grid, (0, 1), state.goal)
    states = SPEC.trajectory(state, ("right", "down", "down", "right"))
    assert [s.start for s in states] == [(0, 1), (1, 1), (2, 1), (2, 2)]
    assert is_goal(states[-1]) and not is_goal(state)
    with pytest.raises(ValueError):
        SPEC.trajectory(state, ("down",))


# --------------------------------------------------------------------------- solver


def test_solve__hand_made() -> None:
    solution = solve(from_ascii(CORRIDOR))
    assert solution is not None
    assert solution.answer == ("right", "down", "down", "right") and solution.optimal_length == 4
    assert solve(from_ascii(["S#G"])) is None
    assert solve(from_ascii(["*."])).optimal_length == 0


def test_solve__agrees_with_brute_force_bfs() -> None:
    rng = np.random.default_rng(7)
    states = [from_ascii(TEN), from_ascii(CORRIDOR)]
    states += [random_grid_state(rng, int(rng.integers(2, 11)), int(rng.integers(2, 11)), 0.3) for _ in range(150)]
    unreachable = 0
    for state in states:
        expected = brute_distance(state)
        solution = solve(state)
        if expected is None:
            unreachable += 1
            assert solution is None
            continue
        assert solution is not None and solution.optimal_length == expected
        assert replay(state, solution.answer) == Replay(True, expected)
    assert 0 < unreachable < len(states)


# --------------------------------------------------------------------------- generator


@pytest.mark.parametrize("difficulty", list(BUCKETS))
def test_generate__optimum_in_bucket_and_replays(generated, difficulty: str) -> None:
    low, high = BUCKETS[difficulty]
    for state in generated[difficulty]:
        solution = solve(state)
        assert solution is not None
        assert low <= solution.optimal_length <= high
        assert solution.optimal_length == brute_distance(state)
        assert replay(state, solution.answer) == Replay(True, solution.optimal_length)
        assert len(SPEC.trajectory(state, solution.answer)) == solution.optimal_length
        assert from_json(to_json(state)) == state


@pytest.mark.parametrize("difficulty", list(BUCKETS))
def test_generate__open_cells_form_an_induced_tree(generated, difficulty: str) -> None:
    for state in generated[difficulty]:
        grid = state.grid
        cells = [(r, c) for r in range(10) for c in range(10) if grid[r][c] == "."]
        edges = sum((r + 1 < 10 and grid[r + 1][c] == ".") + (c + 1 < 10 and grid[r][c + 1] == ".") for r, c in cells)
        assert edges == len(cells) - 1
        # connected: every open cell reachable from the start
        assert all(brute_distance(MazeState(grid, state.start, cell)) is not None for cell in cells)
        assert count_simple_paths(state) == 1
        assert len(grid) == 10 and all(len(row) == 10 for row in grid)


def test_generate__open_cells_keep_a_wall_border(generated) -> None:
    for state in (s for states in generated.values() for s in states):
        assert state.grid[0] == state.grid[9] == "#" * 10
        assert all(row[0] == row[9] == "#" for row in state.grid)


def test_count_simple_paths__matches_the_brute_force_count() -> None:
    assert maze_solver.count_simple_paths(from_ascii(["S..", "..G"]), limit=10) == count_simple_paths(
        from_ascii(["S..", "..G"]), cap=10
    )
    assert maze_solver.count_simple_paths(from_ascii(["S#G"])) == 0
    tree = generate("hard", np.random.default_rng(4))
    assert maze_solver.count_simple_paths(tree) == count_simple_paths(tree) == 1


def _table_5_and_6(states: list[MazeState]) -> list[float]:
    """Bucket means of walkable, branch, corridor; path nodes, branch and corridor on the path."""
    rows = []
    for state in states:
        cells = {(r, c) for r in range(10) for c in range(10) if state.grid[r][c] == "."}
        degree = {(r, c): sum(n in cells for n in ((r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1))) for r, c in cells}
        route = [state.start]
        for step in solve(state).answer:
            dr, dc = DELTAS[step]
            route.append((route[-1][0] + dr, route[-1][1] + dc))
        rows.append([
            len(cells), sum(d >= 3 for d in degree.values()), sum(d == 2 for d in degree.values()),
            len(route), sum(degree[c] >= 3 for c in route), sum(degree[c] == 2 for c in route),
        ])  # fmt: skip
    return [sum(column) / len(rows) for column in zip(*rows)]


@pytest.mark.parametrize("master_seed", [0, 1])
def test_generate__a_build_meets_the_papers_tables_5_and_6(master_seed: int) -> None:
    from vgau_data.builders.instances import RowTask

    means = {}
    for difficulty, count in BUCKET_SIZES.items():
        tasks = [RowTask("maze", difficulty, index, master_seed) for index in range(count)]
        states = [generate(difficulty, rng_for(task.seed), task.slot) for task in tasks]
        lengths = Counter(solve(state).optimal_length for state in states)
        assert lengths == Counter(LENGTH_MIX[difficulty])  # the authors' histogram, row for row
        means[difficulty] = _table_5_and_6(states)
        paper = PAPER_STRUCTURE[difficulty]
        expected = [paper.walkable, paper.branch, paper.corridor, paper.path_nodes, paper.path_branch, paper.path_corridor]
        for ours, theirs in zip(means[difficulty], expected):
            assert abs(ours / theirs - 1) <= 0.15, (difficulty, means[difficulty], expected)
    for easy, medium, hard in zip(means["easy"], means["medium"], means["hard"]):
        assert easy < medium < hard


def test_generate__no_shortcuts() -> None:
    states = [generate(d, np.random.default_rng(100 + i)) for d in ("medium", "hard") for i in range(30)]
    answers = Counter(solve(s).answer for s in states)
    assert answers.most_common(1)[0][1] <= 2
    assert len({s.start for s in states}) >= 25 and len({s.goal for s in states}) >= 25
    lengths = {solve(s).optimal_length for s in states[30:]}
    assert len(lengths) >= 6  # hard lengths spread over the bucket


# --------------------------------------------------------------------------- render


def decode(image: Image.Image) -> MazeState:
    """Rebuild the state from pixels of the maze palette at fixed points of each cell."""
    pixels = image.load()
    geometry = GEOMETRY
    grid, start, goal = [], None, None
    for r in range(10):
        row = ""
        for c in range(10):
            x, y = geometry.center((r, c))
            colour = pixels[x, y]
            assert colour in (WALL_RGB, OPEN_RGB, AGENT_RGB), (r, c, colour)
            row += "#" if colour == WALL_RGB else "."
            if colour == AGENT_RGB:
                assert start is None
                start = (r, c)
            x0, _, _, _ = geometry.cell_box((r, c))
            if pixels[x0 + GOAL_INSET + GOAL_WIDTH // 2, y] == GOAL_RGB:
                assert goal is None
                goal = (r, c)
        grid.append(row)
    assert start is not None and goal is not None
    return MazeState(tuple(grid), start, goal)


def test_render__decodes_back_to_state(generated) -> None:
    for states in generated.values():
        for state in states:
            image = render(state)
            assert image.mode == "RGB" and image.size == GEOMETRY.size == (552, 552)
            assert decode(image) == state
            final = SPEC.trajectory(state, solve(state).answer)[-1]
            assert decode(render(final)) == final


def test_render__no_grid_lines_and_pure() -> None:
    state = from_ascii(TEN)
    image = render(state)
    assert image.tobytes() == render(state).tobytes()
    # inside an open region, the boundary between two open cells has the open colour
    x0, y0, _, _ = GEOMETRY.cell_box((0, 2))
    assert image.getpixel((x0, y0 + 20)) == OPEN_RGB
    assert image.getpixel((2, 2)) == FRAME_RGB


# --------------------------------------------------------------------------- answers


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('<ANSWER_JSON>["up","left"]</ANSWER_JSON>', ("up", "left")),
        ('I think... so <answer_json>["Up", "LEFT"]</answer_json> done.', ("up", "left")),
        ("<Answer_Json>['down', 'right',]</Answer_Json>", ("down", "right")),
        ('<ANSWER_JSON>\n```json\n["u","d","l","r"]\n```\n</ANSWER_JSON>', ("up", "down", "left", "right")),
        ('<ANSWER_JSON>["up"]</ANSWER_JSON> wait <ANSWER_JSON>["down"]</ANSWER_JSON>', ("down",)),
        ("<ANSWER_JSON>up, left, Down</ANSWER_JSON>", ("up", "left", "down")),
        ("<ANSWER_JSON>[]</ANSWER_JSON>", ()),
        ('<ANSWER_JSON>the moves: [" up ",]</ANSWER_JSON>', ("up",)),
    ],
)
def test_parse_answer__tolerant(text: str, expected: tuple[str, ...]) -> None:
    assert parse_answer(text) == expected


@pytest.mark.parametrize(
    ("text", "code"),
    [
        ("", "no_answer"),
        ('["up","left"]', "no_answer"),
        ('<ANSWER_JSON>["up"]', "no_answer"),
        ("<ANSWER_JSON></ANSWER_JSON>", "bad_format"),
        ('<ANSWER_JSON>{"moves": ["up"]}</ANSWER_JSON>', "bad_format"),
        ('<ANSWER_JSON>["up", ["left"]]</ANSWER_JSON>', "bad_format"),
        ("<ANSWER_JSON>[1, 2]</ANSWER_JSON>", "bad_format"),
        ('<ANSWER_JSON>["up", "left"</ANSWER_JSON>', "bad_format"),
        ("<ANSWER_JSON>[" + '"up",' * 1001 + "]</ANSWER_JSON>", "bad_format"),
        ('<ANSWER_JSON>["up", "north"]</ANSWER_JSON>', "unknown_action"),
        ("<ANSWER_JSON>up, jump</ANSWER_JSON>", "unknown_action"),
    ],
)
def test_parse_answer__errors(text: str, code: str) -> None:
    with pytest.raises(AnswerError) as info:
        parse_answer(text)
    assert info.value.code == code


def test_format_answer__round_trips() -> None:
    answer = ("up", "left", "down", "right")
    assert format_answer(answer) == '<ANSWER_JSON>["up","left","down","right"]</ANSWER_JSON>'
    assert parse_answer(format_answer(answer)) == answer
    assert answer_payload(answer) == '["up","left","down","right"]'
    assert parse_answer(format_answer(())) == ()


# --------------------------------------------------------------------------- prompts, baseline, spec


def test_question__carries_table_12_and_no_leak(generated) -> None:
    state = generated["hard"][0]
    for style in ("text_cot", "direct"):
        text = SPEC.question(state, style)
        assert '<ANSWER_JSON>["up","left","down"]</ANSWER_JSON>' in text and "goal" in text and "wall" in text
        assert "shortest" not in text and str(solve(state).optimal_length) + " " not in text
    assert "Reason briefly" in SPEC.question(state, "text_cot")
    with pytest.raises(ValueError):
        SPEC.question(state, "verbose")  # type: ignore[arg-type]


def test_step_format__is_the_authors_sentence() -> None:
    assert SPEC.format_step("left") == "Next, move one step left."
    assert SPEC.parse_step("Left is a wall, so: Next, move one step UP.") == "up"
    with pytest.raises(AnswerError):
        SPEC.parse_step('<ANSWER_JSON>["up"]</ANSWER_JSON>')


def test_random_answer__legal_and_deterministic(generated) -> None:
    state = generated["medium"][0]
    first = random_answer(state, np.random.default_rng(5))
    assert first == random_answer(state, np.random.default_rng(5))
    assert 1 <= len(first) <= 30
    assert replay(state, first).error in (None, "not_solved")


def test_spec__declares_every_capability() -> None:
    """Cell decoding, the drawn solution, the authors' records, structure statistics."""
    # the red route starts at the agent
    assert SPEC.fidelity and SPEC.fidelity.perturb and SPEC.vr and SPEC.paper and SPEC.structure
    assert SPEC.vr.route_start is not None and SPEC.episode_steps is None


def test_buckets__are_spec_section_2s() -> None:
    """The optimal-length ranges of docs/contract/families.md (``check_family`` checks that ``bucket_of`` follows them)."""
    assert dict(SPEC.buckets) == {"easy": (1, 6), "medium": (7, 17), "hard": (18, 30)}
