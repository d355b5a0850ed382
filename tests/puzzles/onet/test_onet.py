"""Tests for the onet family: rules, solver, generator, renderer, answers."""

from __future__ import annotations

import itertools
import json
from collections import deque

import numpy as np
import pytest

from vgau_data.errors import GenerationError, StateError
from vgau_data.puzzles.base import AnswerError, Illegal
from vgau_data.puzzles.onet import SPEC
from vgau_data.puzzles.onet import render as onet_render
from vgau_data.puzzles.onet.answers import answer_payload, format_answer, format_step, parse_answer, parse_step
from vgau_data.puzzles.onet.generator import BUCKETS, generate
from vgau_data.puzzles.onet.render import render
from vgau_data.puzzles.onet.rules import apply_step, is_goal, replay
from vgau_data.puzzles.onet.solver import random_answer, solve
from vgau_data.puzzles.onet.state import FRUIT_LETTERS, FRUITS, OnetState, from_ascii, from_json, to_ascii, to_json

EMPTY_ROWS = ["......"] * 6

# A(0,0)-(0,5) joins only by a route around the outside of the board (row -1).
OUTSIDE_ONLY_FIRST = (
    "ACDDCA",
    "B.....",
    "B.....",
    "......",
    "......",
    "......",
)
# Solvable when routes may leave the board, unsolvable inside it (found by search).
SOLVABLE_ONLY_OUTSIDE = (
    "......",
    "...C..",
    ".ANA..",
    "U.VB..",
    ".B.N..",
    "..CU.V",
)
CROSS_LOCK = (
    "AB....",
    "BA....",
    "......",
    "......",
    "......",
    "......",
)
# A (0,0)-(2,3) needs the G pair gone, then runs down column 1 and along row 2 (two turns).
TWO_TURNS = (
    "A.B...",
    "BGG...",
    "...A..",
    "......",
    "......",
    "......",
)

# --------------------------------------------------------------------------- brute force (independent)

_DIRS = ((-1, 0), (1, 0), (0, -1), (0, 1))


def bf_connect(board, a, b, outside=False):
    """BFS over (cell, direction) with at most two turns; ``outside`` lets routes use a 1-cell frame."""
    n = len(board)
    lo, hi = (-1, n) if outside else (0, n - 1)

    def free(r, c):
        if (r, c) == b:
            return True
        if 0 <= r < n and 0 <= c < n:
            return board[r][c] is None
        return outside and lo <= r <= hi and lo <= c <= hi

    seen = {}
    queue = deque((a[0], a[1], d, 0) for d in range(4))
    while queue:
        r, c, d, turns = queue.popleft()
        for nd, (dr, dc) in enumerate(_DIRS):
            nt = turns + (nd != d)
            nr, nc = r + dr, c + dc
            if nt > 2 or not free(nr, nc):
                continue
            if (nr, nc) == b:
                return True
            if seen.get((nr, nc, nd), 9) <= nt:
                continue
            seen[(nr, nc, nd)] = nt
            queue.append((nr, nc, nd, nt))
    return False


def bf_pairs(board):
    where = {}
    for r, row in enumerate(board):
        for c, fruit in enumerate(row):
            if fruit is not None:
                where.setdefault(fruit, []).append((r, c))
    return where


def bf_shortest(state, outside=False):
    """Exhaustive BFS over sets of remaining fruits: fewest steps to clear, or None."""
    pairs = bf_pairs(state.board)
    start = frozenset(pairs)
    dist = {start: 0}
    queue = deque([start])
    while queue:
        left = queue.popleft()
        if not left:
            return dist[left]
        board = [[None] * 6 for _ in range(6)]
        for fruit in left:
            for r, c in pairs[fruit]:
                board[r][c] = fruit
        for fruit in sorted(left):
            a, b = pairs[fruit]
            if bf_connect(board, a, b, outside):
                nxt = left - {fruit}
                if nxt not in dist:
                    dist[nxt] = dist[left] + 1
                    queue.append(nxt)
    return None


def bf_clearable(state):
    """Exhaustive depth-first search over removal orders (dead sets memoised): can it be cleared?"""
    pairs = bf_pairs(state.board)
    dead = set()

    def search(left):
        if not left:
            return True
        if left in dead:
            return False
        board = [[None] * 6 for _ in range(6)]
        for fruit in left:
            for r, c in pairs[fruit]:
                board[r][c] = fruit
        for fruit in sorted(left):
            if bf_connect(board, *pairs[fruit]) and search(left - {fruit}):
                return True
        dead.add(left)
        return False

    return search(frozenset(pairs))


