"""The red-route reader: recovers routes we draw, rejects routes through walls, ignores grid lines."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from PIL import Image

from vgau_data.fidelity import image_fidelity
from vgau_data.fidelity.routes import read_route
from vgau_data.oracle_aids import oracle_aid
from vgau_data.oracle_aids.vr import draw_sketch, oracle_vr
from vgau_data.puzzles import maze, path, sokoban
from vgau_data.puzzles.base import DELTAS
from vgau_data.puzzles.capabilities import Sketch
from vgau_data.puzzles.maze import fidelity as maze_fidelity
from vgau_data.puzzles.maze import state as maze_state
from vgau_data.puzzles.path import state as path_state
from vgau_data.puzzles.sokoban import state as sokoban_state
from vgau_data.registry import FAMILIES
from vgau_data.seeding import instance_seed, rng_for

ROUTE_FAMILIES = [
    pytest.param(spec, id=name) for name, spec in FAMILIES.items() if spec.vr is not None and spec.vr.route_start
]


def _retraces(cells) -> bool:
    edges = [frozenset(pair) for pair in itertools.pairwise(cells)]
    return len(edges) != len(set(edges))


@pytest.mark.parametrize("family", ROUTE_FAMILIES)
def test_routes__oracle_drawing_reads_back_as_the_solution(family, solved) -> None:
    read = loops = 0
    cases = list(solved[family.name])
    if family.name == "sokoban":  # more hard rooms, so that one player circles the box without retracing
        for index in range(1, 13):
            state = family.generate("hard", rng_for(instance_seed(23, "sokoban", "hard", index)))
            cases.append((state, family.solve(state)))
    for state, solution in cases:
        route = family.vr.sketch(state, solution.answer).routes[0]
        if _retraces(route):  # a stroke back over itself is invisible in pixels (module docstring)
            continue
        loops += len(set(route)) < len(route)
        reading = read_route(family, oracle_vr(family, state, solution.answer), state)
        assert reading.cells == route
        assert reading.replay.feasible and not reading.ambiguous
        assert family.replay(state, reading.steps).length == solution.optimal_length
        read += 1
    assert read >= 2
    assert loops >= (family.name == "sokoban")  # the hard sokoban player circles the box


def test_routes__sokoban_routes_that_walk_back_over_themselves_still_read() -> None:
    family, retraced = FAMILIES["sokoban"], 0
    for index in range(20):
        state = family.generate("medium", rng_for(instance_seed(5, "sokoban", "medium", index)))
        solution = family.solve(state)
        retraced += _retraces(family.vr.sketch(state, solution.answer).routes[0])
        reading = read_route(family, oracle_vr(family, state, solution.answer), state)
        assert reading.replay.feasible and reading.replay.length == solution.optimal_length
    assert retraced >= 1


def test_routes__sokoban_route_gets_the_final_push() -> None:
    state = sokoban_state.from_ascii(["P.BT#....."] + ["#." * 5] * 9)
    reading = read_route(sokoban.SPEC, oracle_vr(sokoban.SPEC, state, ("right", "right")), state)
    assert reading.cells == ((0, 0), (0, 1))
    assert reading.steps == ("right", "right")
    assert reading.replay.feasible


def test_routes__a_route_through_a_wall_is_rejected() -> None:
    state = maze_state.from_ascii(["S#G" + "." * 7, "...#" * 2 + ".."] + ["." * 10] * 8)
    crossing = Sketch(routes=(((0, 0), (0, 1), (0, 2)),))
    reading = read_route(maze.SPEC, draw_sketch(maze.SPEC.render(state), maze.SPEC.geometry, crossing), state)
    assert reading.cells == ((0, 0), (0, 1), (0, 2))
    assert (reading.replay.feasible, reading.replay.error, reading.replay.first_invalid_step) == (False, "wall", 0)
    detour = Sketch(routes=(((0, 0), (1, 0), (1, 1), (1, 2), (0, 2)),))
    assert read_route(maze.SPEC, draw_sketch(maze.SPEC.render(state), maze.SPEC.geometry, detour), state).replay.feasible


def test_routes__path_route_through_a_wall_is_rejected_even_with_the_right_letters() -> None:
    state = path_state.from_ascii(["S" + "#" * 8 + "T", "A" + "." * 8 + "B"] + ["#" * 10] * 8)
    cheat = Sketch(routes=(tuple((0, c) for c in range(10)),))
    reading = read_route(path.SPEC, draw_sketch(path.SPEC.render(state), path.SPEC.geometry, cheat), state)
    assert reading.replay.error == "wall"
    honest = Sketch(routes=(((0, 0), *((1, c) for c in range(10)), (0, 9)),))
    assert read_route(path.SPEC, draw_sketch(path.SPEC.render(state), path.SPEC.geometry, honest), state).replay.feasible


def test_routes__a_route_that_stops_short_is_not_solved() -> None:
    state = maze_fidelity.palette_states()[0]
    reading = read_route(maze.SPEC, draw_sketch(maze.SPEC.render(state), maze.SPEC.geometry, Sketch(routes=(((0, 0), (0, 1)),))), state)
    assert (reading.steps, reading.replay.error) == (("right",), "not_solved")


@pytest.mark.parametrize("family", ROUTE_FAMILIES)
def test_routes__grid_lines_and_a_plain_board_draw_no_route(family, solved) -> None:
    state, _ = solved[family.name][0]
    for image in (family.render(state), oracle_aid(family, state)):
        reading = read_route(family, image, state)
        assert reading.cells == (family.vr.route_start(state),) and reading.steps == ()
        assert (reading.replay.feasible, reading.replay.error) == (False, "no_answer")


def test_routes__a_one_push_sokoban_row_is_the_push_drawn_and_nothing_else_reads_as_solved() -> None:
    """Before, the route of a row solved by one push from the start was its start cell alone,
    so any image (a blank board, Gaussian noise) read as an optimal route there."""
    state = sokoban_state.from_ascii(["#" * 10, "#.PBT....#"] + ["#" * 10] * 8)
    solution = sokoban.SPEC.solve(state)
    assert solution.answer == ("right",)
    assert sokoban.SPEC.vr.sketch(state, solution.answer).routes == (((1, 2), (1, 3)),)
    drawn = read_route(sokoban.SPEC, oracle_vr(sokoban.SPEC, state, solution.answer), state)
    assert drawn.replay.feasible and drawn.replay.length == 1
    noise = [
        Image.fromarray(np.random.default_rng(seed).normal(127.5, 64.0, (552, 552, 3)).clip(0, 255).astype(np.uint8))
        for seed in range(5)
    ]
    for image in [sokoban.SPEC.render(state), oracle_aid(sokoban.SPEC, state), *noise]:
        assert not read_route(sokoban.SPEC, image, state).replay.feasible


def test_routes__crossing_goes_straight_and_a_fork_is_ambiguous() -> None:
    state = maze_state.from_ascii(["." * 10] * 4 + ["S" + "." * 8 + "G"] + ["." * 10] * 5)
    cross = ((4, 0), (4, 1), (4, 2), (4, 3), (3, 3), (3, 2), (3, 1), (4, 1), (5, 1), (5, 2))
    reading = read_route(maze.SPEC, draw_sketch(maze.SPEC.render(state), maze.SPEC.geometry, Sketch(routes=(cross,))), state)
    assert reading.cells == cross and reading.replay.error == "not_solved"
    assert reading.ambiguous  # it might have turned at (4, 1) instead; neither reading reaches the goal
    fork = Sketch(routes=(((4, 0), (4, 1), (4, 2)), ((4, 1), (3, 1))))
    board = draw_sketch(draw_sketch(maze.SPEC.render(state), maze.SPEC.geometry, fork), maze.SPEC.geometry, Sketch(routes=fork.routes[1:]))
    reading = read_route(maze.SPEC, board, state)
    assert reading.ambiguous and not reading.replay.feasible


def test_routes__families_without_a_route_are_refused() -> None:
    onet = FAMILIES["onet"]
    with pytest.raises(ValueError, match="draws no red route"):
        read_route(onet, onet.render(onet.fidelity.palette_states()[0]), onet.fidelity.palette_states()[0])


def test_image_fidelity__vr_record_has_route_and_cells(solved) -> None:
    state, solution = solved["maze"][1]
    record = image_fidelity(maze.SPEC, oracle_vr(maze.SPEC, state, solution.answer), state, "vr")
    assert record["cell_agreement"] == 1.0 and record["cells_exact"] and record["route_feasible"]
    assert record["ssim"] == pytest.approx(1.0)
    other, _ = solved["maze"][2]
    moved = image_fidelity(maze.SPEC, maze.SPEC.render(other), state, "next_state")
    assert moved["cell_agreement"] < 1.0 and "route_feasible" not in moved


def test_delta_table_is_consistent() -> None:
    assert {delta for delta in DELTAS.values()} == {(-1, 0), (1, 0), (0, -1), (0, 1)}
