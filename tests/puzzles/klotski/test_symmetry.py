"""Klotski's symmetry: only the left-right mirror keeps the goal where it is."""

from __future__ import annotations

import json

from tests.puzzles.test_symmetry import boards
from vgau_data.puzzles.klotski.state import SIZE, from_json, to_json
from vgau_data.training.keys import canonical_key


def test_the_up_down_flip_moves_the_goal_so_it_changes_the_key() -> None:
    board, _ = boards("klotski")[3]
    data = json.loads(to_json(board))
    for block in data["blocks"]:
        block["row"] = SIZE - block["row"] - block["height"]
    assert canonical_key("klotski", from_json(json.dumps(data))) != canonical_key("klotski", board)
