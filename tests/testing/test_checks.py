"""``check_family``: every registered family passes it, it reads every field, and it catches what is broken.

The mutants are the toy family (``tests/toy_family``: 3x3 boards, milliseconds a check) or
a published one with one thing wrong, built with ``dataclasses.replace``, which reaches
the derived behaviour too (``trajectory``, ``random_step``... are computed from fields).
"""

from __future__ import annotations

import dataclasses
import json
import time
from types import SimpleNamespace
from typing import Any

import numpy as np
import pytest

from tests.toy_family import lights
from tests.toy_family.lights import render as _lights_render  # noqa: F401 - lights.render below
from tests.toy_family.lights import state as _lights_state  # noqa: F401 - lights.state below
from vgau_data.answers import last_tagged, step_text
from vgau_data.errors import StateError
from vgau_data.puzzles.base import FamilySpec, Illegal, Replay, replay_steps
from vgau_data.puzzles.capabilities import EpisodeSteps, StyledBoard, Styles
from vgau_data.puzzles.path.state import PathStep
from vgau_data.registry import FAMILIES, get_family
from vgau_data.render_styles import RenderStyle
from vgau_data.testing import FamilyCheckError, check_family
from vgau_data.testing.impossible import check_impossible_states

MAZE = get_family("maze")
SOKOBAN = get_family("sokoban")
LIGHTS = lights.SPEC


@pytest.mark.parametrize("spec", [pytest.param(spec, id=name) for name, spec in FAMILIES.items()])
def test_check_family__every_registered_family_passes(spec: FamilySpec) -> None:
    check_family(spec, seed=11)


def test_check_family__the_toy_family_passes() -> None:
    check_family(LIGHTS, seed=11, per_bucket=3)


# ------------------------------------------------------------------ it reads every field


class Spy:
    """Stands in for a ``FamilySpec`` (or a capability group) and records every field read of it.

    Methods are bound to the spy, so the fields a derived method reads count too.
    """

    def __init__(self, target: Any, reads: set[str], prefix: str = "") -> None:
        self._target, self._reads, self._prefix, self._children = target, reads, prefix, {}

    def __getattr__(self, name: str) -> Any:
        fields = {field.name for field in dataclasses.fields(self._target)}
        if name == "styled":  # builds a spec with dataclasses.replace, which needs the real one
            return self._target.styled
        if name not in fields:
            method = getattr(type(self._target), name)
            return method.__get__(self) if callable(method) else getattr(self._target, name)
        self._reads.add(self._prefix + name)
        value = getattr(self._target, name)
        if dataclasses.is_dataclass(value) and not isinstance(value, type) and name in GROUPS:
            return self._children.setdefault(name, Spy(value, self._reads, f"{name}."))
        return value


GROUPS = ("episode_steps", "fidelity", "vr", "paper", "structure", "symmetry", "styles")


def _every_field(spec: FamilySpec) -> set[str]:
    names = {field.name for field in dataclasses.fields(FamilySpec)}
    for group in GROUPS:
        if getattr(spec, group) is not None:
            names |= {f"{group}.{field.name}" for field in dataclasses.fields(getattr(spec, group))}
    return names


@pytest.mark.parametrize("name", ["maze", "path"])
def test_check_family__reads_every_field_of_the_spec_and_its_capabilities(name: str) -> None:
    """Maze declares fidelity, vr, paper, structure and symmetry; path adds episode_steps."""
    spec, reads = get_family(name), set()
    check_family(Spy(spec, reads), per_bucket=1)  # type: ignore[arg-type]
    assert _every_field(spec) - reads == set()


# ------------------------------------------------------------------ the mistakes it catches


def _recoded(replay: Any, code: str, new_code: str | None = None, index: int | None = None) -> Any:
    """``replay`` with verdicts of ``code`` given another code or first invalid step."""

    def wrong(state: Any, answer: Any) -> Replay:
        verdict = replay(state, answer)
        if verdict.error != code:
            return verdict
        return dataclasses.replace(verdict, error=new_code or code, first_invalid_step=index)

    return wrong


def _rules(spec: FamilySpec, apply_step: Any) -> dict[str, Any]:
    """Changed rules: ``apply_step`` and a replay that steps it (both wrong in the same way)."""
    return {"apply_step": apply_step, "replay": lambda s, a: replay_steps(s, a, apply_step, spec.is_goal)}