def random_board(rng, n_pairs):
    cells = rng.choice(36, size=2 * n_pairs, replace=False).tolist()
    fruits = rng.choice(len(FRUITS), size=n_pairs, replace=False).tolist()
    flat = [None] * 36
    for k, fruit in enumerate(fruits):
        flat[cells[2 * k]] = flat[cells[2 * k + 1]] = FRUITS[fruit]
    return OnetState(tuple(tuple(flat[r * 6 : r * 6 + 6]) for r in range(6)))


def gen(difficulty, seed):
    return generate(difficulty, np.random.default_rng(seed))


# --------------------------------------------------------------------------- state (de)serialisation


def test_json__round_trip():
    for state in (from_ascii(OUTSIDE_ONLY_FIRST), gen("hard", 3), from_ascii(EMPTY_ROWS)):
        text = to_json(state)
        assert from_json(text) == state
        assert json.loads(text)["size"] == 6
        assert to_json(from_json(text)) == text


def test_json__schema_matches_spec():
    data = json.loads(to_json(from_ascii(OUTSIDE_ONLY_FIRST)))
    assert set(data) == {"size", "board"}
    assert data["board"][0] == ["apple", "cherry", "dragonfruit", "dragonfruit", "cherry", "apple"]
    assert data["board"][5] == [None] * 6


def _board_json(board, size=6, **extra):
    return json.dumps({"size": size, "board": board, **extra})


GOOD_BOARD = [["apple", "apple", None, None, None, None]] + [[None] * 6 for _ in range(5)]


@pytest.mark.parametrize(
    "text",
    [
        "",
        "not json",
        "[]",
        "null",
        json.dumps({"board": GOOD_BOARD}),
        _board_json(GOOD_BOARD, size=7),
        _board_json(GOOD_BOARD, size=True),
        _board_json(GOOD_BOARD, size="6"),
        _board_json(GOOD_BOARD, extra=1),
        _board_json(GOOD_BOARD[:5]),
        _board_json([*GOOD_BOARD[:5], [None] * 5]),
        _board_json([*GOOD_BOARD[:5], "......"]),
        _board_json([["apple", "mango", None, None, None, None], *GOOD_BOARD[1:]]),
        _board_json([["apple", 3, None, None, None, None], *GOOD_BOARD[1:]]),
        _board_json([["apple", None, None, None, None, None], *GOOD_BOARD[1:]]),
        _board_json([["apple", "apple", "apple", None, None, None], *GOOD_BOARD[1:]]),
        _board_json([["apple", "apple", "Apple", "Apple", None, None], *GOOD_BOARD[1:]]),
        _board_json({"0": GOOD_BOARD[0]}),
        "[" * 100_000,
    ],
)
def test_json__rejects_malformed(text):
    with pytest.raises(StateError):
        from_json(text)


def test_ascii__round_trip_and_errors():
    state = from_ascii(SOLVABLE_ONLY_OUTSIDE)
    assert to_ascii(state) == list(SOLVABLE_ONLY_OUTSIDE)
    assert from_ascii("\n".join(SOLVABLE_ONLY_OUTSIDE)) == state
    with pytest.raises(StateError):
        from_ascii(["AX....", *EMPTY_ROWS[1:]])  # unknown letter
    with pytest.raises(StateError):
        from_ascii(["A.....", *EMPTY_ROWS[1:]])  # odd count
    with pytest.raises(StateError):
        from_ascii(EMPTY_ROWS[:5])


def test_fruits__at_least_sixteen_distinct_kinds():
    assert len(set(FRUITS)) == len(FRUITS) >= 16
    assert len(set(FRUIT_LETTERS.values())) == len(FRUITS)
    assert set(onet_render.FRUIT_DRAWINGS) == set(FRUITS)


# --------------------------------------------------------------------------- rules


def test_apply_step__removes_pair():
    state = from_ascii(OUTSIDE_ONLY_FIRST)
    after = apply_step(state, ((0, 3), (0, 2)))
    assert to_ascii(after)[0] == "AC..CA"
    assert to_ascii(after)[1:] == list(OUTSIDE_ONLY_FIRST[1:])


