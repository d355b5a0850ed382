"""Tests for the path family: rules, solver, generator, render, answer parsing, marker."""

from __future__ import annotations

import json
import time
from collections import Counter

import numpy as np
import pytest
from PIL import Image, ImageDraw

from vgau_data.errors import StateError
from vgau_data.puzzles import grids
from vgau_data.puzzles.base import AnswerError, Illegal, Replay, Solution
from vgau_data.puzzles.path import SPEC
from vgau_data.puzzles.path.answers import answer_payload, format_answer, format_step, parse_answer, parse_step
from vgau_data.puzzles.path.generator import BUCKETS, generate
from vgau_data.puzzles.path.render import END_RGB, FRAME_RGB, GEOMETRY, LETTER_PX, ROAD_RGB, START_RGB, WALL_RGB, render
from vgau_data.puzzles.path.rules import answer_steps, apply_step, is_goal, replay, trajectory
from vgau_data.puzzles.path.solver import random_answer, solve
from vgau_data.puzzles.path.state import PathState, PathStep, from_ascii, from_json, to_ascii, to_json
from vgau_data.rendering import font

# Fixtures: S start, T end (target), A-E labels, # blocked, . road (a tree).
FORK = (
    "SA.T",
    "##B#",
)
TEN = (
    "S.#A######",
    "#.#.######",
    "#.C.##B..#",
    "###.###.##",
    "#...D...##",
    "#.###.####",
    "#.###.####",
    "#E###....T",
    "#########.",
    "##########",
)
SEEDS = (0, 1, 2)


def brute_route_letters(state: PathState) -> list[tuple[tuple[str, ...], int]]:
    """Every simple start-end path by DFS, as (letters in order, moves)."""
    grid = state.grid
    rows, cols = len(grid), len(grid[0])
    letter_at = {cell: letter for letter, cell in state.labels}
    found = []
    stack = [[state.start]]
    while stack and len(found) < 3:
        route = stack.pop()
        r, c = route[-1]
        if (r, c) == state.end:
            found.append((tuple(letter_at[x] for x in route if x in letter_at), len(route) - 1))
            continue
        for nxt in ((r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1)):
            if 0 <= nxt[0] < rows and 0 <= nxt[1] < cols and grid[nxt[0]][nxt[1]] == "." and nxt not in route:
                stack.append([*route, nxt])
    return found


def moves_of(cells: list[tuple[int, int]]) -> list[str]:
    names = {(-1, 0): "up", (1, 0): "down", (0, -1): "left", (0, 1): "right"}
    return [names[(b[0] - a[0], b[1] - a[1])] for a, b in zip(cells, cells[1:])]


@pytest.fixture(scope="module")
def generated() -> dict[str, list[PathState]]:
    return {d: [generate(d, np.random.default_rng(seed)) for seed in SEEDS] for d in BUCKETS}


# --------------------------------------------------------------------------- state


def test_ascii__round_trip() -> None:
    state = from_ascii(TEN)
    assert state.start == (0, 0) and state.end == (7, 9)
    assert state.labels == (("A", (0, 3)), ("B", (2, 6)), ("C", (2, 2)), ("D", (4, 4)), ("E", (7, 1)))
    assert tuple(to_ascii(state)) == TEN


def test_json__round_trip_and_schema() -> None:
    state = from_ascii(TEN)
    text = to_json(state)
    obj = json.loads(text)
    assert set(obj) == {"grid", "start", "end", "labels"}
    assert obj["labels"] == {"A": [0, 3], "B": [2, 6], "C": [2, 2], "D": [4, 4], "E": [7, 1]}
    assert obj["start"] == [0, 0] and obj["end"] == [7, 9] and obj["grid"][0] == "..#.######"
    assert from_json(text) == state
    # a moved marker is serialised (records name the board a step shows), and round-trips
    moved = apply_step(state, PathStep("right"))
    assert moved.position == (0, 1) and from_json(to_json(moved)) == moved
    assert json.loads(to_json(moved)) == {**obj, "position": [0, 1], "declared": []}
    back = apply_step(moved, PathStep("left"))
    assert from_json(to_json(back)) == back and back.position is None