def _off_board_as(spec: FamilySpec, code: str) -> dict[str, Any]:
    def apply(state: Any, step: Any) -> Any:
        after = spec.apply_step(state, step)
        return Illegal(code, 0) if after == Illegal("out_of_bounds", 0) else after

    return _rules(spec, apply)


def _clamped(spec: FamilySpec, into: Any) -> dict[str, Any]:
    """Off-board steps are not refused: ``into(state, step)`` is what happens instead."""

    def apply(state: Any, step: Any) -> Any:
        after = spec.apply_step(state, step)
        return into(state, step) if after == Illegal("out_of_bounds", 0) else after

    return _rules(spec, apply)


def _clamp_press(state: Any, step: Any) -> Any:
    return LIGHTS.apply_step(state, (min(max(step[0], 0), 2), min(max(step[1], 0), 2)))


def _parse_strictly(text: str) -> tuple[Any, ...]:
    """A parser that trusts ``json.loads``: junk raises ``ValueError``."""
    payload = last_tagged(text, "answer_json") if isinstance(text, str) else None
    return LIGHTS.parse_answer(text) if payload is None else tuple(tuple(cell) for cell in json.loads(payload))


def _slow_on_long_text(text: str) -> tuple[Any, ...]:
    if isinstance(text, str) and len(text) > 10_000 and text.startswith("[[[["):
        time.sleep(1.05)  # stands in for a quadratic scan of nested brackets
    return LIGHTS.parse_answer(text)


def _uncapped(text: str) -> tuple[Any, ...]:
    """Reads the last tagged list whatever its length (no ``MAX_ANSWER_STEPS``, no ``MAX_ANSWER_CHARS``)."""
    payload = last_tagged(text, "answer_json") if isinstance(text, str) else None
    if payload is None:
        return LIGHTS.parse_answer(text)
    try:
        return tuple(tuple(cell) for cell in json.loads(payload))
    except ValueError:
        return LIGHTS.parse_answer(text)


def _press_twice_more(state: Any) -> Any:
    solution = LIGHTS.solve(state)
    return dataclasses.replace(solution, answer=(*solution.answer, (0, 0), (0, 0)), optimal_length=solution.optimal_length + 2)


def _with_fidelity(**changes: Any) -> dict[str, Any]:
    return {"fidelity": dataclasses.replace(LIGHTS.fidelity, **changes)}


def _labels_by_position(state: Any) -> tuple[str, ...]:
    """Labels that are not what a cell shows: its look and where it is."""
    return tuple(f"{label}{i % 2}" for i, label in enumerate(LIGHTS.fidelity.cell_labels(state)))


def _perturb_one_more(state: Any, k: int, rng: np.random.Generator) -> Any:
    return LIGHTS.fidelity.perturb(state, k + 1, rng)


def _from_json_unchecked(text: str) -> Any:
    """Reads any list of strings as the lamps: rows of any length, any characters."""
    try:
        return lights.state.LightsState(tuple(json.loads(text)["lights"]))
    except (ValueError, KeyError, TypeError, RecursionError) as error:
        raise StateError(str(error)[:80]) from None


def _render_rows_by_count(state: Any) -> Any:
    """Draws how many lamps of a row are lit, not which (as a renderer that drops the tiles' numbers)."""
    return LIGHTS.render(lights.state.LightsState(tuple("".join(sorted(row)) for row in state.lights)))


def _render_small_lamps(state: Any) -> Any:
    """Lamps as small dots at the cells' centres, where the aid's (r,c) labels go."""
    from PIL import ImageDraw

    image = lights.render.new_board(LIGHTS.geometry, lights.render.PANEL_RGB)
    draw = ImageDraw.Draw(image)
    for cell in np.ndindex(3, 3):
        colour = lights.render.LIT_RGB if state.is_on(cell) else lights.render.DARK_RGB
        draw.rectangle(LIGHTS.geometry.cell_box(cell, inset=42), fill=colour)
    return image


def _step_as_a_word(step: Any) -> str:
    return step_text(f"{step[0]},{step[1]}")


