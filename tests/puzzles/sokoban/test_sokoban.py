"""Tests of the sokoban family: rules, solver, generator, renderer, answers, prompts."""

from __future__ import annotations

import json
import re
from collections import deque

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from vgau_data.errors import StateError
from vgau_data.puzzles.base import AnswerError, Illegal, replay_steps
from vgau_data.puzzles.sokoban import SPEC
from vgau_data.puzzles.sokoban.answers import answer_payload, format_answer, parse_answer
from vgau_data.puzzles.sokoban.generator import INNER_WALLS, _distances, generate
from vgau_data.puzzles.sokoban.render import (
    BRICK,
    BRICK_DARK,
    FRAME_ON_TARGET,
    GEOMETRY,
    MORTAR,
    SAND,
    SHIRT,
    TARGET_GREEN,
    WOOD_DARK,
    render,
)
from vgau_data.puzzles.sokoban.rules import apply_step, is_goal, replay
from vgau_data.puzzles.sokoban.solver import _index, random_answer, solve
from vgau_data.puzzles.sokoban.state import SIZE, SokobanState, from_ascii, from_json, to_ascii, to_json

# ---------------------------------------------------------------------------- fixtures

CORRIDOR = ("P.BT",)

ROOM = (
    "#####",
    "#P..#",
    "#.B.#",
    "#..T#",
    "#####",
)

EDGE = (  # box on the top edge, no wall ring
    ".B..",
    "P...",
    "...T",
)

DEAD = (  # box in a corner: unsolvable
    "B..",
    ".P.",
    "..T",
)

DETOUR = (
    "######",
    "#T...#",
    "#.##.#",
    "#.B..#",
    "#P...#",
    "######",
)

HAND_MADE = (CORRIDOR, ROOM, EDGE, DEAD, DETOUR)
SEEDS = (0, 1)
DIRS = {"up": (-1, 0), "down": (1, 0), "left": (0, -1), "right": (0, 1)}


def _rng(seed: int) -> np.random.Generator:
    return np.random.default_rng(seed)


# ---------------------------------------------------------------------------- brute force


def _brute_optimum(state: SokobanState) -> int | None:
    """Plain BFS over (player, box) written from the rules, independent of the module."""
    grid = state.grid
    rows, cols = len(grid), len(grid[0])

    def floor(r: int, c: int) -> bool:
        return 0 <= r < rows and 0 <= c < cols and grid[r][c] == "."

    start = (state.player, state.box)
    seen = {start: 0}
    queue = deque([start])
    while queue:
        (player, box) = node = queue.popleft()
        if box == state.target:
            return seen[node]
        for dr, dc in DIRS.values():
            nxt = (player[0] + dr, player[1] + dc)
            if not floor(*nxt):
                continue
            nbox = box
            if nxt == box:
                nbox = (box[0] + dr, box[1] + dc)
                if not floor(*nbox):
                    continue
            if (nxt, nbox) not in seen:
                seen[(nxt, nbox)] = seen[node] + 1
                queue.append((nxt, nbox))
    return None


def _all_placements(state: SokobanState) -> list[SokobanState]:
    cells = [(r, c) for r, row in enumerate(state.grid) for c, ch in enumerate(row) if ch == "."]
    return [SokobanState(state.grid, p, b, state.target) for p in cells for b in cells if p != b]


# ---------------------------------------------------------------------------- decoder


def _decode(image, grid_shape=(10, 10)) -> SokobanState:
    """Rebuild the state from rendered pixels sampled at fixed points of each cell."""
    px = image.load()
    geometry = GEOMETRY
    rows, cells = [], {"player": [], "box": [], "target": []}
    for r in range(grid_shape[0]):
        row = ""
        for c in range(grid_shape[1]):
            x0, y0, _, _ = geometry.cell_box((r, c))
            frame = px[x0 + 6, y0 + 26]  # left edge of a crate
            centre = px[x0 + 26, y0 + 26]  # body of the person, crossing of the X
            arm = px[x0 + 10, y0 + 10]  # upper-left arm of the target X
            if frame in (WOOD_DARK, FRAME_ON_TARGET):
                cells["box"].append((r, c))
                if frame == FRAME_ON_TARGET:
                    cells["target"].append((r, c))
                row += "."
            elif frame in (BRICK, BRICK_DARK, MORTAR):
                row += "#"
            elif centre == SHIRT:
                cells["player"].append((r, c))
                if arm == TARGET_GREEN:
                    cells["target"].append((r, c))
                row += "."
            elif centre == TARGET_GREEN:
                cells["target"].append((r, c))
                row += "."
            elif centre == SAND:
                row += "."
            else:
                raise AssertionError(f"cell {(r, c)}: unknown pixels {frame} {centre}")
        rows.append(row)
    for name, found in cells.items():
        assert len(found) == 1, f"{name}: {found}"
    return SokobanState(tuple(rows), cells["player"][0], cells["box"][0], cells["target"][0])