@pytest.mark.parametrize(
    "mutate",
    [
        lambda o: "{",
        lambda o: '"grid"',
        lambda o: {k: v for k, v in o.items() if k != "labels"},
        lambda o: {**o, "position": [0, 1]},
        lambda o: {**o, "position": [0, 2], "declared": []},
        lambda o: {**o, "position": [0, 1], "declared": ["Z"]},
        lambda o: {**o, "position": [0, 1], "declared": ["A", "A"]},
        lambda o: {**o, "position": [0, 1], "declared": "A"},
        lambda o: {**o, "labels": [["A", [0, 3]]]},
        lambda o: {**o, "labels": {**o["labels"], "F": [0, 1]}},
        lambda o: {**o, "labels": {**o["labels"], "a": [0, 1]}},
        lambda o: {**o, "labels": {**o["labels"], "A": [0, 0]}},  # on start
        lambda o: {**o, "labels": {**o["labels"], "A": [7, 9]}},  # on end
        lambda o: {**o, "labels": {**o["labels"], "A": [0, 4]}},  # on a wall
        lambda o: {**o, "labels": {**o["labels"], "A": [2, 5]}},  # on B's cell
        lambda o: {**o, "labels": {**o["labels"], "A": [0, "3"]}},
        lambda o: {**o, "end": [0, 0]},
        lambda o: {**o, "end": [9, 9]},
        lambda o: {**o, "start": [0, 0, 0]},
        lambda o: {**o, "grid": [row.replace("#", ".") for row in o["grid"]]},  # cycles
        lambda o: {**o, "grid": o["grid"][:9] + ["...#######"]},  # disconnected
        lambda o: {**o, "grid": o["grid"][:-1]},
    ],
)
def test_from_json__rejects_malformed(mutate) -> None:
    obj = json.loads(to_json(from_ascii(TEN)))
    bad = mutate(obj)
    with pytest.raises(StateError):
        from_json(bad if isinstance(bad, str) else json.dumps(bad))


def test_from_ascii__rejects_cycles_and_bad_fixtures() -> None:
    for rows in (["S.", ".T"], ["S#T"], ["SAA.T"], ["S.X.T"], ["S..."], ["S.", "T"]):
        with pytest.raises(StateError):
            from_ascii(rows)


# --------------------------------------------------------------------------- rules (answer)


def test_replay__feasible_length_is_path_moves() -> None:
    state = from_ascii(TEN)
    solution = solve(state)
    assert solution is not None
    assert replay(state, solution.answer) == Replay(True, solution.optimal_length)
    assert replay(from_ascii(FORK), ("A",)) == Replay(True, 3)


def test_replay__wrong_label() -> None:
    state = from_ascii(FORK)  # truth: ("A",); B hangs off the path
    assert replay(state, ("B",)) == Replay(False, 1, "wrong_label", 0)
    assert replay(state, ("A", "B")) == Replay(False, 2, "wrong_label", 1)
    ten = from_ascii(TEN)
    truth = solve(ten).answer
    assert replay(ten, (truth[0], truth[0])).error == "wrong_label"
    assert replay(ten, tuple(reversed(truth))) == Replay(False, len(truth), "wrong_label", 0)


def test_replay__not_solved_for_a_strict_prefix() -> None:
    ten = from_ascii(TEN)
    truth = solve(ten).answer
    assert len(truth) >= 2
    assert replay(ten, truth[:1]) == Replay(False, 1, "not_solved", 1)
    assert replay(from_ascii(FORK), ()) == Replay(False, 0, "not_solved", 0)


def test_replay__unknown_letter_is_unknown_action() -> None:
    assert replay(from_ascii(FORK), ("Z",)).error == "unknown_action"
    assert replay(from_ascii(FORK), ("AB",)).error == "unknown_action"
    assert replay(from_ascii(FORK), (["A"],)).error == "unknown_action"  # type: ignore[arg-type]
    with pytest.raises(AnswerError) as info:
        parse_answer("<answer>A,F</answer>")
    assert info.value.code == "unknown_action"


def test_replay__empty_answer_when_no_label_on_path() -> None:
    state = from_ascii(["S.T", "#A#"])
    assert solve(state).answer == ()
    assert replay(state, parse_answer("<answer></answer>")) == Replay(True, 2)
    assert replay(state, ("A",)) == Replay(False, 1, "wrong_label", 0)


# --------------------------------------------------------------------------- rules (marker)

