"""Tests of the klotski family: rules, solver, generator, renderer and answer parsing."""

from __future__ import annotations

import json
from collections import deque

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from PIL import Image

from vgau_data.errors import SearchLimitError, StateError
from vgau_data.puzzles.base import AnswerError, Illegal
from vgau_data.puzzles.klotski import SPEC
from vgau_data.puzzles.klotski.answers import answer_payload, format_answer, format_step, parse_answer, parse_step
from vgau_data.puzzles.klotski.generator import BUCKETS, generate
from vgau_data.puzzles.klotski.render import GEOMETRY, PALETTE, render
from vgau_data.puzzles.klotski.rules import apply_step, is_goal, legal_steps, replay
from vgau_data.puzzles.klotski.solver import _neighbours, random_answer, solve
from vgau_data.puzzles.klotski.state import KINDS, KlotskiState, Step, from_ascii, from_json, to_ascii, to_json

ONE_MOVE = (
    "||||||",
    "||||||",
    "----oo",
    "|oTTo|",
    "|oTTo|",
    "--..oo",
)
"""The target slides down once: empty cells (5, 2) and (5, 3)."""

HALF_FREE = (
    "||||||",
    "||||||",
    "----oo",
    "|oTTo|",
    "|oTTo|",
    "--.o.o",
)
"""Only one of the two cells under the target is empty."""

LOCKED = (
    "TTo|--",
    "TT|||o",
    ".||o||",
    "o|.--|",
    "o|||oo",
    "o|||--",
)
"""The target can never move: a small closed component, so no solution."""

SHAPES = {"target": (2, 2), "vertical": (2, 1), "horizontal": (1, 2), "single": (1, 1)}


def board(rows: tuple[str, ...]) -> KlotskiState:
    return from_ascii(list(rows))


def block_dicts(state: KlotskiState) -> list[dict]:
    return json.loads(to_json(state))["blocks"]


# ------------------------------------------------------------------ independent solver


def brute_force_length(state: KlotskiState, limit: int = 25) -> int | None:
    """BFS over sorted (kind, row, col) tuples, moving every block in every direction."""
    start = tuple(sorted((b["kind"], b["row"], b["col"]) for b in block_dicts(state)))

    def successors(blocks: tuple) -> list[tuple]:
        owner = {}
        for i, (kind, r, c) in enumerate(blocks):
            h, w = SHAPES[kind]
            for a in range(h):
                for b in range(w):
                    owner[r + a, c + b] = i
        out = []
        for i, (kind, r, c) in enumerate(blocks):
            h, w = SHAPES[kind]
            for dr, dc in ((-1, 0), (1, 0), (0, -1), (0, 1)):
                nr, nc = r + dr, c + dc
                if nr < 0 or nc < 0 or nr + h > 6 or nc + w > 6:
                    continue
                if all(owner.get((nr + a, nc + b), i) == i for a in range(h) for b in range(w)):
                    out.append(tuple(sorted(blocks[:i] + ((kind, nr, nc),) + blocks[i + 1 :])))
        return out

    seen = {start: 0}
    queue = deque([start])
    while queue:
        blocks = queue.popleft()
        if ("target", 4, 2) in blocks:
            return seen[blocks]
        if seen[blocks] >= limit:
            continue
        for nxt in successors(blocks):
            if nxt not in seen:
                seen[nxt] = seen[blocks] + 1
                queue.append(nxt)
    return None


# ------------------------------------------------------------------------------- state


def test_state__json_round_trip() -> None:
    for state in (board(ONE_MOVE), board(LOCKED), generate("hard", np.random.default_rng(1))):
        text = to_json(state)
        assert from_json(text) == state
        assert json.loads(text)["size"] == 6 and json.loads(text)["goal"] == [4, 2]


def test_to_json__canonical_block_order() -> None:
    blocks = block_dicts(board(ONE_MOVE))
    kinds = [b["kind"] for b in blocks]
    assert kinds == ["target"] + ["vertical"] * 8 + ["horizontal"] * 3 + ["single"] * 8
    assert blocks[0] == {"kind": "target", "row": 3, "col": 2, "height": 2, "width": 2}
    for kind in KINDS:
        cells = [(b["row"], b["col"]) for b in blocks if b["kind"] == kind]
        assert cells == sorted(cells)


def test_from_json__accepts_any_block_order() -> None:
    state = board(ONE_MOVE)
    data = json.loads(to_json(state))
    data["blocks"].reverse()
    assert from_json(json.dumps(data)) == state