def test_apply_step__two_turn_route():
    state = from_ascii(TWO_TURNS)
    assert apply_step(state, ((0, 0), (2, 3))).code == "not_connectable"
    state = apply_step(state, ((1, 1), (1, 2)))
    assert not isinstance(state, Illegal)
    state = apply_step(state, ((2, 3), (0, 0)))
    assert not isinstance(state, Illegal)
    assert replay(state, [((0, 2), (1, 0))]).feasible


def _code(rows, step):
    result = apply_step(from_ascii(rows), step)
    assert isinstance(result, Illegal)
    replayed = replay(from_ascii(rows), [step])
    assert replayed.error == result.code and replayed.first_invalid_step == 0 and not replayed.feasible
    return result.code


@pytest.mark.parametrize("step", [((0, 0), (6, 0)), ((-1, 0), (0, 0)), ((0, 6), (0, 5)), ((0, 0), (0, 10**20))])
def test_illegal__out_of_bounds(step):
    assert _code(OUTSIDE_ONLY_FIRST, step) == "out_of_bounds"


def test_illegal__same_cell():
    assert _code(OUTSIDE_ONLY_FIRST, ((0, 2), (0, 2))) == "same_cell"


def test_illegal__empty_cell():
    assert _code(OUTSIDE_ONLY_FIRST, ((0, 2), (3, 3))) == "empty_cell"
    assert _code(OUTSIDE_ONLY_FIRST, ((4, 4), (3, 3))) == "empty_cell"


def test_illegal__empty_cell_after_clearing():
    state = from_ascii(OUTSIDE_ONLY_FIRST)
    result = replay(state, [((0, 2), (0, 3)), ((0, 2), (0, 3))])
    assert (result.error, result.first_invalid_step) == ("empty_cell", 1)


def test_illegal__not_identical():
    assert _code(OUTSIDE_ONLY_FIRST, ((0, 0), (0, 1))) == "not_identical"
    assert _code(OUTSIDE_ONLY_FIRST, ((0, 2), (1, 0))) == "not_identical"


def test_illegal__not_connectable_paths_stay_inside_board():
    state = from_ascii(OUTSIDE_ONLY_FIRST)
    assert bf_connect(state.board, (0, 0), (0, 5), outside=True)
    assert not bf_connect(state.board, (0, 0), (0, 5), outside=False)
    assert _code(OUTSIDE_ONLY_FIRST, ((0, 0), (0, 5))) == "not_connectable"


def test_illegal__not_connectable_three_turns():
    # B (0,1)-(1,0) around the A cross needs three turns.
    assert _code(CROSS_LOCK, ((0, 1), (1, 0))) == "not_connectable"
    assert _code(CROSS_LOCK, ((0, 0), (1, 1))) == "not_connectable"


def test_illegal__not_solved():
    state = from_ascii(OUTSIDE_ONLY_FIRST)
    assert replay(state, []) == replay(state, ()) and replay(state, []).error == "not_solved"
    result = replay(state, [((0, 2), (0, 3))])
    assert (result.feasible, result.error, result.first_invalid_step, result.length) == (False, "not_solved", 1, 1)


def test_connectable__matches_bfs_on_random_boards():
    rng = np.random.default_rng(7)
    checked = 0
    for _ in range(150):
        state = random_board(rng, int(rng.integers(4, 17)))
        for fruit, (a, b) in bf_pairs(state.board).items():
            result = apply_step(state, (a, b))
            expected = bf_connect(state.board, a, b)
            assert (not isinstance(result, Illegal)) == expected, (to_ascii(state), fruit)
            if isinstance(result, Illegal):
                assert result.code == "not_connectable"
            checked += 1
    assert checked > 1000


def test_replay__agrees_with_apply_step_on_random_answers():
    rng = np.random.default_rng(11)
    for _ in range(60):
        state = random_board(rng, int(rng.integers(4, 13)))
        answer = random_answer(state, rng)
        if rng.integers(2):
            answer = answer + (((int(rng.integers(-1, 7)), int(rng.integers(-1, 7))), (0, 0)),)
        result = replay(state, answer)
        current = state
        for index, step in enumerate(answer):
            nxt = apply_step(current, step)
            if isinstance(nxt, Illegal):
                assert (result.error, result.first_invalid_step) == (nxt.code, index)
                break
            current = nxt
        else:
            assert result.feasible == is_goal(current)