R, L, U, D = (PathStep(move) for move in ("right", "left", "up", "down"))


def test_apply_step__out_of_bounds() -> None:
    state = from_ascii(FORK)
    assert apply_step(state, U) == Illegal("out_of_bounds", 0)
    assert apply_step(state, L) == Illegal("out_of_bounds", 0)


def test_apply_step__wall() -> None:
    state = from_ascii(FORK)
    assert apply_step(state, D) == Illegal("wall", 0)
    moved = apply_step(state, R)
    assert moved.position == (0, 1)
    assert apply_step(moved, D) == Illegal("wall", 0)
    assert apply_step(state, PathStep("north")) == Illegal("unknown_action", 0)  # type: ignore[arg-type]
    assert apply_step(state, "right") == Illegal("unknown_action", 0)  # a bare direction is no step


def test_apply_step__declarations_must_follow_the_on_path_letters() -> None:
    state = from_ascii(FORK)  # on-path letters: A
    declared = apply_step(state, PathStep("right", ("A",)))
    assert declared.declared == ("A",) and declared.position == (0, 1)
    early = apply_step(state, R)  # onto A without declaring it
    assert apply_step(early, PathStep("right", ("A",))).declared == ("A",)  # declared late: still a prefix
    assert apply_step(state, PathStep("right", ("B",))) == Illegal("wrong_label", 0)  # off the path
    assert apply_step(declared, PathStep("right", ("A",))) == Illegal("wrong_label", 0)  # declared twice


def test_is_goal__needs_the_destination_and_every_letter_declared() -> None:
    state = from_ascii(FORK)
    silent = apply_step(apply_step(apply_step(state, R), R), R)
    assert silent.position == state.end and not is_goal(silent)
    spoken = apply_step(apply_step(apply_step(state, PathStep("right", ("A",))), R), R)
    assert is_goal(spoken)
    back = apply_step(apply_step(state, R), L)
    assert back.position is None and back.declared == ()  # back at the start: position None again


def test_replay_walk__a_walk_that_stops_short_is_never_feasible() -> None:
    state = from_ascii(FORK)
    # One correct step onto the only on-path label (declared), then nothing: every letter is right,
    # but the marker never reaches the destination.
    short = (PathStep("right", ("A",)),)
    assert replay(state, short) == Replay(False, 1, "not_solved", 1)
    verdict = replay(state, parse_answer(format_answer(short)))
    assert not verdict.feasible
    illegal = (PathStep("right", ("A",)), PathStep("up"))
    assert replay(state, illegal) == Replay(False, 2, "out_of_bounds", 1)
    full = (PathStep("right", ("A",)), R, R)
    assert replay(state, full) == Replay(True, 3)
    assert replay(state, (R, R, R)) == Replay(False, 3, "not_solved", 3)  # arrived, A never declared
    detour = (PathStep("right", ("A",)), R, D, U, R)  # into the side road and back: feasible, 2 moves longer
    assert replay(state, detour) == Replay(True, 5)
    assert replay(state, (R, PathStep("right", ("B",)))) == Replay(False, 2, "wrong_label", 1)


def test_answer_steps__walk_the_route_declaring_its_letters() -> None:
    state = from_ascii(FORK)
    walk = answer_steps(state, ("A",))
    assert walk == (PathStep("right", ("A",)), R, R)
    assert answer_steps(state, walk) == walk
    with pytest.raises(ValueError, match="not the on-path letters"):
        answer_steps(state, ("B",))


def test_trajectory__marker_walks_the_true_path_whatever_the_answer() -> None:
    state = from_ascii(FORK)
    for answer in (("A",), ("B", "C"), ()):
        states = trajectory(state, answer)
        assert [s.position for s in states] == [(0, 1), (0, 2), (0, 3)]
        assert [s.declared for s in states] == [("A",), ("A",), ("A",)]
        assert is_goal(states[-1])


# --------------------------------------------------------------------------- solver