def _mutated(change) -> str:
    data = json.loads(to_json(board(ONE_MOVE)))
    change(data)
    return json.dumps(data)


@pytest.mark.parametrize(
    "text",
    [
        "not json",
        "[]",
        "null",
        _mutated(lambda d: d.pop("goal")),
        _mutated(lambda d: d.update(extra=1)),
        _mutated(lambda d: d.update(size=7)),
        _mutated(lambda d: d.update(size="6")),
        _mutated(lambda d: d.update(goal=[4, 3])),
        _mutated(lambda d: d.update(goal=[4.0, 2])),
        _mutated(lambda d: d.update(blocks="x")),
        _mutated(lambda d: d["blocks"].pop()),
        _mutated(lambda d: d["blocks"].append(7)),
        _mutated(lambda d: d["blocks"][1].update(kind="tall")),
        _mutated(lambda d: d["blocks"][1].update(row=True)),
        _mutated(lambda d: d["blocks"][1].update(row="0")),
        _mutated(lambda d: d["blocks"][1].update(row=5)),
        _mutated(lambda d: d["blocks"][1].update(col=-1)),
        _mutated(lambda d: d["blocks"][1].update(height=1)),
        _mutated(lambda d: d["blocks"][1].pop("width")),
        _mutated(lambda d: d["blocks"][-1].update(row=0, col=0)),
        _mutated(lambda d: d["blocks"][-1].update(kind="vertical", height=2, width=1, row=0, col=0)),
        _mutated(lambda d: d["blocks"].append(dict(d["blocks"][-1], row=5, col=2))),
    ],
)
def test_from_json__rejects_malformed(text: str) -> None:
    with pytest.raises(StateError):
        from_json(text)


def test_ascii__round_trip() -> None:
    for rows in (ONE_MOVE, HALF_FREE, LOCKED):
        assert tuple(to_ascii(board(rows))) == rows
    state = generate("medium", np.random.default_rng(3))
    assert from_ascii(to_ascii(state)) == state
    assert from_ascii("\n".join(ONE_MOVE)) == board(ONE_MOVE)


@pytest.mark.parametrize(
    "rows",
    [
        ONE_MOVE[:5],
        ("||||||", "||||||", "----oo", "|oTTo|", "|oTTo|", "--..ox"),
        ("||||||", "||||||", "----oo", "|oTTo|", "|oTTo|", "|-..oo"),
        ("||||||", "||||||", "----oo", "|oTTo|", "|oT.o|", "--.Too"),
        ("||||||", "||||||", "----oo", "|oTTo|", "|oTTo|", "--.ooo"),
        ("||||||", "||||||", "---o-o", "|oTTo|", "|oTTo|", "--..oo"),
    ],
)
def test_from_ascii__rejects_bad_boards(rows: tuple[str, ...]) -> None:
    with pytest.raises(StateError):
        from_ascii(list(rows))


# ------------------------------------------------------------------------------- rules


@pytest.mark.parametrize(
    ("step", "after"),
    [
        (((3, 2), "down"), ("||||||", "||||||", "----oo", "|o..o|", "|oTTo|", "--TToo")),
        (((5, 4), "left"), ("||||||", "||||||", "----oo", "|oTTo|", "|oTTo|", "--.o.o")),
        (((5, 0), "right"), ("||||||", "||||||", "----oo", "|oTTo|", "|oTTo|", ".--.oo")),
    ],
)
def test_apply_step__slides_one_block(step: Step, after: tuple[str, ...]) -> None:
    assert apply_step(board(ONE_MOVE), step) == board(after)


def test_apply_step__two_cell_moves_of_each_kind() -> None:
    side = board(("||||||", "||||||", "----oo", "|oTT.|", "|oTT.|", "--oooo"))
    assert apply_step(side, ((3, 2), "right")) == board(
        ("||||||", "||||||", "----oo", "|o.TT|", "|o.TT|", "--oooo")
    )
    assert apply_step(side, ((3, 5), "left")) == board(
        ("||||||", "||||||", "----oo", "|oTT|.", "|oTT|.", "--oooo")
    )
    low = board(("||||||", "||||||", "----oo", "|o..o|", "|oTTo|", "--TToo"))
    assert apply_step(low, ((2, 2), "down")) == board(
        ("||||||", "||||||", "--..oo", "|o--o|", "|oTTo|", "--TToo")
    )
    assert apply_step(low, ((4, 2), "up")) == board(ONE_MOVE)
    assert apply_step(board(ONE_MOVE), ((3, 2), "down")) == low