# ---------------------------------------------------------------------------- state


def test_json__round_trip_generated_and_solved_states() -> None:
    for difficulty in ("easy", "hard"):
        state = generate(difficulty, _rng(3))
        text = to_json(state)
        assert from_json(text) == state
        assert json.loads(text).keys() == {"grid", "player", "box", "target"}
        end = SPEC.trajectory(state, solve(state).answer)[-1]
        assert from_json(to_json(end)) == end


def test_json__schema_is_spec_section_4() -> None:
    state = generate("easy", _rng(0))
    obj = json.loads(to_json(state))
    assert obj["grid"] == list(state.grid)
    assert obj["player"] == list(state.player)
    assert obj["box"] == list(state.box)
    assert obj["target"] == list(state.target)
    assert to_json(state) == json.dumps(obj, sort_keys=True, separators=(",", ":"))


def _valid_obj() -> dict:
    return json.loads(to_json(generate("easy", _rng(0))))


def _floor_cells(obj: dict) -> list[list[int]]:
    return [[r, c] for r, row in enumerate(obj["grid"]) for c, ch in enumerate(row) if ch == "."]


def _wall_cell(obj: dict) -> list[int]:
    return next([r, c] for r, row in enumerate(obj["grid"]) for c, ch in enumerate(row) if ch == "#")


MALFORMED = [
    lambda o: "not json",
    lambda o: "[1, 2]",
    lambda o: "null",
    lambda o: {k: v for k, v in o.items() if k != "box"},
    lambda o: {**o, "extra": 1},
    lambda o: {**o, "grid": "#" * 100},
    lambda o: {**o, "grid": o["grid"][:9]},
    lambda o: {**o, "grid": [*o["grid"][:9], o["grid"][9][:9]]},
    lambda o: {**o, "grid": [*o["grid"][:9], "x" * 10]},
    lambda o: {**o, "grid": [*o["grid"][:9], 10]},
    lambda o: {**o, "player": [1]},
    lambda o: {**o, "player": [True, 1]},
    lambda o: {**o, "player": [1.0, 1]},
    lambda o: {**o, "player": "1,1"},
    lambda o: {**o, "box": [10, 0]},
    lambda o: {**o, "box": [0, -1]},
    lambda o: {**o, "target": _wall_cell(o)},
    lambda o: {**o, "player": o["box"]},
]


@pytest.mark.parametrize("mutate", MALFORMED, ids=range(len(MALFORMED)))
def test_from_json__rejects_malformed_state(mutate) -> None:
    obj = mutate(_valid_obj())
    text = obj if isinstance(obj, str) else json.dumps(obj)
    with pytest.raises(StateError):
        from_json(text)


def test_ascii__round_trip_and_markers() -> None:
    for rows in HAND_MADE:
        assert to_ascii(from_ascii(rows)) == list(rows)
    assert from_ascii(["+.B"]).player == from_ascii(["+.B"]).target == (0, 0)
    assert from_ascii(["P.*"]).box == from_ascii(["P.*"]).target == (0, 2)
    with pytest.raises(StateError):
        from_ascii(["P.B"])  # no target
    with pytest.raises(StateError):
        from_ascii(["PBBT"])


# ---------------------------------------------------------------------------- rules


@pytest.mark.parametrize(
    ("rows", "steps", "code", "index"),
    [
        (CORRIDOR, ["left"], "out_of_bounds", 0),
        (EDGE, ["up", "up"], "out_of_bounds", 1),
        (ROOM, ["up"], "wall", 0),
        (ROOM, ["right", "right", "right"], "wall", 2),
        (ROOM, ["right", "down", "down"], "box_blocked", 2),  # box into the bottom wall
        (EDGE, ["right", "up"], "box_blocked", 1),  # box up off the board
        (EDGE, ["right", "right", "up", "left", "left"], "box_blocked", 4),  # box left off the board
        (CORRIDOR, ["right"], "not_solved", 1),
        (DEAD, [], "not_solved", 0),
    ],
)
def test_replay__illegal_codes(rows, steps, code, index) -> None:
    result = replay(from_ascii(rows), steps)
    assert (result.feasible, result.error, result.first_invalid_step) == (False, code, index)
    assert result.length == len(steps)


