"""Agreement of our ``authors`` reader with the authors' own code, on the same answers and episodes.

Usage:
    python benchmarks/authors_agreement.py --authors /tmp/vgau_authors [--per-bucket 8] [--seed 0]

``--authors`` is a scratch folder OUTSIDE this repository holding the authors' files from
``zyb1029/VGAU-Diag`` (``lmms_eval/tasks/<family>/utils.py`` and ``step_adapter.py``,
``lmms_eval/models/model_utils/step_protocol.py``) as published; their image code may be
left out, since nothing here renders. This script alone imports it: the package and the
tests never do. Nothing of theirs is committed.

What it measures, per family, on instances generated here (``--per-bucket`` per
difficulty):

1. final answers: a broad set of variants of each instance's answer (canonical, every
   format variant of ``docs/readers.md``, suboptimal, illegal, truncated, empty, random),
   scored by their ``<family>_process_results`` on the instance written as their record
   (``to_doc``) and by ``score_answer(..., reader="authors")``; a pair agrees when solved
   and optimal are equal (path and onet report one measure, used for both). The same
   variants scored by ``reader="ours"`` show how often the two readers differ.
2. episodes: scripted step replies (the oracle, variants of its format, detours, wrong
   labels, early and late stops) played through their ``run_step_protocol_old``
   (optimal budget) and ``run_step_protocol`` (fixed budget) with their adapters, and
   through our interactive episode with ``reader="authors"``; an episode agrees when
   both succeed or fail, after the same number of accepted steps.

Prints agreement per family and every disagreement (capped); exit status 1 below
``--target`` (default 0.99) in any family.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from collections import Counter, defaultdict
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from vgau_data.metrics.scoring import score_answer
from vgau_data.puzzles.base import DIFFICULTIES, DIRECTIONS, Illegal
from vgau_data.puzzles.path.state import PathStep
from vgau_data.registry import FAMILIES

THEIR_DIFFICULTY = {"easy": "easy", "medium": "middle", "hard": "hard"}
OPPOSITE = {"up": "down", "down": "up", "left": "right", "right": "left"}


# ------------------------------------------------------------------ our state -> their record


def cells(grid: tuple[str, ...], char: str) -> list[list[int]]:
    return [[r, c] for r, row in enumerate(grid) for c, ch in enumerate(row) if ch == char]


def to_doc(family: str, state: Any, solution: Any, difficulty: str) -> dict[str, Any]:
    """The instance as one of their records (the fields their scorers and adapters read)."""
    level = THEIR_DIFFICULTY[difficulty]
    answer = list(solution.answer)
    if family == "maze":
        return {
            "difficulty": level,
            "start": list(state.start),
            "goal": list(state.goal),
            "walkable": cells(state.grid, "."),
            "steps": json.dumps(answer),
        }
    if family == "sokoban":
        return {
            "difficulty": level,
            "player_start": list(state.player),
            "box_start": list(state.box),
            "target": list(state.target),
            "walls": cells(state.grid, "#"),
            "solution": json.dumps(answer),
            "optimal_steps": solution.optimal_length,
        }
    if family == "path":
        route = [list(step) for step in _path_route(state)]
        return {
            "difficulty": level,
            "start": list(state.start),
            "goal": list(state.end),
            "labeled_points": {letter: list(cell) for letter, cell in state.labels},
            "on_path_labels": answer,
            "answer": ",".join(answer),
            "answer_path": route,
            "distance": solution.optimal_length,
        }
    if family == "onet":
        return {"difficulty": level, "grid_size": len(state.board), "board": [list(row) for row in state.board]}
    if family == "parking":
        cars = [
            {"id": v.id, "orientation": v.orientation.upper(), "length": v.length, "row": v.row, "col": v.col}
            for v in state.vehicles
        ]
        return {
            "difficulty": level,
            "grid_size": state.size,
            "exit_row": state.exit_row + 1,
            "cars": cars,
            "optimal_steps": solution.optimal_length,
            "solution": [{"car": car, "direction": d} for car, d in answer],
        }
    if family == "klotski":
        kinds = {"target": "T", "vertical": "Vs", "horizontal": "Hs", "single": "Ss"}
        initial: dict[str, Any] = {"Vs": [], "Hs": [], "Ss": []}
        for block in state.blocks:
            key = kinds[block.kind]
            if key == "T":
                initial["T"] = [block.row, block.col]
            else:
                initial[key].append([block.row, block.col])
        return {
            "level": level,
            "initial_state": initial,
            "optimal_steps": solution.optimal_length,
            "solution": [{"from": [r, c], "direction": d.upper()} for (r, c), d in answer],
        }
    raise ValueError(family)


def _path_route(state: Any) -> list[tuple[int, int]]:
    """The cells of the start-destination route (their ``answer_path``)."""
    steps = FAMILIES["path"].oracle_steps(state)
    here = state.start
    route = [here]
    for step in steps:
        dr, dc = {"up": (-1, 0), "down": (1, 0), "left": (0, -1), "right": (0, 1)}[step.move]
        here = (here[0] + dr, here[1] + dc)
        route.append(here)
    return route


# ------------------------------------------------------------------ their code


class Theirs:
    """Their scorers and step runners, imported from the scratch folder."""

    def __init__(self, root: Path) -> None:
        sys.path.insert(0, str(root))
        import importlib

        self.utils = {f: importlib.import_module(f"lmms_eval.tasks.{f}.utils") for f in FAMILIES}
        self.adapters = {f: importlib.import_module(f"lmms_eval.tasks.{f}.step_adapter") for f in FAMILIES}
        self.protocol = importlib.import_module("lmms_eval.models.model_utils.step_protocol")
        self._memo: dict[Any, Any] = {}
        self.raised: Counter[str] = Counter()
        self._memoize_searches()

    def _memoize_searches(self) -> None:
        """Cache their per-step optimum searches (pure functions of the position) across episodes:
        their parking search takes seconds a step on hard boards, and every script revisits them."""
        parking = self.adapters["parking"].ParkingStepAdapter
        search = parking._bfs_remaining
        memo = self._memo

        def parking_remaining(session: Any) -> Any:
            key = (
                "parking",
                session.grid_size,
                session.exit_row_0,
                tuple(sorted((c["id"], c["row"], c["col"], c["length"], c["orientation"]) for c in session.cars)),
            )
            if key not in memo:
                memo[key] = search(session)
            return memo[key]

        parking._bfs_remaining = staticmethod(parking_remaining)
        klotski = self.adapters["klotski"].KlotskiStepAdapter
        distance = klotski._min_steps_to_goal

        def klotski_remaining(state: Any) -> Any:
            if ("klotski", state) not in memo:
                memo[("klotski", state)] = distance(state)
            return memo[("klotski", state)]

        klotski._min_steps_to_goal = staticmethod(klotski_remaining)

    def score(self, family: str, doc: dict[str, Any], text: str) -> tuple[bool, bool]:
        """(solved, optimal) from their ``process_results``; where it raises, (False, False):
        their evaluation stops there, and the answer is no solution."""
        utils = self.utils[family]
        try:
            out = getattr(utils, f"{family}_process_results")(doc, [text])
        except Exception:  # noqa: BLE001 (their code, any error)
            self.raised[family] += 1
            return False, False
        if family == "maze":
            payload = out["maze_reach_any_overall"]
            return payload["reach_any"] == 1.0, payload["reach_optimal"] == 1.0
        if family == "path":
            correct = out["path_overall_acc"]["correct"] == 1.0
            return correct, correct
        if family == "onet":
            correct = out["onet_acc_overall"]["acc"] == 1.0
            return correct, correct
        payload = out[f"{family}_solved_overall"]
        return payload["solved"] == 1.0, payload["optimal"] == 1.0

    def adapter_and_session(self, family: str, doc: dict[str, Any], state: Any) -> tuple[Any, Any]:
        """Their adapter and the session ``initialize_session`` would build (it needs their image)."""
        module = self.adapters[family]
        if family == "maze":
            adapter = module.MazeStepAdapter()
            session = module.MazeStepSession(
                doc=doc,
                base_image=None,
                current=tuple(doc["start"]),
                walkable={tuple(c) for c in doc["walkable"]},
                use_aux_step_grid=False,
                label_cells=True,
                label_start_goal=False,
                initial_visual=None,
                gold_steps=adapter._parse_gold_steps(doc),
                step_cursor=0,
                executed_steps=0,
                optimal_steps=adapter.resolve_max_steps(doc, {}),
            )
        elif family == "sokoban":
            adapter = module.SokobanStepAdapter()
            grid_h, grid_w = adapter._resolve_grid_shape(doc, None)
            session = module.SokobanStepSession(
                doc=doc,
                base_image=None,
                player=tuple(doc["player_start"]),
                box=tuple(doc["box_start"]),
                target=tuple(doc["target"]),
                walls={tuple(c) for c in doc["walls"]},
                grid_h=grid_h,
                grid_w=grid_w,
                use_aux_step_grid=False,
                initial_visual=None,
                optimal_steps=int(doc["optimal_steps"]),
                executed_steps=0,
            )
        elif family == "path":
            adapter = module.PathStepAdapter()
            coord_to_labels: dict[tuple[int, int], list[str]] = {}
            for letter, cell in doc["labeled_points"].items():
                coord_to_labels.setdefault(tuple(cell), []).append(letter)
            walkable = {(r, c) for r, row in enumerate(state.grid) for c, ch in enumerate(row) if ch == "."}
            session = module.PathClosestStepSession(
                doc=doc,
                base_image=None,
                current=tuple(doc["start"]),
                goal=tuple(doc["goal"]),
                walkable=walkable,
                grid_size=len(state.grid),
                optimal_steps=len(doc["answer_path"]) - 1,
                coord_to_labels=coord_to_labels,
                gold_labels_order=adapter._parse_gold_labels_order(doc),
            )
            adapter._current_session = session
        elif family == "onet":
            adapter = module.OnetStepAdapter()
            board = self.utils["onet"]._parse_board_grid(doc)
            session = module.OnetStepSession(
                doc=doc,
                base_image=None,
                board=[list(r) for r in board],
                initial_board=[list(r) for r in board],
                use_aux_step_grid=False,
                grid_size=6,
                initial_visual=None,
            )
        elif family == "parking":
            adapter = module.ParkingStepAdapter()
            cars = self.utils["parking"]._state_from_doc(doc)
            session = module.ParkingExitStepSession(
                doc=doc,
                base_image=None,
                cars=[dict(c) for c in cars],
                grid_size=int(doc["grid_size"]),
                exit_row_1based=int(doc["exit_row"]),
                exit_row_0=int(doc["exit_row"]) - 1,
                use_aux_step_grid=False,
                initial_visual=None,
                optimal_steps=int(doc["optimal_steps"]),
                executed_steps=0,
            )
        else:
            adapter = module.KlotskiStepAdapter()
            session = module.KlotskiStepSession(
                doc=doc,
                base_image=None,
                state=self.utils["klotski"].deserialize_state(doc["initial_state"]),
                use_aux_step_grid=False,
                initial_visual=None,
                optimal_steps=int(doc["optimal_steps"]),
                executed_steps=0,
            )
        adapter.initialize_session = lambda doc, visuals, gen_kwargs: session
        return adapter, session

    def episode(
        self, family: str, doc: dict[str, Any], state: Any, budget: str, replies: list[str], counts: list[str]
    ) -> tuple[bool, int]:
        """(solved, accepted moves) of their runner fed ``replies`` (and ``counts`` for the probe)."""
        adapter, _ = self.adapter_and_session(family, doc, state)
        step_replies, count_replies = iter(replies), iter(counts)

        def generate(*, messages: list[Any], gen_kwargs: Any, max_new_tokens: int) -> str:
            probe = "How many more steps" in str(messages[-1]["content"])
            return next(count_replies, "") if probe else next(step_replies, "")

        run = self.protocol.run_step_protocol_old if budget == "optimal" else self.protocol.run_step_protocol
        result = run(
            adapter=adapter,
            context="",
            doc=doc,
            visuals=[],
            gen_kwargs={},
            system_prompt="",
            generate_text_with_messages=generate,
            build_processed_visuals=lambda visuals: [],
            final_answer_parser=str,
            generate_step_image=lambda **kwargs: object(),
        )
        if result.illegal:
            return False, len(result.moves)
        solved, _ = self.score(family, doc, result.answer)
        return solved, len(result.moves)


# ------------------------------------------------------------------ answer variants


@dataclass
class Case:
    family: str
    difficulty: str
    state: Any
    solution: Any
    reference: dict[str, Any]
    doc: dict[str, Any]


def _json_variants(tag: str, payload_obj: Any, wrong: str) -> Iterator[tuple[str, str]]:
    """Format variants of a tagged JSON answer (maze, sokoban, onet, parking)."""
    compact = json.dumps(payload_obj, separators=(",", ":"))
    spaced = json.dumps(payload_obj)
    yield "canonical", f"<{tag}>{compact}</{tag}>"
    yield "their_fallback_format", f"<{tag}>{spaced}</{tag}>"
    yield "prose_before", f"Let me think step by step.\nThe plan is clear.\n<{tag}>{spaced}</{tag}>"
    yield "lower_tag", f"<{tag.lower()}>{compact}</{tag.lower()}>"
    yield "upper_tag", f"<{tag.upper()}>{compact}</{tag.upper()}>"
    yield "spaces_in_tag", f"<{tag}>\n  {spaced}\n</{tag}>"
    yield "single_quotes", f"<{tag}>{spaced.replace(chr(34), chr(39))}</{tag}>"
    yield "trailing_comma", f"<{tag}>{spaced[:-1]},{spaced[-1]}</{tag}>"
    yield "fence_inside_tag", f"<{tag}>\n```json\n{spaced}\n```\n</{tag}>"
    yield "fence_around_tag", f"```\n<{tag}>{spaced}</{tag}>\n```"
    yield "untagged_json", spaced
    yield "untagged_json_after_prose", f"The answer is {spaced}"
    yield "unclosed_tag", f"<{tag}>{spaced}"
    yield "unclosed_tag_then_text", f"<{tag}>{spaced}\nDone."
    yield "broken_close_tag", f"<{tag}>{spaced}</{tag}"
    yield "json_wrapper", json.dumps({"text": f"<{tag}>{spaced}</{tag}>", "images": []})
    yield "wrong_then_right", f"<{tag}>{wrong}</{tag}>\nWait, correction:\n<{tag}>{spaced}</{tag}>"
    yield "right_then_wrong", f"<{tag}>{spaced}</{tag}>\nHmm, or:\n<{tag}>{wrong}</{tag}>"
    yield "right_then_unreadable", f"<{tag}>{spaced}</{tag}>\n<{tag}>none</{tag}>"
    yield "right_then_bare_words", f"<{tag}>{spaced}</{tag}>\n<{tag}>up, left</{tag}>"
    yield "tag_in_prose_then_answer", f"I will answer in <{tag}> tags.\n<{tag}>{spaced}</{tag}>"
    yield "truncated", f"<{tag}>{spaced[: max(1, len(spaced) // 2)]}"
    yield "truncated_closed", f"<{tag}>{spaced[: max(1, len(spaced) // 2)]}</{tag}>"
    yield "nested_list", f"<{tag}>[{spaced}]</{tag}>"
    yield "object_wrapper", f"<{tag}>" + json.dumps({"solution": payload_obj}) + f"</{tag}>"


def direction_variants(case: Case, rng: random.Random) -> Iterator[tuple[str, str]]:
    answer = list(case.solution.answer)
    wrong = json.dumps(list(reversed(answer)) + ["up"])
    yield from _json_variants("ANSWER_JSON", answer, wrong)
    yield "capitalized", "<ANSWER_JSON>" + json.dumps([m.capitalize() for m in answer]) + "</ANSWER_JSON>"
    yield "upper_moves", "<ANSWER_JSON>" + json.dumps([m.upper() for m in answer]) + "</ANSWER_JSON>"
    yield "udlr", "<ANSWER_JSON>" + json.dumps([m[0] for m in answer]) + "</ANSWER_JSON>"
    yield "padded_moves", "<ANSWER_JSON>" + json.dumps([f" {m} " for m in answer]) + "</ANSWER_JSON>"
    yield "bare_words", "<ANSWER_JSON>" + ", ".join(answer) + "</ANSWER_JSON>"
    yield "unknown_move", "<ANSWER_JSON>" + json.dumps(answer + ["north"]) + "</ANSWER_JSON>"
    yield "number_move", "<ANSWER_JSON>" + json.dumps(answer + [1]) + "</ANSWER_JSON>"
    yield "empty_list", "<ANSWER_JSON>[]</ANSWER_JSON>"
    yield from _shared_variants(case, rng)


def parking_variants(case: Case, rng: random.Random) -> Iterator[tuple[str, str]]:
    answer = list(case.solution.answer)
    moves = [{"car": car, "direction": d} for car, d in answer]
    wrong = json.dumps([{"car": "R", "direction": "up"}])
    yield from _json_variants("ANSWER_JSON", moves, wrong)
    grouped: list[dict[str, Any]] = []
    for car, d in answer:
        if grouped and grouped[-1]["car"] == car and grouped[-1]["direction"] == d:
            grouped[-1]["steps"] += 1
        else:
            grouped.append({"car": car, "direction": d, "steps": 1})
    yield "steps_key", "<ANSWER_JSON>" + json.dumps(grouped) + "</ANSWER_JSON>"
    yield (
        "distance_key",
        "<ANSWER_JSON>"
        + json.dumps([{"car": g["car"], "direction": g["direction"], "distance": g["steps"]} for g in grouped])
        + "</ANSWER_JSON>",
    )
    yield "solution_wrapper", "<ANSWER_JSON>" + json.dumps({"solution": moves}) + "</ANSWER_JSON>"
    yield "solution_wrapper_untagged", json.dumps({"solution": moves})
    yield "udlr", "<ANSWER_JSON>" + json.dumps([{"car": c, "direction": d[0]} for c, d in answer]) + "</ANSWER_JSON>"
    yield (
        "lower_car",
        "<ANSWER_JSON>" + json.dumps([{"car": c.lower(), "direction": d} for c, d in answer]) + "</ANSWER_JSON>",
    )
    yield "key_case", "<ANSWER_JSON>" + json.dumps([{"Car": c, "Direction": d} for c, d in answer]) + "</ANSWER_JSON>"
    yield "string_items", "<ANSWER_JSON>" + json.dumps([f"{c} {d}" for c, d in answer]) + "</ANSWER_JSON>"
    yield "mixed_items", "<ANSWER_JSON>" + json.dumps(["note", *moves]) + "</ANSWER_JSON>"
    yield "unknown_car", "<ANSWER_JSON>" + json.dumps([{"car": "Z9", "direction": "up"}, *moves]) + "</ANSWER_JSON>"
    yield "empty_list", "<ANSWER_JSON>[]</ANSWER_JSON>"
    yield from _shared_variants(case, rng)


def onet_variants(case: Case, rng: random.Random) -> Iterator[tuple[str, str]]:
    answer = [[list(a), list(b)] for a, b in case.solution.answer]
    wrong = json.dumps([[[0, 0], [0, 0]]])
    yield from _json_variants("answer_json", answer, wrong)
    yield (
        "tuple_cells",
        "<answer_json>[" + ", ".join(f"[({a[0]}, {a[1]}), ({b[0]}, {b[1]})]" for a, b in answer) + "]</answer_json>",
    )
    yield (
        "string_coords",
        "<answer_json>"
        + json.dumps([[[str(v) for v in a], [str(v) for v in b]] for a, b in answer])
        + "</answer_json>",
    )
    yield (
        "float_coords",
        "<answer_json>"
        + json.dumps([[[float(v) for v in a], [float(v) for v in b]] for a, b in answer])
        + "</answer_json>",
    )
    yield "unclosed_at_end", "Removals:\n<answer_json>" + json.dumps(answer)
    yield "reversed_order", "<answer_json>" + json.dumps(list(reversed(answer))) + "</answer_json>"
    yield "swapped_cells", "<answer_json>" + json.dumps([[b, a] for a, b in answer]) + "</answer_json>"
    yield "missing_last", "<answer_json>" + json.dumps(answer[:-1]) + "</answer_json>"
    yield "flat_pairs", "<answer_json>" + json.dumps([a + b for a, b in answer]) + "</answer_json>"
    yield "empty_list", "<answer_json>[]</answer_json>"
    yield from _shared_variants(case, rng)


def path_variants(case: Case, rng: random.Random) -> Iterator[tuple[str, str]]:
    letters = list(case.solution.answer)
    others = [letter for letter, _ in case.state.labels if letter not in letters]
    joined = ",".join(letters)
    yield "canonical", f"<answer>{joined}</answer>"
    yield "spaces", f"<answer> {', '.join(letters)} </answer>"
    yield "prose_before", f"The route goes from the start to the destination.\n<answer>{joined}</answer>"
    yield "compact", f"<answer>{''.join(letters)}</answer>"
    yield (
        "and",
        "<answer>"
        + (", ".join(letters[:-1]) + " and " + letters[-1] if len(letters) > 1 else letters[0])
        + "</answer>",
    )
    yield "arrows", "<answer>" + " -> ".join(letters) + "</answer>"
    yield "semicolons", "<answer>" + "; ".join(letters) + "</answer>"
    yield "lowercase", f"<answer>{joined.lower()}</answer>"
    yield "brackets", "<answer>[" + ", ".join(letters) + "]</answer>"
    yield "quoted", "<answer>" + ", ".join(f"'{x}'" for x in letters) + "</answer>"
    yield "json_list", "<answer>" + json.dumps(letters) + "</answer>"
    yield "sentence_in_tag", "<answer>The path passes " + ", then ".join(letters) + "</answer>"
    yield "upper_tag", f"<ANSWER>{joined}</ANSWER>"
    yield "untagged_last_line", f"Reasoning about the route.\n{', '.join(letters)}"
    yield "untagged_sentence", "So the labels on the path are " + ", ".join(letters) + "."
    yield "unclosed_tag", f"<answer>{joined}"
    yield "fence_inside_tag", f"<answer>```{joined}```</answer>"
    yield "json_wrapper", json.dumps({"text": f"<answer>{joined}</answer>", "images": []})
    yield "none_in_tag_with_letters_above", f"I looked at {letters[0]}.\n<answer>none</answer>"
    yield "empty_tag", "<answer></answer>"
    yield "right_then_wrong", f"<answer>{joined}</answer>\n<answer>{','.join(others or ['A'])}</answer>"
    yield "wrong_then_right", f"<answer>{','.join(others or ['A'])}</answer>\n<answer>{joined}</answer>"
    yield "right_then_unreadable", f"<answer>{joined}</answer> then <answer>none</answer>"
    yield "extra_letter", f"<answer>{joined},{(others or ['A'])[0]}</answer>"
    yield "missing_letter", "<answer>" + ",".join(letters[:-1]) + "</answer>"
    yield "reversed", "<answer>" + ",".join(reversed(letters)) + "</answer>"
    yield "article_a_in_prose", "A route exists.\nIt passes " + " and ".join(letters) + "."
    yield "truncated", f"<answer>{joined[: max(1, len(joined) // 2)]}"
    yield from _shared_variants(case, rng)


def klotski_variants(case: Case, rng: random.Random) -> Iterator[tuple[str, str]]:
    moves = [{"from": [r, c], "direction": d.upper()} for (r, c), d in case.solution.answer]
    body = json.dumps({"solution": moves})
    compact = json.dumps({"solution": moves}, separators=(",", ":"))
    wrong = json.dumps({"solution": [{"from": [0, 0], "direction": "UP"}]})
    yield "canonical", compact
    yield "spaced", body
    yield "prose_before", f"First I free the column.\n{body}"
    yield "fenced", f"```json\n{body}\n```"
    yield "tagged", f"<answer_json>{body}</answer_json>"
    yield "wrong_then_right", f"{wrong}\nActually:\n{body}"
    yield "right_then_wrong", f"{body}\nOr maybe:\n{wrong}"
    yield "nested", json.dumps({"answer": {"solution": moves}})
    yield (
        "lower_direction",
        json.dumps({"solution": [{"from": m["from"], "direction": m["direction"].lower()} for m in moves]}),
    )
    yield "udlr", json.dumps({"solution": [{"from": m["from"], "direction": m["direction"][0]} for m in moves]})
    yield (
        "string_from",
        json.dumps({"solution": [{"from": [str(v) for v in m["from"]], "direction": m["direction"]} for m in moves]}),
    )
    yield (
        "float_from",
        json.dumps({"solution": [{"from": [float(v) for v in m["from"]], "direction": m["direction"]} for m in moves]}),
    )
    yield "single_quotes", body.replace('"', "'")
    yield "trailing_comma", body[:-2] + ",]}"
    yield "brace_less", ", ".join(f'"from": {m["from"]}, "direction": "{m["direction"]}"' for m in moves)
    yield "json_wrapper", json.dumps({"text": body})
    yield "solution_null", json.dumps({"solution": None})
    yield "solution_string", json.dumps({"solution": "none"})
    yield "missing_direction", json.dumps({"solution": [{"from": m["from"]} for m in moves]})
    yield "empty_solution", '{"solution": []}'
    yield "truncated", body[: len(body) // 2]
    yield from _shared_variants(case, rng)


def _shared_variants(case: Case, rng: random.Random) -> Iterator[tuple[str, str]]:
    """Suboptimal, illegal, random, empty answers in the family's canonical format."""
    family, state = FAMILIES[case.family], case.state
    yield "empty", ""
    yield "whitespace", "  \n "
    yield "prose_only", "I could not solve this puzzle."
    for k in range(3):
        yield (
            f"random_{k}",
            family.format_answer(family.random_answer(state, np.random.default_rng(rng.randrange(1 << 30)))),
        )
    detour = _detour(case)
    if detour is not None:
        yield "suboptimal", family.format_answer(detour)
    illegal = _illegal(case)
    if illegal is not None:
        yield "illegal", family.format_answer(illegal)
    answer = tuple(case.solution.answer)
    if len(answer) > 1:
        yield "prefix_only", family.format_answer(answer[:-1])


