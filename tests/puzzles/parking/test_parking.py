"""Tests of the parking (Rush Hour) family: rules, solver, generator, renderer, answers, prompts."""

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
from vgau_data.puzzles.parking import SPEC
from vgau_data.puzzles.parking import render as parking_render
from vgau_data.puzzles.parking.answers import answer_payload, format_answer, format_step, parse_answer, parse_step
from vgau_data.puzzles.parking.generator import generate
from vgau_data.puzzles.parking.render import render
from vgau_data.puzzles.parking.rules import apply_step, is_goal, replay
from vgau_data.puzzles.parking.search import SearchLimitError
from vgau_data.puzzles.parking.solver import random_answer, solve
from vgau_data.puzzles.parking.state import OTHER_IDS, ParkingState, Vehicle, from_ascii, from_json, to_ascii, to_json

# ---------------------------------------------------------------------------- fixtures

EMPTY = "........"

LOCKED = (  # A blocks R; A needs B out of the way (two slides) before it can go up
    "...BBB..",
    "....A...",
    "RR..A...>",
    "....CC..",
    "....D...",
    "....D...",
    EMPTY,
    EMPTY,
)

TWO_BLOCKERS = (  # exit on the bottom row; vertical blockers A and B, C and D hem them in
    EMPTY,
    EMPTY,
    EMPTY,
    "..CCC...",
    "....A.B.",
    "....A.B.",
    "....A.BD",
    "RR.....D>",
)

NO_WAY = (  # a horizontal car ahead of R in its own row: unsolvable
    EMPTY,
    "RR..AA..>",
    EMPTY,
    EMPTY,
    EMPTY,
    EMPTY,
    EMPTY,
    EMPTY,
)

PARKED = (  # already solved
    "A.......",
    "A.....RR>",
    EMPTY,
    EMPTY,
    EMPTY,
    EMPTY,
    EMPTY,
    EMPTY,
)

GENERATED = (  # a packed medium board from generate(): optimum 12
    "A.BRRCDE>",
    "A.BFGCDE",
    "HHBFG.IJ",
    "KKKFG.IJ",
    "...LLLMM",
    "NNOOOPPP",
    "QSSTTUUV",
    "QWWWXXXV",
)

DENSE = (  # GENERATED with row 4 filled: D, E, I, J, L, M are locked, so R never gets past D
    "A.BRRCDE>",
    "A.BFGCDE",
    "HHBFG.IJ",
    "KKKFG.IJ",
    "ZZZLLLMM",
    "NNOOOPPP",
    "QSSTTUUV",
    "QWWWXXXV",
)

HAND_MADE = (LOCKED, TWO_BLOCKERS, NO_WAY, PARKED, GENERATED, DENSE)
SEEDS = (0, 1)
AXES = {"left": ("h", 0, -1), "right": ("h", 0, 1), "up": ("v", -1, 0), "down": ("v", 1, 0)}


def _rng(seed: int) -> np.random.Generator:
    return np.random.default_rng(seed)


# ---------------------------------------------------------------------------- brute force


class _TooBig(Exception):
    pass


def _brute_optimum(state: ParkingState, limit: int = 10**7) -> int | None:
    """Plain BFS over tuples of top-left cells, written from the rules, independent of the module.

    Raises ``_TooBig`` past ``limit`` positions.
    """
    kinds = [(v.id, v.orientation, v.length) for v in state.vehicles]
    red = next(i for i, (vid, _, _) in enumerate(kinds) if vid == "R")

    def cells(i: int, r: int, c: int) -> list[tuple[int, int]]:
        _, orientation, length = kinds[i]
        return [(r, c + k) if orientation == "h" else (r + k, c) for k in range(length)]

    start = tuple((v.row, v.col) for v in state.vehicles)
    seen = {start: 0}
    queue = deque([start])
    while queue:
        node = queue.popleft()
        if node[red][1] + kinds[red][2] == 8:
            return seen[node]
        taken = {cell for i, (r, c) in enumerate(node) for cell in cells(i, r, c)}
        for i, (r, c) in enumerate(node):
            for orientation, dr, dc in AXES.values():
                if kinds[i][1] != orientation:
                    continue
                moved = (r + dr, c + dc)
                new_cells = set(cells(i, *moved)) - set(cells(i, r, c))
                if all(0 <= a < 8 and 0 <= b < 8 and (a, b) not in taken for a, b in new_cells):
                    nxt = node[:i] + (moved,) + node[i + 1 :]
                    if nxt not in seen:
                        seen[nxt] = seen[node] + 1
                        queue.append(nxt)
        if len(seen) > limit:
            raise _TooBig
    return None