def random_tree_state(rng: np.random.Generator) -> PathState:
    """A random map built independently of the generator: a spanning-tree road, random marks."""
    is_road = grids.grow_tree(rng, [int(rng.integers(100))], int(rng.integers(10, 101)))
    grid = tuple("".join("." if is_road[r * 10 + c] else "#" for c in range(10)) for r in range(10))
    cells = [(r, c) for r in range(10) for c in range(10) if grid[r][c] == "."]
    picks = rng.choice(len(cells), size=min(7, len(cells)), replace=False)
    marks = [cells[int(i)] for i in picks]
    letters = "".join(rng.permutation(list("ABCDE")))
    labels = tuple(sorted(zip(letters, marks[2:])))
    return PathState(grid, marks[0], marks[1], labels)


def test_solve__agrees_with_brute_force_dfs() -> None:
    rng = np.random.default_rng(11)
    states = [from_ascii(TEN), from_ascii(FORK)] + [random_tree_state(rng) for _ in range(60)]
    for state in states:
        routes = brute_route_letters(state)
        assert len(routes) == 1
        letters, moves = routes[0]
        solution = solve(state)
        assert solution is not None and solution.answer == letters and solution.optimal_length == moves
        assert replay(state, letters) == Replay(True, moves)


def test_solve__hand_made() -> None:
    # S -> (0,1) -> down to row 2 -> C -> down column 3 -> D -> down column 5 -> along row 7 -> T;
    # A, B and E hang on side roads.
    assert solve(from_ascii(TEN)) == Solution(("C", "D"), 16)
    assert solve(PathState(("S#T",), (0, 0), (0, 2), ())) is None


# --------------------------------------------------------------------------- generator


@pytest.mark.parametrize("difficulty", list(BUCKETS))
def test_generate__optimum_in_bucket_and_invariants(generated, difficulty: str) -> None:
    low, high = BUCKETS[difficulty]
    for state in generated[difficulty]:
        solution = solve(state)
        assert solution is not None and low <= solution.optimal_length <= high
        routes = brute_route_letters(state)
        assert routes == [(solution.answer, solution.optimal_length)]  # unique simple path
        assert replay(state, solution.answer) == Replay(True, solution.optimal_length)
        assert [letter for letter, _ in state.labels] == list("ABCDE")
        cells = [cell for _, cell in state.labels]
        assert len(set(cells)) == 5 and state.start not in cells and state.end not in cells
        assert all(state.grid[r][c] == "." for r, c in cells)
        assert 1 <= len(solution.answer) <= 4  # at least one label on and one off the path
        assert from_json(to_json(state)) == state  # includes the tree check
        states = trajectory(state, solution.answer)
        assert len(states) == solution.optimal_length and is_goal(states[-1])
        cells = [state.start] + [s.position for s in states]
        walk = answer_steps(state, solution.answer)
        assert [step.move for step in walk] == moves_of(cells)
        assert tuple(letter for step in walk for letter in step.hit_labels) == solution.answer
        assert replay(state, walk) == Replay(True, solution.optimal_length)
        final = state
        for step in walk:
            final = apply_step(final, step)
        assert final == states[-1]


def test_generate__no_shortcuts() -> None:
    states = [  # rows as a build makes them: slot i of each bucket
        generate(d, np.random.default_rng(200 + i), SPEC.slot(d, i))
        for d in ("medium", "hard")
        for i in range(40)
    ]
    answers = [solve(s).answer for s in states]
    assert Counter(answers).most_common(1)[0][1] <= 4
    multi = [a for a in answers if len(a) >= 2]
    assert any(list(a) != sorted(a) for a in multi) and any(list(a) == sorted(a) for a in multi)
    assert Counter(len(a) for a in answers).most_common(1)[0][1] <= 0.6 * len(answers)
    assert len({s.start for s in states}) >= 30 and len({s.end for s in states}) >= 30
    assert len({solve(s).optimal_length for s in states[40:]}) >= 6


# --------------------------------------------------------------------------- render


def _template(letter: str) -> set[tuple[int, int]]:
    """Pixel offsets (within a cell) covered by ``letter``, drawn here independently."""
    mask = Image.new("L", (GEOMETRY.cell_px,) * 2, 0)
    half = GEOMETRY.cell_px // 2
    ImageDraw.Draw(mask).text(
        (half, half), letter, font=font(LETTER_PX), fill=255, anchor="mm", stroke_width=1, stroke_fill=255
    )
    return {(x, y) for x in range(mask.width) for y in range(mask.height) if mask.getpixel((x, y)) >= 128}