def test_is_goal__empty_board_only():
    assert is_goal(from_ascii(EMPTY_ROWS))
    assert not is_goal(from_ascii(CROSS_LOCK))


# --------------------------------------------------------------------------- solver


@pytest.mark.parametrize("rows", [OUTSIDE_ONLY_FIRST, TWO_TURNS, CROSS_LOCK, SOLVABLE_ONLY_OUTSIDE, EMPTY_ROWS])
def test_solve__agrees_with_brute_force_on_fixtures(rows):
    state = from_ascii(rows)
    expected = bf_shortest(state)
    solution = solve(state)
    if expected is None:
        assert solution is None
    else:
        assert solution.optimal_length == expected == len(bf_pairs(state.board))
        assert replay(state, solution.answer).feasible


def test_solve__edge_rule_matters():
    state = from_ascii(SOLVABLE_ONLY_OUTSIDE)
    assert bf_shortest(state, outside=True) == 6
    assert bf_shortest(state) is None
    assert solve(state) is None


def test_solve__agrees_with_brute_force_on_random_and_generated():
    rng = np.random.default_rng(3)
    states = [random_board(rng, int(rng.integers(4, 12))) for _ in range(30)]
    states += [gen("easy", seed) for seed in range(6)] + [gen("medium", seed) for seed in range(2)]
    outcomes = set()
    for state in states:
        expected = bf_shortest(state)
        solution = solve(state)
        outcomes.add(expected is None)
        if expected is None:
            assert solution is None, to_ascii(state)
        else:
            assert solution is not None and solution.optimal_length == expected
            assert len(solution.answer) == expected
            assert replay(state, solution.answer).feasible
    assert outcomes == {False}


def test_solve__agrees_with_exhaustive_search_on_dense_boards():
    rng = np.random.default_rng(5)
    outcomes = []
    for _ in range(30):
        state = random_board(rng, int(rng.integers(12, 18)))
        solution = solve(state)
        outcomes.append(bf_clearable(state))
        assert (solution is not None) == outcomes[-1], to_ascii(state)
        if solution is not None:
            assert solution.optimal_length == len(bf_pairs(state.board))
            assert replay(state, solution.answer).feasible
    assert 5 <= sum(outcomes) <= 25  # both solvable and unsolvable boards were compared


def test_solve__rejects_odd_fruit_counts():
    bad = OnetState((("apple", None, None, None, None, None),) + ((None,) * 6,) * 5)
    with pytest.raises(StateError):
        solve(bad)


# --------------------------------------------------------------------------- generator


@pytest.mark.parametrize("difficulty", ["easy", "medium", "hard"])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_generate__in_bucket_and_replays(difficulty, seed):
    state = gen(difficulty, seed)
    low, high = BUCKETS[difficulty]
    solution = solve(state)
    assert solution is not None and low <= solution.optimal_length <= high
    result = replay(state, solution.answer)
    assert result.feasible and result.length == solution.optimal_length == len(solution.answer)
    states = SPEC.trajectory(state, solution.answer)
    assert len(states) == solution.optimal_length and is_goal(states[-1])
    assert SPEC.bucket_of(solution.optimal_length) == difficulty


@pytest.mark.parametrize("difficulty", ["easy", "medium", "hard"])
def test_generate__invariants(difficulty):
    for seed in range(4):
        state = gen(difficulty, seed)
        from_json(to_json(state))  # full validation: 6x6, known fruits, exactly two each
        pairs = bf_pairs(state.board)
        assert all(len(cells) == 2 for cells in pairs.values())
        # every step of the stored answer connects inside the board (independent checker)
        board = [list(row) for row in state.board]
        for a, b in solve(state).answer:
            assert board[a[0]][a[1]] == board[b[0]][b[1]] is not None
            assert bf_connect(board, a, b, outside=False)
            board[a[0]][a[1]] = board[b[0]][b[1]] = None


def test_generate__varies_fruits_and_positions():
    states = [gen("medium", seed) for seed in range(20)]
    fruit_sets = {frozenset(bf_pairs(state.board)) for state in states}
    assert len(fruit_sets) == 20
    assert set().union(*fruit_sets) == set(FRUITS)
    corner_use = {state.board[0][0] is not None for state in states}
    assert corner_use == {True, False}