def test_replay__no_block_at() -> None:
    state = board(ONE_MOVE)
    for cell in ((5, 2), (1, 0), (3, 3), (4, 2), (5, 1), (6, 0), (-1, 0), (0, 99)):
        assert apply_step(state, (cell, "up")) == Illegal("no_block_at", 0)
    verdict = replay(state, [((5, 4), "left"), ((4, 3), "down")])
    assert (verdict.feasible, verdict.error, verdict.first_invalid_step) == (False, "no_block_at", 1)


def test_replay__out_of_bounds() -> None:
    state = board(ONE_MOVE)
    for step in (((0, 0), "up"), ((5, 4), "down"), ((3, 0), "left"), ((0, 5), "right"), ((3, 5), "right"), ((5, 0), "down")):
        assert apply_step(state, step) == Illegal("out_of_bounds", 0)
    verdict = replay(state, [((0, 0), "up")])
    assert (verdict.error, verdict.first_invalid_step, verdict.length) == ("out_of_bounds", 0, 1)


def test_replay__blocked() -> None:
    state = board(ONE_MOVE)
    for step in (((3, 1), "up"), ((2, 0), "down"), ((3, 2), "up"), ((3, 2), "left"), ((0, 1), "down")):
        assert apply_step(state, step) == Illegal("blocked", 0)
    half = board(HALF_FREE)
    assert apply_step(half, ((3, 2), "down")) == Illegal("blocked", 0)
    verdict = replay(half, [((3, 2), "down")])
    assert (verdict.feasible, verdict.error, verdict.first_invalid_step) == (False, "blocked", 0)


def test_replay__not_solved() -> None:
    state = board(ONE_MOVE)
    verdict = replay(state, [((5, 4), "left")])
    assert (verdict.feasible, verdict.error, verdict.first_invalid_step) == (False, "not_solved", 1)
    assert replay(state, []).error == "not_solved"


def test_replay__feasible_and_stops_at_first_illegal() -> None:
    state = board(ONE_MOVE)
    assert replay(state, [((3, 2), "down")]).feasible
    detour = [((5, 4), "left"), ((5, 3), "right"), ((3, 2), "down")]
    assert replay(state, detour).feasible and replay(state, detour).length == 3
    verdict = replay(state, [((3, 2), "down"), ((0, 0), "up"), ((9, 9), "up")])
    assert (verdict.error, verdict.first_invalid_step) == ("out_of_bounds", 1)


def test_apply_step__unknown_direction_is_illegal() -> None:
    assert apply_step(board(ONE_MOVE), ((3, 2), "north")) == Illegal("unknown_action", 0)


def test_is_goal__target_top_left_at_4_2() -> None:
    assert not is_goal(board(ONE_MOVE))
    assert is_goal(apply_step(board(ONE_MOVE), ((3, 2), "down")))


def test_trajectory__one_state_per_step() -> None:
    state = generate("medium", np.random.default_rng(5))
    solution = solve(state)
    states = SPEC.trajectory(state, solution.answer)
    assert len(states) == solution.optimal_length
    assert is_goal(states[-1]) and not any(is_goal(s) for s in states[:-1])


def test_neighbours__match_every_legal_step() -> None:
    """The solver's move generator (from the empty cells) equals the public rules."""
    rng = np.random.default_rng(11)
    states = [board(ONE_MOVE), board(HALF_FREE), board(LOCKED)]
    for difficulty in ("easy", "hard") * 10:
        state = generate(difficulty, rng)
        for _ in range(30):
            states.append(state)
            options = legal_steps(state)
            state = apply_step(state, options[int(rng.integers(len(options)))])
    for state in states:
        expected = sorted(apply_step(state, step).cells for step in legal_steps(state))
        assert sorted(_neighbours(state.cells)) == expected


# ------------------------------------------------------------------------------ solver


def test_solve__one_move_board() -> None:
    solution = solve(board(ONE_MOVE))
    assert solution is not None
    assert solution.answer == (((3, 2), "down"),) and solution.optimal_length == 1


def test_solve__solved_board_needs_no_steps() -> None:
    solved = apply_step(board(ONE_MOVE), ((3, 2), "down"))
    assert solve(solved).optimal_length == 0