# ---------------------------------------------------------------------------- decoder


def _decode(image) -> ParkingState:
    """Rebuild the state from pixels: one fixed point per cell (away from the letters) gives
    the vehicle id by its palette colour; the right margin tells the exit row."""
    px = image.load()
    geometry = parking_render.GEOMETRY
    by_colour = {rgb: vid for vid, rgb in parking_render.PALETTE.items()}
    cells: dict[str, list[tuple[int, int]]] = {}
    for r in range(8):
        for c in range(8):
            x0, y0, _, _ = geometry.cell_box((r, c))
            colour = px[x0 + 14, y0 + 14]
            if colour == parking_render.BOARD_RGB:
                continue
            assert colour in by_colour, f"cell {(r, c)}: unknown colour {colour}"
            cells.setdefault(by_colour[colour], []).append((r, c))
    exits = []
    for r in range(8):
        x, y = geometry.center((r, 7))
        assert px[x + 32 + 20, y] in (parking_render.EXIT_RGB, parking_render.FRAME_RGB)
        if px[x + 32 + 20, y] == parking_render.EXIT_RGB:
            exits.append(r)
    assert len(exits) == 1, exits
    vehicles = []
    for vid, where in sorted(cells.items()):
        rows, cols = {r for r, _ in where}, {c for _, c in where}
        orientation = "h" if len(rows) == 1 else "v"
        vehicles.append(Vehicle(vid, min(rows), min(cols), len(where), orientation))
    return ParkingState(exits[0], tuple(vehicles))


# ---------------------------------------------------------------------------- state


def test_json__round_trip_generated_and_hand_made_states() -> None:
    for rows in HAND_MADE:
        state = from_ascii(rows)
        assert from_json(to_json(state)) == state
    state = generate("medium", _rng(3))
    text = to_json(state)
    assert from_json(text) == state
    end = SPEC.trajectory(state, solve(state).answer)[-1]
    assert from_json(to_json(end)) == end


def test_json__schema_is_spec_section_4() -> None:
    state = from_ascii(LOCKED)
    obj = json.loads(to_json(state))
    assert obj == {
        "size": 8,
        "exit_row": 2,
        "vehicles": [
            {"id": "A", "row": 1, "col": 4, "length": 2, "orientation": "v"},
            {"id": "B", "row": 0, "col": 3, "length": 3, "orientation": "h"},
            {"id": "C", "row": 3, "col": 4, "length": 2, "orientation": "h"},
            {"id": "D", "row": 4, "col": 4, "length": 2, "orientation": "v"},
            {"id": "R", "row": 2, "col": 0, "length": 2, "orientation": "h"},
        ],
    }
    assert to_json(state) == json.dumps(obj, sort_keys=True, separators=(",", ":"))


def test_from_json__sorts_vehicles_by_id() -> None:
    obj = json.loads(to_json(from_ascii(LOCKED)))
    obj["vehicles"].reverse()
    assert from_json(json.dumps(obj)) == from_ascii(LOCKED)


def _valid_obj() -> dict:
    return json.loads(to_json(from_ascii(LOCKED)))


def _with_vehicle(obj: dict, index: int, **changes) -> dict:
    vehicles = [dict(v) for v in obj["vehicles"]]
    vehicles[index].update(changes)
    return {**obj, "vehicles": vehicles}