TEMPLATES = {letter: _template(letter) for letter in "ABCDE"}


def decode(image: Image.Image) -> tuple[tuple[str, ...], tuple[int, int], tuple[int, int], tuple]:
    """Rebuild (grid, marker cell, destination, labels) from the palette, cell by cell."""
    pixels = image.load()
    array = np.asarray(image)
    geometry = GEOMETRY
    grid, here, end, labels = [], None, None, []
    for r in range(10):
        row = ""
        for c in range(10):
            x0, y0, x1, y1 = geometry.cell_box((r, c))
            corner = pixels[x0 + 2, y0 + 2]  # never covered by a mark
            assert corner in (WALL_RGB, ROAD_RGB), (r, c, corner)
            row += "#" if corner == WALL_RGB else "."
            if corner == WALL_RGB:
                continue
            cell = array[y0 : y1 + 1, x0 : x1 + 1].astype(int)
            if (cell == START_RGB).all(axis=2).sum() > 50:  # the orange marker triangle
                assert here is None
                here = (r, c)
            if pixels[x0 + 8, y1 - 5] == END_RGB:  # a base corner of the blue triangle
                end = (r, c)
            ys, xs = np.nonzero(cell.sum(axis=2) < 3 * 105)  # black letter ink, on road or marker
            ink = set(zip(xs.tolist(), ys.tolist()))
            if ink:
                scores = {k: len(ink & t) / len(ink | t) for k, t in TEMPLATES.items()}
                best = max(scores, key=scores.__getitem__)
                assert scores[best] > 0.8, scores
                labels.append((best, (r, c)))
        grid.append(row)
    assert here is not None and end is not None
    return tuple(grid), here, end, tuple(sorted(labels))


def test_render__decodes_back_to_state_and_the_marker_is_the_start_triangle(generated) -> None:
    for states in generated.values():
        for state in states:
            image = render(state)
            assert image.mode == "RGB" and image.size == GEOMETRY.size == (552, 552)
            assert decode(image) == (state.grid, state.start, state.end, state.labels)
            for step_state in trajectory(state, ()):
                assert decode(render(step_state)) == (state.grid, step_state.position, state.end, state.labels)
    state = from_ascii(TEN)
    on_letter = state
    for step in (R, D, D, R):  # onto C at (2, 2): the letter is drawn over the marker
        on_letter = apply_step(on_letter, step)
    assert decode(render(on_letter)) == (state.grid, (2, 2), state.end, state.labels)


def test_render__pure_and_frame() -> None:
    state = from_ascii(TEN)
    image = render(state)
    assert image.tobytes() == render(state).tobytes()
    assert image.getpixel((2, 2)) == FRAME_RGB
    x0, y0, _, _ = GEOMETRY.cell_box((0, 1))
    assert image.getpixel((x0, y0 + 2)) == ROAD_RGB  # no grid lines


# --------------------------------------------------------------------------- answers


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("<answer>A,C</answer>", ("A", "C")),
        ("The route meets c then a. <ANSWER> c , a </ANSWER>", ("C", "A")),
        ("<Answer>['B', 'E',]</Answer>", ("B", "E")),
        ('<answer>["D","A"]</answer>', ("D", "A")),
        ("<answer>\n```\nA, B\n```\n</answer>", ("A", "B")),
        ("<answer>A -> B -> C</answer>", ("A", "B", "C")),
        ("<answer>E</answer> no wait <answer>D,E</answer>", ("D", "E")),
        ("<answer></answer>", ()),
        ("<answer>  </answer>", ()),
        ("<answer>A;B</answer>", ("A", "B")),
    ],
)
def test_parse_answer__tolerant(text: str, expected: tuple[str, ...]) -> None:
    assert parse_answer(text) == expected


@pytest.mark.parametrize(
    ("text", "code"),
    [
        ("A,C", "no_answer"),
        ("<answer>A,C", "no_answer"),
        ("<answer>" + "A," * 101 + "</answer>", "bad_format"),
        ("<answer>" + " " * 20_000 + "</answer>", "bad_format"),
        ("<answer>A,F</answer>", "unknown_action"),
        ("<answer>AC</answer>", "unknown_action"),
        ("<answer>none</answer>", "unknown_action"),
        ("<answer>1</answer>", "unknown_action"),
    ],
)
def test_parse_answer__errors(text: str, code: str) -> None:
    with pytest.raises(AnswerError) as info:
        parse_answer(text)
    assert info.value.code == code