LIGHTS_MUTANTS = {
    # the three the issue names ("misses 3 of 26 realistic mistakes"), and the step JSON rule
    "from_json accepts impossible boards": ({"from_json": _from_json_unchecked}, "from_json accepted a board with"),
    "renderer drops what tells lamps apart": ({"render": _render_rows_by_count}, "draw the same board"),
    "aid labels cover the pieces": ({"render": _render_small_lamps}, "oracle aid as .* cover the pieces"),
    "a step's JSON is a bare string (step_text)": ({"format_step": _step_as_a_word}, "must be a list or an object"),
    "a step's JSON is a bare string (by hand)": (
        {"format_step": lambda step: f'<STEP_JSON>"{step[0]},{step[1]}"</STEP_JSON>'}, "must be a list or an object"
    ),
    # the six an earlier issue named ("missed 6 of 24 injected mistakes")
    "off-board code, fast replay only": ({"replay": _recoded(LIGHTS.replay, "out_of_bounds", "blocked")}, "the rules"),
    "off-board code, rules and replay": (_off_board_as(LIGHTS, "blocked"), "no step off the board was out_of_bounds"),
    "off-board first_invalid_step": ({"replay": _recoded(LIGHTS.replay, "out_of_bounds", index=0)}, "replay gives"),
    "off-board clamped to the edge": (_clamped(LIGHTS, _clamp_press), "no step off the board was out_of_bounds"),
    "code outside ILLEGAL_CODES": (_off_board_as(LIGHTS, "off_board"), "not a step code of ILLEGAL_CODES"),
    "parse_answer raises ValueError": ({"parse_answer": _parse_strictly}, "raised JSONDecodeError"),
    "unique_length set wrongly": ({"unique_length": True}, "unique_length is set but"),
    # and more
    "quadratic parser": ({"parse_answer": _slow_on_long_text}, "not linear in its length"),
    "no step or length cap": ({"parse_answer": _uncapped}, "of 1001 steps gives steps, not bad_format"),
    "parse_step raises on junk": ({"parse_step": lambda text: LIGHTS.parse_step(text[:40])}, "parse_step on the non-text"),
    "solver not optimal": ({"solve": _press_twice_more}, "generated for length"),
    "aid labels cells off the board": (
        {"aid": dataclasses.replace(LIGHTS.aid, labelled_cells=lambda state: frozenset({(0, 0), (3, 3)}))}, "off the board"
    ),
    "cell labels not what a cell shows": (_with_fidelity(cell_labels=_labels_by_position), "the decoder reads"),
    "palette without a lit lamp": (_with_fidelity(palette_states=lambda: (LIGHTS.from_json('{"lights":["...","...","..."]}'),)),
                                   "the decoder reads"),
    "perturb off by one": (_with_fidelity(perturb=_perturb_one_more), "changed 2 cell labels"),
    "structure key missing": (
        {"structure": dataclasses.replace(LIGHTS.structure, measure=lambda s, a: {"lit": 1})}, "structure.measure gives"
    ),
    "a lamp missing from the candidate steps": (
        {"candidate_steps": lambda state: LIGHTS.candidate_steps(state)[:-1]},
        "the legal step \\(2, 2\\) leads to a board no candidate leads to",
    ),
    "generation weight zero": ({"generation_weight": 0}, "generation_weight"),
    "name not an identifier": ({"name": "Lights Out"}, "lowercase identifier"),
    "answer tag not written": ({"answer_tag": "ANSWER"}, "writes no <ANSWER> tag"),
    "from_json lets junk through": ({"from_json": lambda text: LIGHTS.from_json(json.dumps(json.loads(text)))},
                                    "not StateError"),
    "random answers differ per call": (
        {"random_answer": lambda state, rng: LIGHTS.random_answer(state, np.random.default_rng())}, "random_answer"
    ),
}


@pytest.mark.parametrize(("changes", "message"), LIGHTS_MUTANTS.values(), ids=LIGHTS_MUTANTS.keys())
def test_check_family__catches_a_broken_toy_family(changes: dict[str, Any], message: str) -> None:
    with pytest.raises(FamilyCheckError, match=message):
        check_family(dataclasses.replace(LIGHTS, **changes), per_bucket=1)


def _maze_stays(state: Any, step: Any) -> Any:
    return state


def _route_one_short(state: Any, answer: Any) -> Any:
    sketch = MAZE.vr.sketch(state, answer)
    return dataclasses.replace(sketch, routes=tuple(route[:-1] for route in sketch.routes))