MALFORMED = [
    lambda o: "not json",
    lambda o: "[1, 2]",
    lambda o: "null",
    lambda o: {k: v for k, v in o.items() if k != "exit_row"},
    lambda o: {**o, "extra": 1},
    lambda o: {**o, "size": 6},
    lambda o: {**o, "size": "8"},
    lambda o: {**o, "exit_row": 8},
    lambda o: {**o, "exit_row": 1.0},
    lambda o: {**o, "exit_row": True},
    lambda o: {**o, "vehicles": {"R": 1}},
    lambda o: {**o, "vehicles": [1, 2]},
    lambda o: {**o, "vehicles": o["vehicles"][:4]},  # no red car
    lambda o: {**o, "vehicles": o["vehicles"] + [o["vehicles"][0]]},  # duplicate id
    lambda o: _with_vehicle(o, 0, id="a"),
    lambda o: _with_vehicle(o, 0, id="AB"),
    lambda o: _with_vehicle(o, 0, id=1),
    lambda o: _with_vehicle(o, 0, length=4),
    lambda o: _with_vehicle(o, 0, length=1),
    lambda o: _with_vehicle(o, 0, orientation="x"),
    lambda o: _with_vehicle(o, 0, orientation=None),
    lambda o: _with_vehicle(o, 0, row="1"),
    lambda o: _with_vehicle(o, 0, row=7),  # off the bottom edge
    lambda o: _with_vehicle(o, 1, col=6),  # off the right edge
    lambda o: _with_vehicle(o, 2, row=2, col=3),  # overlaps A at (2,4)
    lambda o: _with_vehicle(o, 4, row=3),  # red car off the exit row
    lambda o: _with_vehicle(o, 4, orientation="v"),
    lambda o: {**o, "vehicles": [{**o["vehicles"][0], "colour": "red"}] + o["vehicles"][1:]},
]


@pytest.mark.parametrize("mutate", MALFORMED, ids=range(len(MALFORMED)))
def test_from_json__rejects_malformed_state(mutate) -> None:
    obj = mutate(_valid_obj())
    text = obj if isinstance(obj, str) else json.dumps(obj)
    with pytest.raises(StateError):
        from_json(text)


def test_ascii__round_trip_and_errors() -> None:
    for rows in HAND_MADE:
        assert to_ascii(from_ascii(rows)) == list(rows)
    assert from_ascii("\n".join(LOCKED)) == from_ascii(LOCKED)
    with pytest.raises(StateError):
        from_ascii([row.rstrip(">") for row in LOCKED])  # no exit marker
    with pytest.raises(StateError):
        from_ascii(("AA.A....",) + LOCKED[1:])  # A is not a straight bar
    with pytest.raises(StateError):
        from_ascii(LOCKED[:7])


# ---------------------------------------------------------------------------- rules


@pytest.mark.parametrize(
    ("rows", "steps", "code", "index"),
    [
        (LOCKED, [("Z", "up")], "unknown_vehicle", 0),
        (LOCKED, [("B", "left"), ("r", "right")], "unknown_vehicle", 1),  # ids are exact here
        (LOCKED, [("R", "up")], "against_orientation", 0),
        (LOCKED, [("A", "left")], "against_orientation", 0),
        (LOCKED, [("R", "left")], "out_of_bounds", 0),
        (PARKED, [("R", "right")], "out_of_bounds", 0),  # R never drives out through the exit
        (PARKED, [("A", "up")], "out_of_bounds", 0),
        (TWO_BLOCKERS, [("D", "down")], "out_of_bounds", 0),
        (LOCKED, [("A", "up")], "blocked", 0),
        (LOCKED, [("A", "down")], "blocked", 0),
        (LOCKED, [("R", "right"), ("R", "right"), ("R", "right")], "blocked", 2),
        (DENSE, [("L", "left")], "blocked", 0),
        (DENSE, [("C", "down"), ("R", "right"), ("R", "right")], "blocked", 2),
        (LOCKED, [("R", "right")], "not_solved", 1),
        (NO_WAY, [], "not_solved", 0),
    ],
)
def test_replay__illegal_codes(rows, steps, code, index) -> None:
    result = replay(from_ascii(rows), steps)
    assert (result.feasible, result.error, result.first_invalid_step) == (False, code, index)
    assert result.length == len(steps)


