"""Sokoban's key: the player counts only by the floor region it can walk without pushing."""

from __future__ import annotations

from vgau_data.puzzles.sokoban.solver import solve
from vgau_data.puzzles.sokoban.state import from_ascii
from vgau_data.training.keys import canonical_key

WALLS = ["#" * 10] + ["#........#"] * 8 + ["#" * 10]


def test_boards_that_differ_by_a_walk_of_the_player_share_a_key() -> None:
    near = from_ascii([WALLS[0], "#P.......#", "#..B.....#", *WALLS[3:8], "#.......T#", WALLS[9]])
    far = from_ascii([WALLS[0], "#........#", "#..B.....#", *WALLS[3:8], "#......PT#", WALLS[9]])
    assert solve(near).optimal_length != solve(far).optimal_length
    assert canonical_key("sokoban", near) == canonical_key("sokoban", far)


def test_a_player_the_box_shuts_in_is_another_puzzle() -> None:
    boxed = from_ascii([WALLS[0], "#P#......#", "##B......#", *WALLS[3:8], "#.......T#", WALLS[9]])
    open_side = from_ascii([WALLS[0], "#.#......#", "##B....P.#", *WALLS[3:8], "#.......T#", WALLS[9]])
    assert canonical_key("sokoban", boxed) != canonical_key("sokoban", open_side)