def test_replay__box_off_the_board_is_box_blocked() -> None:
    state = from_ascii(["P.", "B.", "T."])
    result = replay(state, ["down", "down", "down"])  # onto the target, then off the board
    assert (result.error, result.first_invalid_step) == ("box_blocked", 1)
    assert replay(from_ascii([".P", ".B", "T."]), ["down"]).error == "not_solved"
    assert replay(from_ascii(["TP", ".B"]), ["down"]).error == "box_blocked"


def test_apply_step__illegal_codes_are_values_not_clamps() -> None:
    assert apply_step(from_ascii(CORRIDOR), "left") == Illegal("out_of_bounds", 0)
    assert apply_step(from_ascii(ROOM), "left") == Illegal("wall", 0)
    assert apply_step(from_ascii(["TP", ".B"]), "down") == Illegal("box_blocked", 0)
    assert apply_step(from_ascii(["PB#", "..T"]), "right") == Illegal("box_blocked", 0)
    assert apply_step(from_ascii(CORRIDOR), "north") == Illegal("unknown_action", 0)


def test_apply_step__walk_and_push() -> None:
    state = from_ascii(ROOM)
    walked = apply_step(state, "down")
    assert (walked.player, walked.box) == ((2, 1), (2, 2))
    pushed = apply_step(walked, "right")
    assert (pushed.player, pushed.box) == ((2, 2), (2, 3))
    assert not is_goal(pushed)
    assert is_goal(from_ascii(["P*"]))


def test_replay__steps_after_the_goal_still_count() -> None:
    state = from_ascii(["P.BT."])
    assert replay(state, ["right", "right"]).feasible
    assert replay(state, ["right", "right", "right"]).error == "not_solved"
    assert replay(state, ["right", "right", "left"]).feasible
    assert replay(state, ["right", "right", "left"]).length == 3


def test_replay__codes_are_within_the_spec_set() -> None:
    rng = _rng(7)
    codes = set()
    for rows in HAND_MADE:
        state = from_ascii(rows)
        for _ in range(200):
            codes.add(replay(state, random_answer(state, rng)).error)
    assert codes <= {None, "out_of_bounds", "wall", "box_blocked", "not_solved"}
    assert {"out_of_bounds", "wall", "box_blocked", "not_solved"} <= codes


@settings(max_examples=150, deadline=None)
@given(
    board=st.sampled_from(HAND_MADE),
    steps=st.lists(st.sampled_from(["up", "down", "left", "right"]), max_size=30),
)
def test_replay__agrees_with_apply_step(board, steps) -> None:
    state = from_ascii(board)
    assert replay(state, steps) == replay_steps(state, steps, apply_step, is_goal)


# ---------------------------------------------------------------------------- solver


@pytest.mark.parametrize("rows", HAND_MADE)
def test_solve__agrees_with_brute_force_on_every_placement(rows) -> None:
    for state in _all_placements(from_ascii(rows)):
        expected = _brute_optimum(state)
        solution = solve(state)
        if expected is None:
            assert solution is None
            continue
        assert solution is not None
        assert solution.optimal_length == expected == len(solution.answer)
        assert replay(state, solution.answer).feasible or expected == 0


def test_solve__known_optima() -> None:
    assert solve(from_ascii(CORRIDOR)).optimal_length == 2
    assert solve(from_ascii(DEAD)) is None
    assert solve(from_ascii(["P*"])).answer == ()
    # DETOUR: the box at (3,2) must go up the left column: walk around and push.
    assert solve(from_ascii(DETOUR)).optimal_length == _brute_optimum(from_ascii(DETOUR))


@pytest.mark.parametrize("seed", range(4))
def test_solve__agrees_with_brute_force_on_generated_states(seed) -> None:
    for difficulty in ("easy", "medium", "hard"):
        state = generate(difficulty, _rng(100 + seed))
        assert solve(state).optimal_length == _brute_optimum(state)