def test_generate__no_single_answer_solves_many_rows():
    states = [gen("hard", seed) for seed in range(15)]
    answers = [solve(state).answer for state in states]
    for answer in answers:
        assert sum(replay(state, answer).feasible for state in states) <= 2


def test_generate__bounded_attempts():
    with pytest.raises(GenerationError, match="onet/hard"):
        generate("hard", np.random.default_rng(0), max_attempts=0)


# --------------------------------------------------------------------------- renderer (golden decode)

# Colours at five fixed offsets from each cell centre, per fruit (from the reference render).
SAMPLE_OFFSETS = ((0, 0), (-12, -20), (12, 20), (-20, 12), (20, -12))
FINGERPRINTS = {
    "apple": ((205, 28, 38), (255, 251, 245), (205, 28, 38), (205, 28, 38), (204, 24, 35)),
    "avocado": ((194, 189, 105), (56, 98, 31), (214, 226, 128), (174, 194, 104), (255, 253, 247)),
    "banana": ((255, 255, 255), (255, 253, 247), (255, 253, 247), (255, 253, 246), (201, 153, 9)),
    "blueberry": ((135, 147, 200), (52, 74, 168), (55, 77, 169), (255, 253, 247), (52, 74, 168)),
    "cherry": ((255, 253, 247), (255, 253, 247), (176, 12, 44), (221, 94, 118), (255, 253, 247)),
    "coconut": ((43, 25, 14), (137, 96, 57), (105, 67, 36), (103, 65, 35), (103, 65, 35)),
    "dragonfruit": ((226, 48, 140), (255, 255, 252), (135, 208, 66), (226, 51, 141), (255, 251, 246)),
    "grape": ((109, 45, 148), (70, 12, 106), (255, 253, 247), (255, 253, 247), (118, 52, 160)),
    "kiwi": ((236, 240, 196), (134, 196, 58), (134, 194, 58), (134, 196, 58), (134, 196, 58)),
    "lemon": ((250, 234, 74), (243, 233, 181), (255, 254, 250), (252, 237, 76), (251, 235, 74)),
    "lime": ((230, 244, 200), (159, 211, 82), (231, 244, 205), (190, 225, 133), (215, 237, 176)),
    "orange": ((246, 138, 20), (246, 140, 24), (246, 138, 20), (246, 138, 20), (246, 139, 23)),
    "peach": ((206, 96, 75), (184, 220, 181), (242, 122, 96), (250, 184, 124), (254, 246, 241)),
    "pear": ((176, 204, 58), (255, 253, 247), (176, 204, 58), (180, 207, 69), (255, 253, 247)),
    "pineapple": ((161, 100, 19), (122, 182, 130), (235, 171, 37), (250, 232, 196), (255, 253, 247)),
    "plum": ((120, 23, 77), (255, 255, 253), (128, 26, 82), (129, 29, 84), (253, 250, 245)),
    "strawberry": ((238, 45, 66), (216, 59, 64), (237, 41, 61), (255, 253, 247), (238, 46, 66)),
    "watermelon": ((22, 18, 18), (255, 253, 247), (32, 115, 32), (171, 215, 138), (255, 250, 244)),
}
EMPTY_FINGERPRINT = (onet_render.BACKGROUND,) * len(SAMPLE_OFFSETS)
TOLERANCE = 120  # summed |difference| over the 15 channels; fingerprints differ by > 500


def decode(image):
    pixels = np.asarray(image).astype(int)
    table = {None: EMPTY_FINGERPRINT, **FINGERPRINTS}
    rows = []
    for r in range(6):
        row = []
        for c in range(6):
            x = 16 + c * 88 + 44
            y = 16 + r * 88 + 44
            sample = np.array([pixels[y + dy, x + dx] for dx, dy in SAMPLE_OFFSETS])
            scores = {name: int(np.abs(sample - np.array(fp)).sum()) for name, fp in table.items()}
            best = min(scores, key=scores.get)
            assert scores[best] <= TOLERANCE, ((r, c), scores[best], best)
            row.append(best)
        rows.append(tuple(row))
    return OnetState(tuple(rows))