def test_solve__unsolvable_board_returns_none() -> None:
    assert solve(board(LOCKED)) is None
    assert brute_force_length(board(LOCKED)) is None


@pytest.mark.parametrize(("difficulty", "seed"), [("easy", 0), ("easy", 1), ("easy", 2), ("medium", 0), ("medium", 1), ("medium", 2), ("hard", 4), ("hard", 5), ("hard", 6)])
def test_solve__agrees_with_brute_force(difficulty: str, seed: int) -> None:
    state = generate(difficulty, np.random.default_rng(seed))
    solution = solve(state)
    assert solution is not None
    assert solution.optimal_length == brute_force_length(state)
    assert replay(state, solution.answer).feasible


def test_solve__gives_up_past_max_states_and_not_before() -> None:
    state = generate("hard", np.random.default_rng(4))
    with pytest.raises(SearchLimitError, match="more than 50 positions"):
        solve(state, max_states=50)
    with pytest.raises(SearchLimitError):
        solve(board(LOCKED), max_states=20)  # a whole component is searched within the limit too
    assert solve(state, max_states=200_000) == solve(state)


def test_solve__agrees_with_brute_force_on_hand_made_boards() -> None:
    for rows in (ONE_MOVE, HALF_FREE, ("||||||", "||||||", "----oo", "|oTT.|", "|oTT.|", "--oooo")):
        solution = solve(board(rows))
        assert solution is not None and solution.optimal_length == brute_force_length(board(rows))


# --------------------------------------------------------------------------- generator


@pytest.mark.parametrize("difficulty", ["easy", "medium", "hard"])
@pytest.mark.parametrize("seed", [0, 7, 123])
def test_generate__optimum_in_bucket_and_replays(difficulty: str, seed: int) -> None:
    state = generate(difficulty, np.random.default_rng(seed))
    assert from_json(to_json(state)) == state  # full inventory, no overlap
    assert not is_goal(state)
    solution = solve(state)
    low, high = BUCKETS[difficulty]
    assert solution is not None and low <= solution.optimal_length <= high
    verdict = replay(state, solution.answer)
    assert verdict.feasible and verdict.length == solution.optimal_length == len(solution.answer)
    assert SPEC.bucket_of(solution.optimal_length) == difficulty


@pytest.mark.parametrize("difficulty", ["easy", "medium", "hard"])
def test_generate__same_seed_same_state(difficulty: str) -> None:
    first = generate(difficulty, np.random.default_rng(42))
    assert generate(difficulty, np.random.default_rng(42)) == first
    assert generate(difficulty, np.random.default_rng(43)) != first


def test_generate__layouts_and_answers_vary() -> None:
    states = [generate("medium", np.random.default_rng(seed)) for seed in range(12)]
    assert len({s.cells for s in states}) == 12
    assert len({s.target for s in states}) >= 2
    assert len({s.cells.index(".") for s in states}) >= 5
    answers = [solve(s).answer for s in states]
    for answer in answers:  # no single answer solves more than a few boards
        assert sum(replay(s, answer).feasible for s in states) <= 3


def test_random_answer__deterministic_and_legal() -> None:
    state = generate("hard", np.random.default_rng(2))
    answer = random_answer(state, np.random.default_rng(9))
    assert answer == random_answer(state, np.random.default_rng(9))
    assert 1 <= len(answer) <= 20
    verdict = replay(state, answer)
    assert verdict.error in (None, "not_solved")


# ----------------------------------------------------------------------------- answers


def test_format_answer__round_trips() -> None:
    answer = (((3, 2), "down"), ((0, 5), "left"), ((4, 0), "up"), ((1, 1), "right"))
    text = format_answer(answer)
    assert text == answer_payload(answer)
    assert text.startswith('{"solution":[{"from":[3,2],"direction":"DOWN"}')
    assert parse_answer(text) == answer
    assert parse_answer(format_answer(())) == ()