def _detour(case: Case) -> tuple[Any, ...] | None:
    """A legal answer one back-and-forth longer than the optimum (families that have one)."""
    family, state, answer = FAMILIES[case.family], case.state, tuple(case.solution.answer)
    if case.family in ("maze", "sokoban"):
        for move in DIRECTIONS:
            pair = (move, OPPOSITE[move])
            if family.replay(state, pair + answer).feasible:
                return pair + answer
    if case.family == "parking":
        for vehicle in state.vehicles:
            for move in DIRECTIONS:
                pair = ((vehicle.id, move), (vehicle.id, OPPOSITE[move]))
                if family.replay(state, pair + answer).feasible:
                    return pair + answer
    if case.family == "klotski":
        for block in state.blocks:
            for move in DIRECTIONS:
                first = ((block.row, block.col), move)
                moved = family.apply_step(state, first)
                if isinstance(moved, Illegal):
                    continue
                dr, dc = {"up": (-1, 0), "down": (1, 0), "left": (0, -1), "right": (0, 1)}[move]
                back = ((block.row + dr, block.col + dc), OPPOSITE[move])
                if family.replay(state, (first, back) + answer).feasible:
                    return (first, back) + answer
    return None


def _illegal(case: Case) -> tuple[Any, ...] | None:
    """The optimal answer with an illegal first step put in front."""
    family, state, answer = FAMILIES[case.family], case.state, tuple(case.solution.answer)
    candidates: list[Any]
    if case.family in ("maze", "sokoban"):
        candidates = list(DIRECTIONS)
    elif case.family == "parking":
        candidates = [(v.id, m) for v in state.vehicles for m in DIRECTIONS]
    elif case.family == "klotski":
        candidates = [((r, c), m) for r in range(6) for c in range(6) for m in DIRECTIONS]
    elif case.family == "onet":
        candidates = [((0, 0), (5, 5)), ((0, 0), (0, 0))]
    else:
        return None
    for step in candidates:
        if isinstance(family.apply_step(state, step), Illegal):
            return (step, *answer)
    return None