def test_retrograde_distances__match_brute_force_on_a_whole_map() -> None:
    state = generate("medium", _rng(11))
    dist, pushes = _distances(state.grid, state.target)
    n = (SIZE + 2) ** 2
    for placed in _all_placements(state)[::7]:
        key = _index(placed.player, 12) * n + _index(placed.box, 12)
        assert dist.get(key) == _brute_optimum(placed), placed


# ---------------------------------------------------------------------------- generator


def _pushes(state: SokobanState, answer) -> int:
    boxes = [state.box] + [s.box for s in SPEC.trajectory(state, answer)]
    return sum(a != b for a, b in zip(boxes, boxes[1:]))


@pytest.mark.parametrize("difficulty", ["easy", "medium", "hard"])
@pytest.mark.parametrize("seed", SEEDS)
def test_generate__optimum_in_bucket_and_solution_replays(difficulty, seed) -> None:
    state = generate(difficulty, _rng(seed))
    low, high = SPEC.buckets[difficulty]
    solution = solve(state)
    assert low <= solution.optimal_length <= high
    assert SPEC.bucket_of(solution.optimal_length) == difficulty
    result = replay(state, solution.answer)
    assert result.feasible and result.length == solution.optimal_length
    assert len(SPEC.trajectory(state, solution.answer)) == solution.optimal_length
    # invariants: 10x10, pieces on floor, box off target, the authors' wall ring and inner wall count
    assert len(state.grid) == 10 and all(len(row) == 10 for row in state.grid)
    assert from_json(to_json(state)) == state
    assert state.box != state.target
    assert state.grid[0] == state.grid[9] == "#" * 10 and all(row[0] == row[9] == "#" for row in state.grid)
    low, high = INNER_WALLS[difficulty]
    assert low <= sum(row[1:9].count("#") for row in state.grid[1:9]) <= high
    assert _pushes(state, solution.answer) >= 1


def test_generate__varies_targets_and_layouts() -> None:
    states = [generate("hard", _rng(seed)) for seed in range(12)]
    assert len({s.target for s in states}) >= 8
    assert len({s.grid for s in states}) == 12
    answers = [solve(s).answer for s in states]
    for answer in answers:  # no shortcut: one answer solves few rows
        assert sum(replay(s, answer).feasible for s in states) <= 2


# ---------------------------------------------------------------------------- renderer


@pytest.mark.parametrize("seed", range(3))
def test_render__decodes_back_to_the_state(seed) -> None:
    state = generate(("easy", "medium", "hard")[seed], _rng(seed))
    frames = [state, *SPEC.trajectory(state, solve(state).answer)]
    for frame in frames:
        image = render(frame)
        assert image.mode == "RGB"
        assert image.size == GEOMETRY.size == (552, 552)
        assert _decode(image) == frame
    assert is_goal(frames[-1])  # box-on-target frame decoded too


def test_render__player_on_target_and_open_edges() -> None:
    grid = ["." * 10] * 10
    grid[4] = ".###......"
    state = SokobanState(tuple(grid), (9, 9), (0, 0), (9, 9))
    assert _decode(render(state)) == state
    state = SokobanState(tuple(grid), (0, 5), (5, 5), (5, 5))
    assert _decode(render(state)) == state


def test_render__is_deterministic_and_rejects_small_boards() -> None:
    state = generate("medium", _rng(5))
    assert render(state).tobytes() == render(state).tobytes()
    with pytest.raises(StateError):
        render(from_ascii(CORRIDOR))


# ---------------------------------------------------------------------------- answers


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('<ANSWER_JSON>["up","left"]</ANSWER_JSON>', ("up", "left")),
        ('I think... <answer_json>["Up", "LEFT"]</answer_json> done.', ("up", "left")),
        ("```json\n<ANSWER_JSON>['u', 'd', 'l', 'r',]</ANSWER_JSON>\n```", ("up", "down", "left", "right")),
        ('<ANSWER_JSON>\n```json\n["down",]\n```\n</ANSWER_JSON>', ("down",)),
        ('<Answer_Json>[up, Right]</Answer_Json>', ("up", "right")),
        ('<ANSWER_JSON>["up"]</ANSWER_JSON> wait, <ANSWER_JSON>["down"]</ANSWER_JSON>', ("down",)),
        ("<ANSWER_JSON>[]</ANSWER_JSON>", ()),
        ('<ANSWER_JSON> [ " up " ] </ANSWER_JSON>', ("up",)),
    ],
)
def test_parse_answer__tolerant(text, expected) -> None:
    assert parse_answer(text) == expected