@pytest.mark.parametrize(
    "text",
    [
        '{"solution":[{"from":[3,2],"direction":"DOWN"},{"from":[0,5],"direction":"LEFT"}]}',
        'I think this works.\n```json\n{"solution": [{"from": [3, 2], "direction": "down"},\n {"from": [0, 5], "direction": "Left"}]}\n```\nDone.',
        "{'solution': [{'from': [3, 2], 'direction': 'D'}, {'from': [0, 5], 'direction': 'l'},],}",
        '{"Solution": [{"From": [3, 2], "Direction": "DOWN"}, {"FROM": [0, 5], "DIRECTION": "LEFT"}]}',
        '{"solution": [{"direction": "DOWN", "from": [3, 2]}, {"direction": "LEFT", "from": [0, 5]}]}',
        'draft {"solution": [{"from": [1, 1], "direction": "UP"}]} final {"solution": [{"from": [3, 2], "direction": "DOWN"}, {"from": [0, 5], "direction": "LEFT"}]}',
        '"from": [3, 2], "direction": "UP"\nFinal: "from": [3, 2], "direction": "DOWN", "from": [0, 5], "direction": "LEFT"',
        '[{"from":[3,2],"direction":"d"},{"from":[0,5],"direction":"l"}]',
        '{"solution": [{"from": [3, 2], "direction": "DOWN"}, {"from": [0, 5], "direction": "LEFT"},, ]}',
        'Answer: {"solution": [{"from": [3, 2], "direction": "DOWN", "block": "T"}, {"from": [0, 5], "direction": " left "}]}',
    ],
)
def test_parse_answer__tolerant(text: str) -> None:
    assert parse_answer(text) == (((3, 2), "down"), ((0, 5), "left"))


def test_parse_answer__empty_list_is_zero_steps() -> None:
    assert parse_answer('The solution is {"solution": []}') == ()
    assert replay(board(ONE_MOVE), parse_answer('{"solution": []}')).error == "not_solved"


def test_parse_answer__later_brace_less_run_wins() -> None:
    text = '{"solution": [{"from": [1, 1], "direction": "UP"}]} no wait: "from": [3, 2], "direction": "DOWN"'
    assert parse_answer(text) == (((3, 2), "down"),)


@pytest.mark.parametrize(
    ("text", "code"),
    [
        ("", "no_answer"),
        ("I cannot solve this puzzle.", "no_answer"),
        ("the solution: move the red block down", "no_answer"),
        ('{"solution": [{"from": [3, 2], "direction": "DIAGONAL"}]}', "unknown_action"),
        ('{"solution": [{"from": [3, 2], "direction": 7}]}', "unknown_action"),
        ('"from": [3, 2], "direction": "north"', "unknown_action"),
        ('{"solution": [{"from": [3, 2]}]}', "bad_format"),
        ('{"solution": [{"from": "3,2", "direction": "UP"}]}', "bad_format"),
        ('{"solution": [{"from": [3, 2, 1], "direction": "UP"}]}', "bad_format"),
        ('{"solution": [{"from": [3.0, 2], "direction": "UP"}]}', "bad_format"),
        ('{"solution": [{"from": [true, 2], "direction": "UP"}]}', "bad_format"),
        ('{"solution": [["UP"]]}', "bad_format"),
        ('{"solution": [{"from": [r, c], "direction": "UP"}]}', "bad_format"),
        ('{"solution": [' + '{"from": [0, 0], "direction": "UP"},' * 1001 + "]}", "bad_format"),
        ('"from": [0, 0], "direction": "UP", ' * 1001, "bad_format"),
        ('{"solution": [' + "1" * 5000 + "]}", "bad_format"),
    ],
)
def test_parse_answer__errors(text: str, code: str) -> None:
    with pytest.raises(AnswerError) as info:
        parse_answer(text)
    assert info.value.code == code


def test_parse_answer__truncated_list_keeps_clean_pairs() -> None:
    text = '{"solution": [{"from": [3, 2], "direction": "DOWN"}, {"from": [0'
    assert parse_answer(text) == (((3, 2), "down"),)


_STEPS = st.lists(
    st.tuples(st.tuples(st.integers(-3, 9), st.integers(-3, 9)), st.sampled_from(["up", "down", "left", "right"])),
    max_size=30,
)


@settings(max_examples=150, deadline=None)
@given(answer=_STEPS)
def test_parse_answer__round_trips_any_answer(answer: list) -> None:
    assert parse_answer("Sure.\n" + format_answer(answer) + "\nDone") == tuple(answer)


def test_parse_answer__unicode_lowering_to_two_chars_still_finds_key() -> None:
    text = "İ" * 10 + '{"solution": [{"from": [3, 2], "direction": "DOWN"}]}'
    assert parse_answer(text) == (((3, 2), "down"),)


# ---------------------------------------------------------------------------- renderer


