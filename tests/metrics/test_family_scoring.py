"""score_answer on every registered family: oracle, illegal step, detour, text variants, garbage.

Answers are built as text from the rows' JSON payloads (never from the families' own
step objects), and the expected reason codes are worked out here from the state JSON,
so these tests check the parsers and replay rather than restate them.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest

from vgau_data.metrics.baselines import oracle_output
from vgau_data.metrics.references import DatasetRow, ReferenceSet
from vgau_data.metrics.scoring import Verdict, score_answer
from vgau_data.registry import FAMILIES

Step = Any
DELTAS = {"up": (-1, 0), "down": (1, 0), "left": (0, -1), "right": (0, 1)}
OPPOSITE = {"up": "down", "down": "up", "left": "right", "right": "left"}
FAMILY_IDS = list(FAMILIES)


def rows_of(references: ReferenceSet, family: str) -> list[DatasetRow]:
    rows = [r for r in references.rows if r.task == family]
    assert rows, f"the fixture has no {family} rows"
    return rows


def steps_of(row: DatasetRow) -> list[Step]:
    payload = json.loads(row.solution)
    return payload["solution"] if row.task == "klotski" else payload


def text_of(family: str, steps: list[Step], *, dumps: Callable[[Any], str] = json.dumps) -> str:
    """Answer text (docs/contract/answers.md) for a payload list."""
    if family == "path":
        return "<answer>" + ",".join(steps) + "</answer>"
    if family == "klotski":
        return dumps({"solution": steps})
    tag = "answer_json" if family == "onet" else "ANSWER_JSON"
    return f"<{tag}>{dumps(steps)}</{tag}>"


def score(row: DatasetRow, text: str | None) -> Verdict:
    return score_answer(text, row.reference)


# ------------------------------------------------------------------ oracle


@pytest.mark.parametrize("family", FAMILY_IDS)
def test_oracle__is_optimal_and_feasible(references: ReferenceSet, family: str) -> None:
    for row in rows_of(references, family):
        verdict = score(row, oracle_output(row))
        assert verdict.parsed and verdict.feasible and verdict.optimal, (row.id, verdict)
        assert verdict.error is None and verdict.first_invalid_step is None
        assert verdict.length == row.optimal_length
        assert score(row, text_of(family, steps_of(row))).optimal


@pytest.mark.parametrize("family", FAMILY_IDS)
def test_oracle_prefix__is_not_solved(references: ReferenceSet, family: str) -> None:
    for row in rows_of(references, family):
        steps = steps_of(row)
        verdict = score(row, text_of(family, steps[:-1]))
        assert not verdict.feasible and not verdict.optimal
        assert verdict.error == "not_solved", (row.id, verdict)


# ------------------------------------------------------------------ one illegal step


def _grid_code(grid: list[str], cell: tuple[int, int]) -> str | None:
    r, c = cell
    if not (0 <= r < len(grid) and 0 <= c < len(grid[0])):
        return "out_of_bounds"
    return "wall" if grid[r][c] == "#" else None


def _step(cell: tuple[int, int], direction: str) -> tuple[int, int]:
    return cell[0] + DELTAS[direction][0], cell[1] + DELTAS[direction][1]


def illegal_maze(row: DatasetRow) -> tuple[list[Step], str, int]:
    state, steps = json.loads(row.state), steps_of(row)
    position = tuple(state["start"])
    for k in range(len(steps) + 1):
        for direction in DELTAS:
            code = _grid_code(state["grid"], _step(position, direction))
            if code:
                return steps[:k] + [direction] + steps[k:], code, k
        if k < len(steps):
            position = _step(position, steps[k])
    raise AssertionError(f"{row.id}: no blocked direction along the solution")


def illegal_sokoban(row: DatasetRow) -> tuple[list[Step], str, int]:
    state, steps = json.loads(row.state), steps_of(row)
    player, box = tuple(state["player"]), tuple(state["box"])
    for k in range(len(steps) + 1):
        for direction in DELTAS:
            target = _step(player, direction)
            code = _grid_code(state["grid"], target)
            if code:
                return steps[:k] + [direction] + steps[k:], code, k
            if target == box and _grid_code(state["grid"], _step(box, direction)) == "wall":
                return steps[:k] + [direction] + steps[k:], "box_blocked", k
        if k < len(steps):
            player = _step(player, steps[k])
            if player == box:
                box = _step(box, steps[k])
    raise AssertionError(f"{row.id}: no blocked direction along the solution")


def illegal_path(row: DatasetRow) -> tuple[list[Step], str, int]:
    steps = steps_of(row)
    off_path = sorted(set(json.loads(row.state)["labels"]) - set(steps))
    assert off_path, f"{row.id}: the contract puts one label off the path"
    return steps + [off_path[0]], "wrong_label", len(steps)


def illegal_onet(row: DatasetRow) -> tuple[list[Step], str, int]:
    board = json.loads(row.state)["board"]
    cells = [(r, c) for r, line in enumerate(board) for c, _ in enumerate(line)]
    empty = next(cell for cell in cells if board[cell[0]][cell[1]] is None)
    fruit = next(cell for cell in cells if board[cell[0]][cell[1]] is not None)
    return [[list(empty), list(fruit)]] + steps_of(row), "empty_cell", 0


def illegal_onet_kinds(row: DatasetRow) -> tuple[list[Step], str, int]:
    board = json.loads(row.state)["board"]
    fruits = [(r, c) for r, line in enumerate(board) for c, v in enumerate(line) if v is not None]
    first = fruits[0]
    other = next(cell for cell in fruits if board[cell[0]][cell[1]] != board[first[0]][first[1]])
    return [[list(first), list(other)]] + steps_of(row), "not_identical", 0


def illegal_parking(row: DatasetRow) -> tuple[list[Step], str, int]:
    red = next(v for v in json.loads(row.state)["vehicles"] if v["id"] == "R")
    assert red["orientation"] == "h"
    return [{"car": "R", "direction": "up"}] + steps_of(row), "against_orientation", 0


def illegal_parking_vehicle(row: DatasetRow) -> tuple[list[Step], str, int] | None:
    ids = {v["id"] for v in json.loads(row.state)["vehicles"]}
    unused = next((letter for letter in "ZYXWVUTSQPONMLKJIHGFEDCBA" if letter not in ids), None)
    if unused is None:
        return None  # dense boards use every letter
    steps = steps_of(row)
    return steps[:1] + [{"car": unused, "direction": "left"}] + steps[1:], "unknown_vehicle", 1


def _klotski_cells(state: dict) -> set[tuple[int, int]]:
    return {
        (b["row"] + dr, b["col"] + dc) for b in state["blocks"] for dr in range(b["height"]) for dc in range(b["width"])
    }


def illegal_klotski(row: DatasetRow) -> tuple[list[Step], str, int]:
    state = json.loads(row.state)
    covered = _klotski_cells(state)
    empty = next((r, c) for r in range(state["size"]) for c in range(state["size"]) if (r, c) not in covered)
    return [{"from": list(empty), "direction": "UP"}] + steps_of(row), "no_block_at", 0


IllegalCase = Callable[[DatasetRow], "tuple[list[Step], str, int] | None"]
ILLEGAL_CASES: dict[str, list[IllegalCase]] = {  # hand-made; check_family probes every registered family's rules
    "maze": [illegal_maze],
    "sokoban": [illegal_sokoban],
    "path": [illegal_path],
    "onet": [illegal_onet, illegal_onet_kinds],
    "parking": [illegal_parking, illegal_parking_vehicle],
    "klotski": [illegal_klotski],
}


@pytest.mark.parametrize(
    ("family", "make"),
    [(family, make) for family, makers in ILLEGAL_CASES.items() for make in makers],
    ids=[f"{family}-{make.__name__}" for family, makers in ILLEGAL_CASES.items() for make in makers],
)
def test_oracle_plus_illegal_step__is_infeasible_with_the_code(
    references: ReferenceSet, family: str, make: IllegalCase
) -> None:
    checked = 0
    for row in rows_of(references, family):
        case = make(row)
        if case is None:
            continue
        steps, code, index = case
        verdict = score(row, text_of(family, steps))
        assert verdict.parsed, (row.id, verdict)
        assert not verdict.feasible and not verdict.optimal
        assert (verdict.error, verdict.first_invalid_step) == (code, index), row.id
        checked += 1
    assert checked >= 2, f"only {checked} {family} rows could take this illegal step"


# ------------------------------------------------------------------ detours


def detour_candidates(row: DatasetRow) -> list[list[Step]]:
    """Two-step out-and-back moves that leave the state as it was (when legal)."""
    state = json.loads(row.state)
    if row.task in ("maze", "sokoban"):
        return [[d, OPPOSITE[d]] for d in DELTAS]
    if row.task == "parking":
        axes = {"h": ("left", "right"), "v": ("up", "down")}
        return [
            [{"car": v["id"], "direction": d}, {"car": v["id"], "direction": OPPOSITE[d]}]
            for v in state["vehicles"]
            for d in axes[v["orientation"]]
        ]
    if row.task == "klotski":
        return [
            [
                {"from": [b["row"], b["col"]], "direction": d.upper()},
                {"from": list(_step((b["row"], b["col"]), d)), "direction": OPPOSITE[d].upper()},
            ]
            for b in state["blocks"]
            for d in DELTAS
        ]
    pytest.skip(f"no hand-made detours for {row.task} (check_family finds a detour of every family)")


DETOUR_FAMILIES = [name for name, spec in FAMILIES.items() if not spec.unique_length]


@pytest.mark.parametrize("family", DETOUR_FAMILIES)
def test_detour__is_feasible_but_not_optimal(references: ReferenceSet, family: str) -> None:
    for row in rows_of(references, family):
        verdicts = [score(row, text_of(family, detour + steps_of(row))) for detour in detour_candidates(row)]
        feasible = [v for v in verdicts if v.feasible]
        assert feasible, f"{row.id}: no out-and-back detour replays"
        for verdict in feasible:
            assert not verdict.optimal and verdict.error is None
            assert verdict.length == row.optimal_length + 2


def test_unique_length_families__are_path_and_onet() -> None:
    assert {name for name, spec in FAMILIES.items() if spec.unique_length} == {"path", "onet"}


def test_onet_pair_cells_swapped__still_optimal(references: ReferenceSet) -> None:
    for row in rows_of(references, "onet"):
        swapped = [[b, a] for a, b in steps_of(row)]
        assert score(row, text_of("onet", swapped)).optimal


# ------------------------------------------------------------------ text variants


def _one_letter(steps: list[Step], family: str) -> list[Step]:
    if family in ("maze", "sokoban"):
        return [s[0].upper() if i % 2 else s[0] for i, s in enumerate(steps)]
    if family == "parking":
        return [{**s, "direction": s["direction"][0].upper()} for s in steps]
    if family == "klotski":
        return [{**s, "direction": s["direction"][0].lower()} for s in steps]
    return steps


def _trailing_comma(value: Any) -> str:
    return json.dumps(value)[:-1] + ",]" if isinstance(value, list) else json.dumps(value).replace("]}", ",]}")


def variants(family: str, steps: list[Step]) -> dict[str, str]:
    text = text_of(family, steps)
    out = {
        "prose": f"Let me think step by step.\nThe board shows...\nFinal answer: {text}\nHope this helps!",
        "fence": f"Here you go:\n```json\n{text}\n```\n",
        "last_match_wins": f"First guess: {text_of(family, [])}. Wait, that is wrong.\n{text}",
        "single_quotes": text_of(family, steps, dumps=lambda v: json.dumps(v).replace('"', "'")),
        "trailing_comma": text_of(family, steps, dumps=_trailing_comma),
        "one_letter": text_of(family, _one_letter(steps, family)),
        "spaced": text_of(family, steps, dumps=lambda v: json.dumps(v, indent=2)),
    }
    if family not in ("klotski", "path"):
        out["tag_lower"] = text.replace("ANSWER_JSON", "answer_json")
        out["tag_upper"] = text.replace("answer_json", "ANSWER_JSON")
        out["tag_mixed"] = text.replace("ANSWER_JSON", "Answer_Json").replace("answer_json", "Answer_Json")
    if family == "path":
        out["lower_letters"] = f"<ANSWER> {', '.join(s.lower() for s in steps)} </Answer>"
        out["quoted_letters"] = "<answer>" + ",".join(f"'{s}'" for s in steps) + ",</answer>"
        del out["single_quotes"], out["trailing_comma"], out["spaced"], out["one_letter"]
    if family in ("maze", "sokoban"):
        out["upper_words"] = text_of(family, [s.upper() for s in steps])
    if family == "klotski":
        pairs = ", ".join(f'"from": [{s["from"][0]}, {s["from"][1]}], "direction": "{s["direction"]}"' for s in steps)
        out["braceless"] = f"The moves are {pairs}. Done."
        out["nested_in_prose"] = f'I will answer in JSON.\n```\n{{"solution": {json.dumps(steps)}}}\n```'
    return out


@pytest.mark.parametrize("family", FAMILY_IDS)
def test_text_variants__parse_to_the_optimal_answer(references: ReferenceSet, family: str) -> None:
    for row in rows_of(references, family):
        for name, text in variants(family, steps_of(row)).items():
            verdict = score(row, text)
            assert verdict.optimal, (row.id, name, text[:200], verdict)


# ------------------------------------------------------------------ garbage


GARBAGE = [None, "", "   \n", "I cannot solve this puzzle.", "The answer is unclear, sorry.", "\x00\x00", "🙂" * 10]


@pytest.mark.parametrize("family", FAMILY_IDS)
@pytest.mark.parametrize("text", GARBAGE, ids=[repr(t)[:20] for t in GARBAGE])
def test_garbage__is_no_answer(references: ReferenceSet, family: str, text: str | None) -> None:
    row = rows_of(references, family)[0]
    verdict = score(row, text)
    assert (verdict.parsed, verdict.feasible, verdict.optimal, verdict.error) == (False, False, False, "no_answer")