def test_render__fingerprints_are_distinct():
    assert set(FINGERPRINTS) == set(FRUITS)
    table = {None: EMPTY_FINGERPRINT, **FINGERPRINTS}
    for a, b in itertools.combinations(table, 2):
        assert np.abs(np.array(table[a]) - np.array(table[b])).sum() > 4 * TOLERANCE, (a, b)


def test_render__size_and_mode():
    image = render(gen("easy", 0))
    assert image.mode == "RGB" and image.size == onet_render.GEOMETRY.size == (560, 560)


def test_render__golden_decode_generated():
    for difficulty, seed in (("easy", 0), ("medium", 1), ("hard", 2), ("hard", 5)):
        state = gen(difficulty, seed)
        assert decode(render(state)) == state
        for after in SPEC.trajectory(state, solve(state).answer)[:3]:
            assert decode(render(after)) == after


def test_render__golden_decode_every_fruit_everywhere():
    fruits = list(FRUITS)
    for shift in (0, 7):
        flat = [fruits[(k + shift) % 18] for k in range(36)]
        state = OnetState(tuple(tuple(flat[r * 6 : r * 6 + 6]) for r in range(6)))
        assert decode(render(state)) == state


def test_render__empty_cells_plain_and_deterministic():
    state = from_ascii(EMPTY_ROWS)
    pixels = np.asarray(render(state))
    assert (pixels == np.array(onet_render.BACKGROUND, dtype=np.uint8)).all()
    state = gen("hard", 9)
    assert render(state).tobytes() == render(state).tobytes()


def test_render__tiles_stay_inside_cells():
    state = gen("hard", 4)
    pixels = np.asarray(render(state)).astype(int)
    for k in range(7):  # cell boundaries carry the background (tiles are inset)
        edge = 16 + k * 88 - (1 if k == 6 else 0)
        assert (pixels[edge, :] == onet_render.BACKGROUND).all()
        assert (pixels[:, edge] == onet_render.BACKGROUND).all()


# --------------------------------------------------------------------------- answers

ANSWER = (((0, 0), (0, 2)), ((1, 0), (3, 0)))


@pytest.mark.parametrize(
    "text",
    [
        "<answer_json>[[[0,0],[0,2]],[[1,0],[3,0]]]</answer_json>",
        "Let me think.\nThe pairs are...\n<ANSWER_JSON> [[[0, 0], [0, 2]], [[1, 0], [3, 0]]] </ANSWER_JSON>\nDone.",
        "<Answer_Json>\n```json\n[[[0,0],[0,2]],[[1,0],[3,0]]]\n```\n</Answer_Json>",
        "<answer_json>[[[0,0],[0,2],],[[1,0],[3,0],],]</answer_json>",
        "Answer: <answer_json>\n[\n  [[0,0], [0,2]],\n  [[1,0], [3,0]]\n]\n</answer_json>",
        "<answer_json>[[[9,9],[9,9]]]</answer_json> no wait <answer_json>[[[0,0],[0,2]],[[1,0],[3,0]]]</answer_json>",
        "```\n<answer_json>[[[0,0],[0,2]],\n [[1,0],[3,0]]]</answer_json>\n```",
        "<answer_json>((( 0,0),(0,2)),((1,0),(3,0)))</answer_json>".replace("(", "[").replace(")", "]"),
        "<answer_json>[[(0, 0), (0, 2)], [(1, 0), (3, 0)]]</answer_json>",
        "<answer_json>[((0,0),(0,2)), ((1,0),(3,0)),]</answer_json>",
    ],
)
def test_parse__tolerant(text):
    assert parse_answer(text) == ANSWER


def test_parse__empty_list_is_zero_steps():
    assert parse_answer("<answer_json>[]</answer_json>") == ()
    assert replay(gen("easy", 0), ()).error == "not_solved"


def test_parse__round_trip():
    for seed in range(3):
        answer = solve(gen("hard", seed)).answer
        assert parse_answer(format_answer(answer)) == answer
        assert json.loads(answer_payload(answer)) == [[list(a), list(b)] for a, b in answer]
    assert format_answer(ANSWER) == "<answer_json>" + answer_payload(ANSWER) + "</answer_json>"


@pytest.mark.parametrize(
    "text",
    [
        "",
        "no tags here [[[0,0],[0,1]]]",
        "<answer_json>[[[0,0],[0,1]]]",
        "[[[0,0],[0,1]]]</answer_json>",
        "<answer>[[[0,0],[0,1]]]</answer>",
    ],
)
def test_parse__no_answer(text):
    with pytest.raises(AnswerError) as info:
        parse_answer(text)
    assert info.value.code == "no_answer"