def _paper_swaps_start_and_goal(record: Any, image: Any) -> Any:
    read = MAZE.paper.read(record, image)
    return dataclasses.replace(read, state={**read.state, "start": read.state["goal"], "goal": read.state["start"]})


class _ReadsNothing(type(MAZE.authors_reader)):  # type: ignore[misc]
    def read_answer(self, text: str) -> str:
        return "no_answer"
def _styles_always_soft(style: RenderStyle) -> StyledBoard:
    return MAZE.styles.board(RenderStyle("soft"))


def _styles_ignore_the_cell_size(style: RenderStyle) -> StyledBoard:
    return dataclasses.replace(MAZE.styles.board(style), render=MAZE.render)


MAZE_MUTANTS = {
    "off-board step leaves the agent where it is": (_clamped(MAZE, _maze_stays), "leaves the state unchanged"),
    "off-board code, fast replay only": ({"replay": _recoded(MAZE.replay, "out_of_bounds", "wall")}, "the rules"),
    "unique_length set wrongly": ({"unique_length": True}, "unique_length is set but"),
    "drawn route one cell short": ({"vr": dataclasses.replace(MAZE.vr, sketch=_route_one_short)}, "red route"),
    "paper reader swaps start and goal": (
        {"paper": dataclasses.replace(MAZE.paper, read=_paper_swaps_start_and_goal)}, "reads back as another state"
    ),
    "authors reader of another family": ({"authors_reader": SOKOBAN.authors_reader}, "authors_reader.family is"),
    "authors reader reads no answer": ({"authors_reader": _ReadsNothing("maze")}, "reads the canonical answer as"),
    "symmetry does not remap moves": (
        {"symmetry": dataclasses.replace(MAZE.symmetry, map_step=lambda step, name, state: step)},
        "under rot90 the board is another puzzle",
    ),
    "benchmark style drawn in another palette": ({"styles": Styles(board=_styles_always_soft)}, "draws another board"),
    "styled board drawn at the benchmark's size": (
        {"styles": Styles(board=_styles_ignore_the_cell_size)}, "board is \\(552, 552\\), its geometry"
    ),
}


@pytest.mark.parametrize(("changes", "message"), MAZE_MUTANTS.values(), ids=MAZE_MUTANTS.keys())
def test_check_family__catches_a_broken_maze(changes: dict[str, Any], message: str) -> None:
    with pytest.raises(FamilyCheckError, match=message):
        check_family(dataclasses.replace(MAZE, **changes), per_bucket=1)


def test_check_family__catches_an_aid_that_covers_the_letters() -> None:
    """Parking's ids sit on cell boundaries: without ``keep_clear`` the grid lines cross them."""
    parking = get_family("parking")
    with pytest.raises(FamilyCheckError, match="letters .* oracle aid do not read back"):
        check_family(dataclasses.replace(parking, aid=dataclasses.replace(parking.aid, keep_clear=None)), per_bucket=1)


def test_check_impossible_states__catches_a_tile_twice() -> None:
    """An 8-puzzle's tiles are a permutation of 0-8 on every board: a board with a tile twice must be refused."""
    boards = [[1, 2, 3, 4, 5, 6, 7, 8, 0], [1, 2, 3, 4, 5, 6, 7, 0, 8], [1, 2, 3, 4, 0, 6, 7, 5, 8]]

    def from_json(text: str) -> list[int]:  # checks the length and the range, not that each tile is there once
        tiles = json.loads(text).get("tiles", [])
        if len(tiles) != 9 or not all(isinstance(t, int) and 0 <= t <= 8 for t in tiles):
            raise StateError("nine tiles 0-8")
        return tiles

    puzzle = SimpleNamespace(name="eight", to_json=lambda tiles: json.dumps({"tiles": tiles}), from_json=from_json)
    failures: list[str] = []
    check_impossible_states(puzzle, boards, lambda ok, what: failures.append(what) if not ok else None)
    assert len(failures) == 1 and "tiles/1 a copy of 1" in failures[0]
    strict = SimpleNamespace(**{**vars(puzzle), "from_json": lambda text: _distinct(from_json(text))})
    check_impossible_states(strict, boards, lambda ok, what: failures.append(what) if not ok else None)
    assert len(failures) == 1


def _distinct(tiles: list[int]) -> list[int]:
    if len(set(tiles)) != len(tiles):
        raise StateError("a tile twice")
    return tiles