def test_apply_step__illegal_codes_are_values_not_clamps() -> None:
    state = from_ascii(LOCKED)
    assert apply_step(state, ("Z", "up")) == Illegal("unknown_vehicle", 0)
    assert apply_step(state, ("R", "down")) == Illegal("against_orientation", 0)
    assert apply_step(state, ("R", "left")) == Illegal("out_of_bounds", 0)
    assert apply_step(state, ("A", "up")) == Illegal("blocked", 0)
    assert apply_step(state, ("A", "north")) == Illegal("unknown_action", 0)


def test_apply_step__slides_one_cell() -> None:
    state = from_ascii(LOCKED)
    moved = apply_step(state, ("B", "right"))
    assert to_ascii(moved)[0] == "....BBB."
    moved = apply_step(apply_step(moved, ("B", "right")), ("A", "up"))
    assert [row[4] for row in to_ascii(moved)[:3]] == ["A", "A", "."]
    assert not is_goal(moved)
    assert is_goal(from_ascii(PARKED))


def test_replay__steps_after_the_goal_still_count() -> None:
    state = from_ascii(PARKED)
    assert replay(state, []).feasible
    assert replay(state, [("R", "left")]).error == "not_solved"
    result = replay(state, [("R", "left"), ("R", "right")])
    assert result.feasible and result.length == 2


def test_replay__codes_are_within_the_spec_set() -> None:
    rng = _rng(7)
    codes = set()
    for rows in HAND_MADE:
        state = from_ascii(rows)
        for _ in range(200):
            codes.add(replay(state, random_answer(state, rng)).error)
        codes.add(replay(state, [("Q" if rows is not DENSE else "R", "up")]).error)
    assert codes <= {None, "unknown_vehicle", "against_orientation", "out_of_bounds", "blocked", "not_solved"}
    assert {"out_of_bounds", "blocked", "not_solved", "against_orientation"} <= codes


STEPS = st.tuples(st.sampled_from(list("ABCDRZ")), st.sampled_from(["up", "down", "left", "right", "north"]))


@settings(max_examples=150, deadline=None)
@given(board=st.sampled_from(HAND_MADE), steps=st.lists(STEPS, max_size=30))
def test_replay__agrees_with_apply_step(board, steps) -> None:
    state = from_ascii(board)
    assert replay(state, steps) == replay_steps(state, steps, apply_step, is_goal)


# ---------------------------------------------------------------------------- solver


@pytest.mark.parametrize("rows", HAND_MADE)
def test_solve__agrees_with_brute_force_on_hand_made_boards(rows) -> None:
    state = from_ascii(rows)
    expected = _brute_optimum(state)
    solution = solve(state)
    if expected is None:
        assert solution is None
        return
    assert solution.optimal_length == expected == len(solution.answer)
    assert replay(state, solution.answer).feasible


def test_solve__known_optima() -> None:
    # LOCKED: B right twice, A up once, R right six times (A down needs C and D moved: longer).
    assert solve(from_ascii(LOCKED)).optimal_length == 9
    assert solve(from_ascii(PARKED)).answer == ()
    assert solve(from_ascii(NO_WAY)) is None
    assert solve(from_ascii(GENERATED)).optimal_length == 12
    assert solve(from_ascii(DENSE)) is None


def test_solve__every_red_car_position_agrees_with_brute_force() -> None:
    base = from_ascii(TWO_BLOCKERS)
    for col in range(5):
        vehicles = tuple(Vehicle("R", 7, col, 2, "h") if v.id == "R" else v for v in base.vehicles)
        state = ParkingState(7, vehicles)
        assert solve(state).optimal_length == _brute_optimum(state)


def test_solve__search_limit_raises() -> None:
    loose = from_ascii(("A.......", "A.......", "RR......>", "...B....", "...B....", EMPTY, "CC......", EMPTY))
    with pytest.raises(SearchLimitError):
        solve(loose, max_states=5)