@pytest.mark.parametrize(
    "payload",
    [
        "",
        "hello",
        "{}",
        '{"a": 1}',
        "[1, 2]",
        "[[0,0],[0,1]]",
        "[[[0,0]]]",
        "[[[0,0],[0,1],[0,2]]]",
        "[[[0,0,1],[0,1]]]",
        "[[[0],[0,1]]]",
        "[[[0.5,0],[0,1]]]",
        "[[[true,0],[0,1]]]",
        "[[['0','0'],[0,1]]]",
        "[[[null,0],[0,1]]]",
        "[[[0,0],[0,1]]",
        "[" * 100_000,
        "[" * 100_000 + "]" * 100_000,
        "[[[" + "9" * 5000 + ",0],[0,1]]]",
        "[[[0,0],[0,1]]" + ",[[0,0],[0,1]]" * 1500 + "]",
        "[" + "x" * 10_000_000 + "]",
        "[[[0,0],[0,1]] [[1,1],[1,2]]]",
    ],
)
def test_parse__bad_format(payload):
    with pytest.raises(AnswerError) as info:
        parse_answer(f"<answer_json>{payload}</answer_json>")
    assert info.value.code == "bad_format"


@pytest.mark.parametrize("payload", ["[[[0,0],[0,1]]]]]]", "[\x00[[0,0],[0,1]]]\ud800", "[[[0,0],[0,1]]] trailing"])
def test_parse__junk_after_a_complete_list_is_ignored(payload):
    assert parse_answer(f"<answer_json>{payload}</answer_json>") == (((0, 0), (0, 1)),)


# --------------------------------------------------------------------------- prompts and baselines


@pytest.mark.parametrize("style", ["text_cot", "direct"])
def test_question__carries_table_16_without_leaking(style):
    state = gen("hard", 0)
    text = SPEC.question(state, style)
    assert "<answer_json>[[[r1,c1],[r2,c2]],[[r3,c3],[r4,c4]]]</answer_json>" in text
    assert "(0,0)" in text and "at most 2 turns" in text and "outside" not in text  # Table 16 does not say
    # the prompt does not depend on the board, so it cannot reveal a solution
    assert text == SPEC.question(gen("easy", 1), style)
    assert SPEC.question(state, "text_cot") != SPEC.question(state, "direct")
    with pytest.raises(ValueError):
        SPEC.question(state, "other")


def test_step_format__is_the_authors_step_json():
    assert format_step(((0, 1), (2, 1))) == "<STEP_JSON>[[0,1],[2,1]]</STEP_JSON>"
    assert parse_step("the pears: <STEP_JSON>[[0,1], [2,1],]</STEP_JSON>") == ((0, 1), (2, 1))
    with pytest.raises(AnswerError):
        parse_step("<answer_json>[[[0,1],[2,1]]]</answer_json>")


def test_random_answer__pairs_the_occupied_cells_at_random():
    state = gen("hard", 1)
    answer = random_answer(state, np.random.default_rng(0))
    assert answer == random_answer(state, np.random.default_rng(0))
    occupied = {(r, c) for r in range(6) for c in range(6) if state.board[r][c] is not None}
    assert len(answer) == len(bf_pairs(state.board))
    assert {cell for step in answer for cell in step} == occupied
    orders = {random_answer(state, np.random.default_rng(seed)) for seed in range(5)}
    assert len(orders) == 5
    assert parse_answer(format_answer(answer)) == answer


def test_spec__declares_every_capability() -> None:
    """Cell decoding, the drawn solution, the authors' records, structure statistics."""
    # one route per pair: no single red route to read back
    assert SPEC.fidelity and SPEC.fidelity.perturb and SPEC.vr and SPEC.paper and SPEC.structure
    assert SPEC.vr.route_start is None and SPEC.episode_steps is None


def test_buckets__are_spec_section_2s() -> None:
    """The optimal-length ranges of docs/contract/families.md (``check_family`` checks that ``bucket_of`` follows them)."""
    assert dict(SPEC.buckets) == {"easy": (4, 6), "medium": (7, 10), "hard": (12, 16)}