def test_format_answer__round_trips() -> None:
    for answer in (("A", "C"), ("E",), ()):
        assert parse_answer(format_answer(answer)) == answer
    assert format_answer(("A", "C")) == "<answer>A,C</answer>"
    assert answer_payload(("A", "C")) == '["A","C"]'


def test_step_format__is_the_papers_step_json_with_hit_labels() -> None:
    step = parse_step('Going on. <STEP_JSON>{"move": "Up", "hit_labels": ["c"]}</STEP_JSON>')
    assert step == PathStep("up", ("C",))
    assert format_step(step) == '<STEP_JSON>{"move":"up","hit_labels":["C"]}</STEP_JSON>'
    assert parse_step('<STEP_JSON>{"move":"left"}</STEP_JSON>') == PathStep("left")
    for text, code in [
        ("up", "no_answer"),
        ('<STEP_JSON>{"move":"north","hit_labels":[]}</STEP_JSON>', "unknown_action"),
        ('<STEP_JSON>{"move":"up","hit_labels":"A"}</STEP_JSON>', "bad_format"),
        ('<STEP_JSON>{"move":"up","hit_labels":["Z"]}</STEP_JSON>', "unknown_action"),
    ]:
        with pytest.raises(AnswerError) as info:
            parse_step(text)
        assert info.value.code == code


def test_parse_answer__a_walk_without_answer_tags_and_letters_win_over_steps() -> None:
    walk = (PathStep("right", ("A",)), PathStep("right"))
    text = format_answer(walk)
    assert "<answer>" not in text and parse_answer(text) == walk
    assert parse_answer(text + "\n<answer>A</answer>") == ("A",)
    with pytest.raises(AnswerError) as info:
        parse_answer(format_step(PathStep("up")) * 1001)
    assert info.value.code == "bad_format"
    began = time.perf_counter()
    with pytest.raises(AnswerError):
        parse_answer("<STEP_JSON>" * 300_000)  # no closing tag: one scan, then no answer
    assert time.perf_counter() - began < 2.0


# --------------------------------------------------------------------------- prompts, baseline, spec


def test_question__carries_table_14_and_no_leak(generated) -> None:
    state = generated["hard"][0]
    truth = ",".join(solve(state).answer)
    for style in ("text_cot", "direct"):
        text = SPEC.question(state, style)
        assert "<answer>A,C</answer>" in text and "simple path" in text and "orange triangle" in text
        assert "tree" not in text and "shortest" not in text
        if len(truth) > 3:
            assert truth not in text
    assert "Reason briefly" in SPEC.question(state, "text_cot")
    assert "Reason" not in SPEC.question(state, "direct")
    with pytest.raises(ValueError):
        SPEC.question(state, "verbose")  # type: ignore[arg-type]


def test_random_answer__letters_and_deterministic(generated) -> None:
    state = generated["medium"][0]
    first = random_answer(state, np.random.default_rng(5))
    assert first == random_answer(state, np.random.default_rng(5))
    assert 1 <= len(first) <= 5 and len(set(first)) == len(first) and set(first) <= set("ABCDE")
    assert parse_answer(format_answer(first)) == first


def test_spec__declares_every_capability() -> None:
    """Cell decoding, the drawn solution, the authors' records, structure statistics."""
    # the red route declares the letters; an episode walks the marker
    assert SPEC.fidelity and SPEC.fidelity.perturb and SPEC.vr and SPEC.paper and SPEC.structure
    assert SPEC.vr.route_answer is not None and SPEC.episode_steps is not None


def test_buckets__are_spec_section_2s() -> None:
    """The optimal-length ranges of docs/contract/families.md (``check_family`` checks that ``bucket_of`` follows them)."""
    assert dict(SPEC.buckets) == {"easy": (2, 5), "medium": (8, 14), "hard": (18, 25)}


def test_structure__the_authors_figures_leave_out_only_the_road() -> None:
    """Their path records hold no walls (those are only in the images), so their means have no road count."""
    keys = {stat.key for stat in SPEC.structure.statistics}
    assert all(keys - set(means) == {"road"} for means in SPEC.structure.authors.values())