def _random_dense_board(rng: np.random.Generator) -> ParkingState:
    """R anywhere on a random exit row, then random cars until about 58 cells are full."""
    exit_row = int(rng.integers(8))
    vehicles = [Vehicle("R", exit_row, int(rng.integers(6)), 2, "h")]
    taken = set(vehicles[0].cells)
    for vid in OTHER_IDS:
        for _ in range(200):
            length, orientation = int(rng.integers(2, 4)), "hv"[int(rng.integers(2))]
            car = Vehicle(vid, int(rng.integers(8)), int(rng.integers(8)), length, orientation)
            if all(0 <= r < 8 and 0 <= c < 8 and (r, c) not in taken for r, c in car.cells):
                vehicles.append(car)
                taken |= set(car.cells)
                break
        if len(taken) >= 58:
            break
    return ParkingState(exit_row, tuple(sorted(vehicles, key=lambda v: v.id)))


def test_solve__agrees_with_brute_force_on_random_dense_boards() -> None:
    rng = _rng(31)
    outcomes = []
    for _ in range(25):
        state = _random_dense_board(rng)
        try:
            expected = _brute_optimum(state, limit=1500)
        except _TooBig:  # a large unsolvable cluster: too slow for the brute force
            continue
        solution = solve(state)
        assert (solution.optimal_length if solution else None) == expected, to_json(state)
        if solution is not None:
            assert replay(state, solution.answer).feasible
        outcomes.append(expected)
    assert sum(x is None for x in outcomes) >= 5 and sum(x is not None for x in outcomes) >= 3


def test_solve__agrees_with_brute_force_on_generated_states() -> None:
    """Medium and hard rows are too large for this brute force: ``test_astar`` checks them
    against the module's plain BFS."""
    for seed in (100, 101, 102):
        state = generate("easy", _rng(seed))
        assert solve(state).optimal_length == _brute_optimum(state)


# ---------------------------------------------------------------------------- generator


@pytest.mark.parametrize("difficulty", ["easy", "medium", "hard"])
@pytest.mark.parametrize("seed", SEEDS)
def test_generate__optimum_in_bucket_and_solution_replays(difficulty, seed) -> None:
    state = generate(difficulty, _rng(seed))
    low, high = SPEC.buckets[difficulty]
    solution = SPEC.solve(state)
    assert low <= solution.optimal_length <= high
    assert SPEC.bucket_of(solution.optimal_length) == difficulty
    result = replay(state, solution.answer)
    assert result.feasible and result.length == solution.optimal_length
    assert len(SPEC.trajectory(state, solution.answer)) == solution.optimal_length
    # invariants: canonical, ids B.. (R apart) sorted, R horizontal on the exit row
    assert from_json(to_json(state)) == state
    ids = [v.id for v in state.vehicles]
    assert ids == sorted(ids) and "R" in ids and len(ids) <= 26
    assert [i for i in ids if i != "R"] == list(OTHER_IDS[: len(ids) - 1])
    red = next(v for v in state.vehicles if v.id == "R")
    assert (red.orientation, red.row, red.length) == ("h", state.exit_row, 2)


def test_generate__exit_on_row_3_and_no_answer_fits_many_rows() -> None:
    states = [generate("medium", _rng(seed)) for seed in range(16)]
    assert {s.exit_row for s in states} == {3}  # the authors' exit row, in every record
    assert len(set(states)) == len(states)
    for state in states:  # no shortcut: one answer solves few rows
        answer = solve(state).answer
        assert sum(replay(s, answer).feasible for s in states) <= 2


# ---------------------------------------------------------------------------- renderer


@pytest.mark.parametrize("difficulty", ["easy", "medium", "hard"])
def test_render__decodes_back_to_the_state(difficulty) -> None:
    state = generate(difficulty, _rng(5))
    frames = [state, *SPEC.trajectory(state, solve(state).answer)]
    for frame in frames:
        image = render(frame)
        assert image.mode == "RGB"
        assert image.size == parking_render.GEOMETRY.size == (584, 544)
        assert _decode(image) == frame
    assert is_goal(frames[-1])