def test_check_family__catches_unique_length_missing_where_every_answer_is_optimal() -> None:
    with pytest.raises(FamilyCheckError, match="set unique_length=True"):
        check_family(dataclasses.replace(get_family("onet"), unique_length=False), per_bucket=1)


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"replay": lambda state, answer: Replay(True, len(answer))}, "step-by-step"),
        (
            {"generate": lambda difficulty, rng, slot=None: LIGHTS.generate(difficulty, np.random.default_rng(), slot)},
            "same seed",
        ),
        ({"generate": lambda difficulty, rng, slot=None: LIGHTS.generate(difficulty, rng)}, "generated for length"),
        ({"length_mix": {**LIGHTS.length_mix, "easy": {1: 5, 3: 15}}}, "length_mix"),
        ({"solve": lambda state: None}, "no solution"),
        ({"format_answer": lambda answer: "<answer_json>[]</answer_json>"}, "answer text round trip"),
        ({"answer_payload": lambda answer: "[]"}, "payload round trip"),
        ({"prompts": dataclasses.replace(LIGHTS.prompts, answer_format="the shortest list")}, "shortest"),
        ({"format_step": lambda step: f"I press this one. {LIGHTS.format_step(step)}"}, None),
        ({"parse_step": lambda text: (0, 0)}, "per-turn step text"),
        ({"render": lambda state: LIGHTS.render(state).resize((10, 10))}, "render"),
        ({"buckets": {"easy": (1, 2), "medium": (2, 5), "hard": (6, 9)}}, "disjoint"),
    ],
    ids=[
        "replay", "generate", "slot", "length_mix", "solve", "format", "payload", "prompt", "step-ok", "step",
        "render", "buckets",
    ],
)
def test_check_family__names_what_is_broken(changes: dict, message: str | None) -> None:
    if message is None:  # a harmless change passes
        check_family(dataclasses.replace(LIGHTS, **changes), per_bucket=1)
        return
    with pytest.raises(FamilyCheckError, match=message):
        check_family(dataclasses.replace(LIGHTS, **changes), per_bucket=1)


def test_check_family__catches_a_path_replay_that_ignores_the_marker() -> None:
    path = get_family("path")

    def letters_only(state, answer):  # scores a walk by its declared letters alone, as the old runner did
        if answer and isinstance(answer[0], PathStep):
            answer = tuple(letter for step in answer for letter in step.hit_labels)
        return path.replay(state, answer)

    with pytest.raises(FamilyCheckError, match="step-by-step"):
        check_family(dataclasses.replace(path, replay=letters_only), per_bucket=1)


def test_check_family__a_replaced_episode_reaches_every_derived_method() -> None:
    path = get_family("path")
    broken = dataclasses.replace(path.episode_steps, answer_steps=lambda state, answer: ())
    with pytest.raises(FamilyCheckError, match="oracle's steps replay"):
        check_family(dataclasses.replace(path, episode_steps=broken), per_bucket=1)
    assert isinstance(broken, EpisodeSteps)


def test_check_family__derived_behaviour_follows_a_replaced_field() -> None:
    """``trajectory``, ``answer_steps``, ``answer_from_payload``, ``random_step`` are computed, never bound."""
    state = MAZE.generate("easy", np.random.default_rng(0))
    answer = MAZE.solve(state).answer
    played = []

    def counting(before, step):
        played.append(step)
        return MAZE.apply_step(before, step)

    spec = dataclasses.replace(MAZE, apply_step=counting)
    assert spec.trajectory(state, answer) == MAZE.trajectory(state, answer) and played == list(answer)
    assert spec.answer_steps(state, answer) == tuple(answer)
    parsed = dataclasses.replace(MAZE, parse_answer=lambda text: (text,)).answer_from_payload('["up"]')
    assert parsed == ('<ANSWER_JSON>["up"]</ANSWER_JSON>',)
    left = dataclasses.replace(MAZE, random_answer=lambda s, rng: ("left",))
    assert left.random_step(state, np.random.default_rng(0)) == "left"
    check_family(spec, per_bucket=1)
    with pytest.raises(FamilyCheckError, match="trajectory"):  # the checker's mutant reaches the derived walk
        check_family(dataclasses.replace(MAZE, apply_step=lambda before, step: before), per_bucket=1)