@pytest.mark.parametrize(
    ("text", "code"),
    [
        ("", "no_answer"),
        ('["up"]', "no_answer"),
        ('<ANSWER_JSON>["up"]', "no_answer"),
        ("<ANSWER_JSON></ANSWER_JSON>", "bad_format"),
        ('<ANSWER_JSON>{"a": 1}</ANSWER_JSON>', "bad_format"),
        ("<ANSWER_JSON>[1, 2]</ANSWER_JSON>", "bad_format"),
        ('<ANSWER_JSON>[["up"]]</ANSWER_JSON>', "bad_format"),
        ("<ANSWER_JSON>[up, null]</ANSWER_JSON>", "bad_format"),
        ('<ANSWER_JSON>["up"</ANSWER_JSON>', "bad_format"),
        ("<ANSWER_JSON>[{</ANSWER_JSON>", "bad_format"),
        ("<ANSWER_JSON>{'a'</ANSWER_JSON>", "bad_format"),
        ("<ANSWER_JSON>" + "[" * 100_000 + "</ANSWER_JSON>", "bad_format"),
        ("<ANSWER_JSON>[" + "9" * 5000 + "]</ANSWER_JSON>", "bad_format"),
        ("<ANSWER_JSON>" + json.dumps(["up"] * 1001) + "</ANSWER_JSON>", "bad_format"),
        ('<ANSWER_JSON>["north"]</ANSWER_JSON>', "unknown_action"),
        ('<ANSWER_JSON>["up", "jump"]</ANSWER_JSON>', "unknown_action"),
        ('<ANSWER_JSON>["\ud800"]</ANSWER_JSON>', "unknown_action"),
    ],
)
def test_parse_answer__errors_have_codes(text, code) -> None:
    with pytest.raises(AnswerError) as info:
        parse_answer(text)
    assert info.value.code == code


def test_format_answer__round_trips_and_payload_is_compact() -> None:
    answer = ("up", "left", "down", "right")
    assert parse_answer(format_answer(answer)) == answer
    assert answer_payload(answer) == '["up","left","down","right"]'
    assert [SPEC.parse_step(SPEC.format_step(step)) for step in answer] == list(answer)


def test_aid__labels_non_wall_cells_only() -> None:
    state = generate("medium", _rng(4))
    cells = SPEC.aid.labelled_cells(state)
    assert cells == {(r, c) for r in range(10) for c in range(10) if state.grid[r][c] != "#"}
    assert {state.player, state.box, state.target} <= cells and len(cells) < 100


# ---------------------------------------------------------------------------- prompts and baseline


@pytest.mark.parametrize("style", ["text_cot", "direct"])
def test_question__carries_table_13_and_leaks_nothing(style) -> None:
    state = generate("hard", _rng(2))
    text = SPEC.question(state, style)
    assert '<ANSWER_JSON>["left","left","up"]</ANSWER_JSON>' in text
    assert "pushes it one cell" in text and "target" in text and "shortest" not in text
    solution = solve(state)
    assert answer_payload(solution.answer) not in text
    assert not re.search(rf"\b{solution.optimal_length}\b", text)
    for cell in (state.player, state.box, state.target):
        assert f"({cell[0]},{cell[1]})" not in text


def test_random_answer__deterministic_directions() -> None:
    state = from_ascii(ROOM)
    first = random_answer(state, _rng(9))
    assert first == random_answer(state, _rng(9))
    assert 4 <= len(first) <= 30
    assert set(first) <= set(DIRS)


def test_spec__declares_every_capability() -> None:
    """Cell decoding, the drawn solution, the authors' records, structure statistics."""
    # the red route is the player's walk, the final push added
    assert SPEC.fidelity and SPEC.fidelity.perturb and SPEC.vr and SPEC.paper and SPEC.structure
    assert SPEC.vr.route_start is not None and SPEC.vr.route_answer is not None


def test_buckets__are_spec_section_2s() -> None:
    """The optimal-length ranges of docs/contract/families.md (``check_family`` checks that ``bucket_of`` follows them)."""
    assert dict(SPEC.buckets) == {"easy": (1, 8), "medium": (10, 16), "hard": (20, 39)}