@pytest.mark.parametrize("rows", HAND_MADE)
def test_render__hand_made_boards_decode(rows) -> None:
    state = from_ascii(rows)
    assert _decode(render(state)) == state


def test_render__every_id_has_its_own_colour_and_red_is_red() -> None:
    assert set(parking_render.PALETTE) == set("ABCDEFGHIJKLMNOPQRSTUVWXYZ")
    assert len(set(parking_render.PALETTE.values())) == 26
    assert parking_render.PALETTE["R"] == parking_render.RED_RGB
    assert not {parking_render.BOARD_RGB, parking_render.FRAME_RGB} & set(parking_render.PALETTE.values())


# ---------------------------------------------------------------------------- answers


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('<ANSWER_JSON>[{"car":"A","direction":"up"}]</ANSWER_JSON>', (("A", "up"),)),
        (
            (
                'I think... <answer_json>[{"car": "b", "direction": "Down"}, {"car":"R","direction":"RIGHT"}]'
                "</answer_json> done."
            ),
            (("B", "down"), ("R", "right")),
        ),
        (
            (
                "```json\n<ANSWER_JSON>[{'car': 'a', 'direction': 'u'}, {'car': 'R', 'direction': 'r'},]"
                "</ANSWER_JSON>\n```"
            ),
            (("A", "up"), ("R", "right")),
        ),
        ('<ANSWER_JSON>\n```json\n[{"car":"C","direction":"l",},]\n```\n</ANSWER_JSON>', (("C", "left"),)),
        ("<Answer_Json>[{car: A, direction: up}]</Answer_Json>", (("A", "up"),)),
        ('<ANSWER_JSON>[{"Car":" a ","Direction":" up "}]</ANSWER_JSON>', (("A", "up"),)),
        (
            (
                '<ANSWER_JSON>[{"car":"A","direction":"up"}]</ANSWER_JSON> wait, '
                '<ANSWER_JSON>[{"car":"B","direction":"down"}]</ANSWER_JSON>'
            ),
            (("B", "down"),),
        ),
        ("<ANSWER_JSON>[]</ANSWER_JSON>", ()),
        ('<ANSWER_JSON>[{"car":"Z","direction":"up","why":"free"}]</ANSWER_JSON>', (("Z", "up"),)),
    ],
)
def test_parse_answer__tolerant(text, expected) -> None:
    assert parse_answer(text) == expected


@pytest.mark.parametrize(
    ("text", "code"),
    [
        ("", "no_answer"),
        ('[{"car":"A","direction":"up"}]', "no_answer"),
        ('<ANSWER_JSON>[{"car":"A","direction":"up"}]', "no_answer"),
        ("<ANSWER_JSON></ANSWER_JSON>", "bad_format"),
        ('<ANSWER_JSON>{"car":"A","direction":"up"}</ANSWER_JSON>', "bad_format"),
        ('<ANSWER_JSON>["up"]</ANSWER_JSON>', "bad_format"),
        ('<ANSWER_JSON>[["A","up"]]</ANSWER_JSON>', "bad_format"),
        ('<ANSWER_JSON>[{"direction":"up"}]</ANSWER_JSON>', "bad_format"),
        ('<ANSWER_JSON>[{"car":"A"}]</ANSWER_JSON>', "bad_format"),
        ('<ANSWER_JSON>[{"car":1,"direction":"up"}]</ANSWER_JSON>', "bad_format"),
        ('<ANSWER_JSON>[{"car":"AB","direction":"up"}]</ANSWER_JSON>', "bad_format"),
        ('<ANSWER_JSON>[{"car":"","direction":"up"}]</ANSWER_JSON>', "bad_format"),
        ('<ANSWER_JSON>[{"car":"7","direction":"up"}]</ANSWER_JSON>', "bad_format"),
        ('<ANSWER_JSON>[{"car":"A","direction":null}]</ANSWER_JSON>', "bad_format"),
        ('<ANSWER_JSON>[{"car":"A","direction":"up"}</ANSWER_JSON>', "bad_format"),
        ("<ANSWER_JSON>[{</ANSWER_JSON>", "bad_format"),
        ("<ANSWER_JSON>[{'car'</ANSWER_JSON>", "bad_format"),
        ("<ANSWER_JSON>" + "[" * 100_000 + "</ANSWER_JSON>", "bad_format"),
        ("<ANSWER_JSON>[" + "9" * 5000 + "]</ANSWER_JSON>", "bad_format"),
        ("<ANSWER_JSON>" + json.dumps([{"car": "A", "direction": "up"}] * 1001) + "</ANSWER_JSON>", "bad_format"),
        ('<ANSWER_JSON>[{"car":"A","direction":"north"}]</ANSWER_JSON>', "unknown_action"),
        ('<ANSWER_JSON>[{"car":"A","direction":"up"},{"car":"B","direction":"jump"}]</ANSWER_JSON>', "unknown_action"),
        ('<ANSWER_JSON>[{"car":"A","direction":"\ud800"}]</ANSWER_JSON>', "unknown_action"),
    ],
)
def test_parse_answer__errors_have_codes(text, code) -> None:
    with pytest.raises(AnswerError) as info:
        parse_answer(text)
    assert info.value.code == code