def decode(image: Image.Image) -> KlotskiState:
    """Rebuild the board from pixels: kind colour at each cell centre, and whether the
    pixels straddling the edge between two neighbouring cells are block colour (the same
    block) or background (two blocks, or empty cells)."""
    geometry = GEOMETRY
    pixels = image.load()
    colour_kind = {PALETTE[name]: name for name in ("empty", *KINDS)}
    kind = {(r, c): colour_kind[pixels[geometry.center((r, c))]] for r in range(6) for c in range(6)}

    def joined(cell: tuple[int, int], dr: int, dc: int) -> bool:
        r, c = cell
        if not (r + dr < 6 and c + dc < 6) or kind[cell] == "empty":
            return False
        x, y = geometry.center(cell)
        if dc:
            x = geometry.margin_left + (c + 1) * geometry.cell_px
            points = [(x - 1, y), (x, y)]
        else:
            y = geometry.margin_top + (r + 1) * geometry.cell_px
            points = [(x, y - 1), (x, y)]
        return all(pixels[p] == PALETTE[kind[cell]] for p in points)

    blocks, covered = [], set()
    for r in range(6):
        for c in range(6):
            if (r, c) in covered or kind[r, c] == "empty":
                continue
            height = 2 if joined((r, c), 1, 0) else 1
            width = 2 if joined((r, c), 0, 1) else 1
            covered.update((r + a, c + b) for a in range(height) for b in range(width))
            blocks.append({"kind": kind[r, c], "row": r, "col": c, "height": height, "width": width})
    return from_json(json.dumps({"size": 6, "goal": [4, 2], "blocks": blocks}))


def test_render__rgb_of_geometry_size() -> None:
    image = render(board(ONE_MOVE))
    assert image.mode == "RGB" and image.size == GEOMETRY.size == (560, 560)


@pytest.mark.parametrize("seed", range(4))
def test_render__golden_decoder_recovers_state(seed: int) -> None:
    rng = np.random.default_rng(seed)
    for difficulty in ("easy", "hard"):
        state = generate(difficulty, rng)
        assert decode(render(state)) == state
        for later in SPEC.trajectory(state, solve(state).answer)[:3]:
            assert decode(render(later)) == later


def test_render__hand_made_boards_and_target_label() -> None:
    for rows in (ONE_MOVE, HALF_FREE, LOCKED):
        state = board(rows)
        image = render(state)
        assert decode(image) == state
        r, c = state.target
        x0, y0, x1, y1 = GEOMETRY.block_box((r, c), 2, 2)
        crop = np.asarray(image.crop((x0, y0, x1, y1)))
        label = int(np.all(crop == PALETTE["label"], axis=-1).sum())
        assert label > 200  # the "T"


# ----------------------------------------------------------------------------- prompts


@pytest.mark.parametrize("style", ["text_cot", "direct"])
def test_question__carries_table_17_and_no_answer(style: str) -> None:
    state = generate("hard", np.random.default_rng(3))
    prompt = SPEC.question(state, style)
    for phrase in ('{"solution":[{"from":', "(4,2)", "TOP-LEFT".lower(), "0-based", "Exactly two cells", '"T"'):
        assert phrase in prompt
    assert "as few" not in prompt and "shortest" not in prompt
    assert answer_payload(solve(state).answer) not in prompt
    assert str(solve(state).optimal_length) + " moves" not in prompt


def test_step_format__is_table_29s_step_json() -> None:
    step = ((3, 2), "down")
    assert format_step(step) == '<STEP_JSON>{"from":[3,2],"direction":"DOWN"}</STEP_JSON>'
    assert parse_step("Slide it. <step_json>{'from': [3, 2], 'direction': 'Down'}</step_json>") == step
    with pytest.raises(AnswerError):
        parse_step('{"solution":[{"from":[3,2],"direction":"DOWN"}]}')  # the final-answer format is no step


def test_spec__declares_every_capability() -> None:
    """Cell decoding, the drawn solution, the authors' records, structure statistics."""
    # numbered arrows: no red route
    assert SPEC.fidelity and SPEC.fidelity.perturb and SPEC.vr and SPEC.paper and SPEC.structure
    assert SPEC.vr.route_start is None and SPEC.episode_steps is None


def test_buckets__are_spec_section_2s() -> None:
    """The optimal-length ranges of docs/contract/families.md (``check_family`` checks that ``bucket_of`` follows them)."""
    assert dict(SPEC.buckets) == {"easy": (1, 4), "medium": (6, 10), "hard": (15, 20)}