VARIANTS: dict[str, Callable[[Case, random.Random], Iterator[tuple[str, str]]]] = {
    "maze": direction_variants,
    "sokoban": direction_variants,
    "path": path_variants,
    "onet": onet_variants,
    "parking": parking_variants,
    "klotski": klotski_variants,
}


# ------------------------------------------------------------------ episodes


def episode_scripts(case: Case) -> Iterator[tuple[str, str, list[str], list[str]]]:
    """(name, budget, step replies, steps-left replies) to play through both runners."""
    family = FAMILIES[case.family]
    steps = family.oracle_steps(case.state)
    n = len(steps)
    ours = [family.format_step(step) for step in steps]
    honest = [f"<answer>{n - k}</answer>" for k in range(1, n + 1)]
    early_zero = [f"<answer>{n - k - 1}</answer>" for k in range(1, n + 1)]  # 0 one step early
    for budget in ("optimal", "fixed"):
        yield "oracle", budget, ours, honest
        yield "oracle_zero_one_early", budget, ours, early_zero
        yield "oracle_says_zero_at_once", budget, ours, ["<answer>0</answer>"] * n
        yield "oracle_counts_unreadable", budget, ours, ["three"] * n
        yield (
            "oracle_counts_then_none_tag",
            budget,
            ours,
            [f"<answer>{n - k}</answer><answer>x</answer>" for k in range(1, n + 1)],
        )
        yield "oracle_prose", budget, [f"Thinking... {reply}" for reply in ours], honest
        yield "first_half_only", budget, ours[: max(1, n // 2)] + ["I am not sure."], honest
        yield "garbage", budget, ["no idea"] * n, honest
        detour = _detour(case)
        if detour is not None:
            counts = [f"<answer>{len(detour) - k}</answer>" for k in range(1, len(detour) + 1)]
            yield "detour", budget, [family.format_step(s) for s in detour], counts
        if case.family in ("maze", "sokoban"):
            yield (
                "mentions_other_direction_first",
                budget,
                [f"Not {OPPOSITE[s]}: Next, move one step {s}." for s in steps],
                honest,
            )
            yield "udlr_words", budget, [f"Next, move one step {s[0]}." for s in steps], honest
            yield "json_list", budget, [json.dumps([s]) for s in steps], honest
        if case.family == "path":
            yield (
                "untagged_json",
                budget,
                [json.dumps({"move": s.move, "hit_labels": list(s.hit_labels)}) for s in steps],
                honest,
            )
            yield "no_labels_declared", budget, [family.format_step(PathStep(s.move)) for s in steps], honest
            yield (
                "all_labels_first",
                budget,
                [family.format_step(PathStep(steps[0].move, tuple(case.solution.answer)))] + ours[1:],
                honest,
            )
            yield (
                "labels_twice",
                budget,
                [family.format_step(PathStep(s.move, s.hit_labels * 2)) for s in steps],
                honest,
            )
            yield "single_quotes", budget, [r.replace('"', "'") for r in ours], honest
            yield (
                "prose_direction",
                budget,
                [f"I move {s.move}, hit_labels: {list(s.hit_labels)}" for s in steps],
                honest,
            )
            honest_before = [f"<answer>{n - 1 - k}</answer>" for k in range(1, n + 1)]
            yield "zero_before_destination", budget, ours, honest_before
        if case.family in ("onet", "parking", "klotski"):
            yield "untagged", budget, [r.replace("<STEP_JSON>", "").replace("</STEP_JSON>", "") for r in ours], honest
            yield (
                "in_prose",
                budget,
                [f"My move: {r.replace('<STEP_JSON>', '').replace('</STEP_JSON>', '')} ok" for r in ours],
                honest,
            )
            yield "single_quotes", budget, [r.replace('"', "'") for r in ours], honest
        if case.family == "parking":
            yield "udlr", budget, [family.format_step((c, d)).replace(f'"{d}"', f'"{d[0]}"') for c, d in steps], honest
        if case.family == "klotski":
            yield (
                "string_from",
                budget,
                [r.replace("[", '["').replace(",", '","', 1).replace("]", '"]') for r in ours],
                honest,
            )


def our_episode(
    case: Case, budget: str, replies: list[str], counts: list[str], reader: str = "authors"
) -> tuple[bool, int]:
    """(solved, accepted moves) of our interactive episode read by ``reader``."""
    from vgau_data.runners.backends.base import Completion
    from vgau_data.runners.instances import Instance
    from vgau_data.runners.protocols import ProtocolConfig, make_episode

    ref = case.reference
    instance = Instance(
        ref["id"],
        ref["task"],
        ref["difficulty"],
        ref["optimal_length"],
        ref["state"],
        image_data=FAMILIES[case.family].render(case.state),
    )
    episode = make_episode(instance, ProtocolConfig(name="oracle_vcot", budget=budget, reader=reader))
    step_replies, count_replies = iter(replies), iter(counts)
    while not episode.done:
        asks = episode.request().asks
        text = next(count_replies, "") if asks == "remaining" else next(step_replies, "")
        episode.advance(Completion(text=text))
    outcome = episode.outcome()
    verdict = score_answer(outcome.output, instance.reference, reader=reader)
    accepted = outcome.steps - (outcome.end in ("illegal", "off_optimum", "wrong_label"))
    return verdict.feasible, accepted


# ------------------------------------------------------------------ fixtures


def fixture_cases(folder: Path) -> dict[str, Case]:
    boards = json.loads((folder / "boards.json").read_text(encoding="utf-8"))
    cases = {}
    for name, board in boards.items():
        family = FAMILIES[board["family"]]
        state = family.from_json(json.dumps(board["state"]))
        solution = family.solve(state)
        row = {
            "id": f"{board['family']}-easy-9999",
            "task": board["family"],
            "difficulty": "easy",
            "optimal_length": solution.optimal_length,
            "state": family.to_json(state),
        }
        cases[name] = Case(
            board["family"], "easy", state, solution, row, to_doc(board["family"], state, solution, "easy")
        )
    return cases


def check_fixtures(theirs: Theirs, folder: Path) -> bool:
    """Their code gives the verdicts the fixtures state for them (the hand traces are right)."""
    cases = fixture_cases(folder)
    wrong = []
    lines = [json.loads(line) for line in (folder / "answers.jsonl").read_text(encoding="utf-8").splitlines() if line]
    for item in lines:
        case = cases[item["board"]]
        if list(theirs.score(case.family, case.doc, item["text"])) != item["authors"]:
            wrong.append(f"answer {item['board']} {item['class']}: {item['text'][:60]!r}")
    episodes = [
        json.loads(line) for line in (folder / "episodes.jsonl").read_text(encoding="utf-8").splitlines() if line
    ]
    for item in episodes:
        case = cases[item["board"]]
        got = theirs.episode(case.family, case.doc, case.state, item["budget"], item["steps"], item["counts"])
        if list(got) != [item["authors"]["solved"], item["authors"]["accepted"]]:
            wrong.append(f"episode {item['board']} {item['class']} {item['budget']}: theirs {got}")
    print(f"fixtures: {len(lines)} answers, {len(episodes)} episodes; {len(wrong)} disagree with their code")
    for line in wrong:
        print(f"  {line}")
    return not wrong


# ------------------------------------------------------------------ main


def make_cases(per_bucket: int, seed: int, families: list[str] | None = None) -> list[Case]:
    cases = []
    for name, family in FAMILIES.items():
        if families and name not in families:
            continue
        for difficulty in DIFFICULTIES:
            for index in range(per_bucket):
                rng = np.random.default_rng([seed, list(FAMILIES).index(name), DIFFICULTIES.index(difficulty), index])
                state = family.generate(difficulty, rng, family.slot(difficulty, index))
                solution = family.solve(state)
                row = {
                    "id": f"{name}-{difficulty}-{index:04d}",
                    "task": name,
                    "difficulty": difficulty,
                    "optimal_length": solution.optimal_length,
                    "state": family.to_json(state),
                }
                cases.append(Case(name, difficulty, state, solution, row, to_doc(name, state, solution, difficulty)))
    return cases


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--authors", required=True, type=Path, help="scratch folder with their lmms_eval/ files")
    parser.add_argument("--per-bucket", type=int, default=8, help="instances per family and difficulty (answers)")
    parser.add_argument("--episode-per-bucket", type=int, default=2, help="of those, how many play episodes")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--target", type=float, default=0.99)
    parser.add_argument("--show", type=int, default=15, help="disagreements shown per family")
    parser.add_argument("--no-episodes", action="store_true")
    parser.add_argument("--families", nargs="+", choices=list(FAMILIES), default=None, help="default: every family")
    parser.add_argument(
        "--fixtures",
        type=Path,
        default=None,
        help="also check the hand-worked fixtures (tests/data/authors_reader) against their code",
    )
    args = parser.parse_args(argv)
    theirs = Theirs(args.authors)
    if args.fixtures is not None and not check_fixtures(theirs, args.fixtures):
        return 1
    cases = make_cases(args.per_bucket, args.seed, args.families)
    rng = random.Random(args.seed)
    answers: dict[str, Counter[str]] = defaultdict(Counter)
    classes: dict[str, set[str]] = defaultdict(set)
    misses: dict[str, list[str]] = defaultdict(list)
    differs: dict[str, Counter[str]] = defaultdict(Counter)
    for case in cases:
        for name, text in VARIANTS[case.family](case, rng):
            classes[case.family].add(name)
            solved, optimal = theirs.score(case.family, case.doc, text)
            mine = score_answer(text, case.reference, reader="authors")
            mine_pair = (
                (mine.feasible, mine.optimal) if case.family not in ("path", "onet") else (mine.feasible, mine.feasible)
            )
            answers[case.family]["n"] += 1
            if mine_pair == (solved, optimal):
                answers[case.family]["agree"] += 1
            else:
                misses[case.family].append(
                    f"{case.reference['id']} {name}: theirs {(solved, optimal)} ours {mine_pair} | {text[:90]!r}"
                )
            default = score_answer(text, case.reference)
            if (default.feasible, default.optimal) != (mine.feasible, mine.optimal):
                differs[case.family][name] += 1
    episodes: dict[str, Counter[str]] = defaultdict(Counter)
    episode_misses: dict[str, list[str]] = defaultdict(list)
    if not args.no_episodes:
        played = [case for case in cases if int(case.reference["id"].rsplit("-", 1)[1]) < args.episode_per_bucket]
        for number, case in enumerate(played, start=1):
            print(f"episodes {number}/{len(played)}: {case.reference['id']}", file=sys.stderr, flush=True)
            for name, budget, replies, counts in episode_scripts(case):
                expected = theirs.episode(case.family, case.doc, case.state, budget, replies, counts)
                got = our_episode(case, budget, replies, counts)
                episodes[case.family]["n"] += 1
                episodes[case.family]["solved"] += expected[0]
                episodes[case.family]["differ"] += our_episode(case, budget, replies, counts, "ours")[0] != expected[0]
                if expected == got:
                    episodes[case.family]["agree"] += 1
                else:
                    episode_misses[case.family].append(
                        f"{case.reference['id']} {budget} {name}: theirs {expected} ours {got}"
                    )
    chosen = args.families or list(FAMILIES)
    worst = 1.0
    print(
        f"{'family':<9} {'answers':>8} {'agree':>8} {'classes':>8} {'ours differs':>13} "
        f"{'episodes':>9} {'solved':>7} {'agree':>8} {'ours differs':>13}"
    )
    for family in chosen:
        a = answers[family]
        e = episodes[family]
        share = a["agree"] / a["n"] if a["n"] else 0.0
        eshare = e["agree"] / e["n"] if e["n"] else 1.0
        worst = min(worst, share, eshare)
        print(
            f"{family:<9} {a['n']:>8} {100 * share:>7.2f}% {len(classes[family]):>8} "
            f"{100 * sum(differs[family].values()) / max(a['n'], 1):>12.1f}% {e['n']:>9} {e['solved']:>7} "
            f"{100 * eshare:>7.2f}% {100 * e['differ'] / max(e['n'], 1):>12.1f}%"
        )
    for family in chosen:
        for line in misses[family][: args.show]:
            print(f"  answer  {line}")
        for line in episode_misses[family][: args.show]:
            print(f"  episode {line}")
    if theirs.raised:
        print(f"their scorer raised on: {dict(theirs.raised)} answer(s) (counted as not solved)")
    print("\nvariants whose verdict differs between reader='ours' and reader='authors' (count over instances):")
    for family in chosen:
        listed = ", ".join(f"{name} {count}" for name, count in sorted(differs[family].items()))
        print(f"  {family}: {listed or '-'}")
    return 0 if worst >= args.target else 1


if __name__ == "__main__":
    raise SystemExit(main())