def test_format_answer__round_trips_and_payload_is_compact() -> None:
    answer = (("A", "up"), ("R", "right"), ("B", "down"), ("C", "left"))
    assert parse_answer(format_answer(answer)) == answer
    assert answer_payload(answer[:1]) == '[{"car":"A","direction":"up"}]'


# ---------------------------------------------------------------------------- prompts and baseline


@pytest.mark.parametrize("style", ["text_cot", "direct"])
def test_question__carries_table_15_with_the_exit_row(style) -> None:
    state = generate("hard", _rng(2))
    text = SPEC.question(state, style)
    assert '<ANSWER_JSON>[{"car":"A","direction":"up"},{"car":"R","direction":"right"}]</ANSWER_JSON>' in text
    assert f"row index {state.exit_row}" in text and "8x8" in text and 'red car "R"' in text
    assert "shortest" not in text
    solution = solve(state)
    assert answer_payload(solution.answer) not in text
    assert not re.search(rf"\b{solution.optimal_length} (steps|moves)\b", text)


def test_step_format__is_the_authors_step_json() -> None:
    assert format_step(("R", "right")) == '<STEP_JSON>{"car":"R","direction":"right"}</STEP_JSON>'
    assert parse_step("<STEP_JSON>{'car': 'b', 'direction': 'U'}</STEP_JSON>") == ("B", "up")
    with pytest.raises(AnswerError):
        parse_step('<ANSWER_JSON>[{"car":"B","direction":"up"}]</ANSWER_JSON>')


def test_random_answer__deterministic_and_along_each_axis() -> None:
    state = from_ascii(LOCKED)
    first = random_answer(state, _rng(9))
    assert first == random_answer(state, _rng(9))
    assert 4 <= len(first) <= 30
    orientation = {v.id: v.orientation for v in state.vehicles}
    for vid, direction in first:
        assert AXES[direction][0] == orientation[vid]


def test_spec__declares_every_capability() -> None:
    """Cell decoding, the drawn solution, the authors' records, structure statistics."""
    # numbered arrows: no red route; a published board is searched within a smaller budget than ours
    # (the authors' hardest needs 0.46M positions; a hostile record must stop in seconds)
    from vgau_data.puzzles.parking.paper import PAPER_MAX_STATES
    from vgau_data.puzzles.parking.solver import SOLVE_MAX_STATES

    assert SPEC.fidelity and SPEC.fidelity.perturb and SPEC.vr and SPEC.paper and SPEC.structure
    assert SPEC.vr.route_start is None and SPEC.paper.solve.keywords == {"max_states": PAPER_MAX_STATES}
    assert 460_000 < PAPER_MAX_STATES < SOLVE_MAX_STATES


def test_buckets__are_spec_section_2s() -> None:
    """The optimal-length ranges of docs/contract/families.md (``check_family`` checks that ``bucket_of`` follows them)."""
    assert dict(SPEC.buckets) == {"easy": (1, 5), "medium": (8, 16), "hard": (18, 34)}
