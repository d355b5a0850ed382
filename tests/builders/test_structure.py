"""Structure statistics: hand-checked values, the reader of the authors' formats, the comparison table.

The records below are written here in the authors' published formats (never copied
from their files); each one's statistics are worked out by hand in the comments.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from vgau_data.builders import structure
from vgau_data.puzzles.base import DIFFICULTIES
from vgau_data.puzzles.maze.generator import PAPER_STRUCTURE
from vgau_data.puzzles.maze.state import from_ascii
from vgau_data.registry import FAMILIES

RING = [[r, c] for r in range(10) for c in range(10) if r in (0, 9) or c in (0, 9)]

RECORDS = {
    # a T of four open cells; the path (1,1)->(1,3) runs through the branch cell (1,2)
    "maze": {
        "id": 0, "task_type": "maze", "grid_size": 10, "difficulty": "middle", "path_bucket": [2, 2],
        "initial_image": "images/maze_0000.png", "steps": "[\"right\", \"right\"]", "start": [1, 1],
        "goal": [1, 3], "walkable": [[1, 1], [1, 2], [1, 3], [2, 2]],
    },
    # ring + one inner wall; two pushes to the right
    "sokoban": {
        "task_id": "sokoban_000", "image_path": "images/sokoban_0000.png", "grid_h": 10, "grid_w": 10,
        "difficulty": "easy", "step_range": [1, 1], "walls": [*RING, [4, 4]], "player_start": [2, 2],
        "box_start": [2, 3], "target": [2, 5], "solution": "[\"right\", \"right\"]", "optimal_steps": 2,
    },
    # route right, down, right (2 turns, span 3); A on it, B one cell off, C three cells off
    "path": {
        "task_id": "path_labels_on_route_000", "image_path": "images/p.png", "difficulty": "hard", "distance": 3,
        "grid_size": 10, "start": [0, 0], "goal": [1, 2], "labeled_points": {"B": [2, 1], "A": [0, 1], "C": [3, 3]},
        "on_path_labels": ["A"], "answer_path": [[0, 0], [0, 1], [1, 1], [1, 2]], "answer": "A",
    },
    # two pairs, both removable at the start, one side by side, two tiles on the edge
    "onet": {
        "task_id": "onet_0000", "image_path": "images/onet_0000.png", "grid_size": 6, "difficulty": "easy",
        "theme": "fruits", "style": "image_only_no_grid_sparse",
        "board": [["A", "A", None, None, None, None], [None] * 6, [None, None, "B", None, None, None],
                  [None] * 6, [None, None, None, None, "B", None], [None] * 6],
        "tile_legend": {"A": "apple_red", "B": "apple_green"}, "one_solution_steps": [],
    },
    # B (vertical) blocks R's corridor and moves up once; R then drives 4 cells
    "parking": {
        "task_id": "parking_exit_000", "image_path": "images/x.png", "grid_size": 8, "exit_row": 4,
        "difficulty": "middle", "optimal_steps": 5,
        "cars": [
            {"id": "R", "orientation": "H", "length": 2, "row": 3, "col": 2},
            {"id": "B", "orientation": "V", "length": 2, "row": 2, "col": 5},
            {"id": "C", "orientation": "H", "length": 3, "row": 0, "col": 0},
        ],
        "solution": [{"car": "B", "direction": "up"}] + [{"car": "R", "direction": "right"}] * 4,
    },
    # klotski.EXAMPLE in their layout: T one slide above the goal
    "klotski": {
        "task_id": "easy_001", "level": "easy", "grid_w": 6, "grid_h": 6, "goal_t_pos": [4, 2],
        "optimal_steps": 1, "image_path": "images/klotski_0000.png",
        "initial_state": {
            "T": [3, 2],
            "Vs": [[0, 0], [0, 1], [0, 2], [0, 3], [0, 4], [0, 5], [3, 0], [3, 5]],
            "Hs": [[2, 0], [2, 2], [5, 0]],
            "Ss": [[2, 4], [2, 5], [3, 1], [4, 1], [3, 4], [4, 4], [5, 4], [5, 5]],
        },
        "solution": [{"from": [3, 2], "direction": "DOWN"}],
    },
}  # fmt: skip

EXPECTED = {
    "maze": ("medium", {"walkable": 4, "branch": 1, "corridor": 0, "path_nodes": 3, "path_branch": 1, "path_corridor": 0}),
    "sokoban": ("easy", {"inner_walls": 1, "floor": 63, "pushes": 2, "box_to_target": 2, "player_to_box": 1}),
    "path": ("hard", {"moves": 3, "on_route": 1, "off_route": 2, "decoy_distance": 2.0, "turns": 2, "span": 3}),
    "onet": ("easy", {"pairs": 2, "removable": 2, "adjacent": 1, "edge_tiles": 2}),
    "parking": ("medium", {"vehicles": 3, "trucks": 1, "vertical": 1, "blockers": 1, "movers": 1, "red_distance": 4}),
    "klotski": ("easy", {"blocks_moved": 1, "target_moves": 1, "target_distance": 1, "small_moves": 0}),
}
"""Each record's bucket and statistics, worked out by hand."""
STRUCTURED = [name for name, spec in FAMILIES.items() if spec.structure is not None]
"""The families that declare structure statistics (``FamilySpec.structure``)."""
READABLE = [name for name in STRUCTURED if FAMILIES[name].paper and FAMILIES[name].structure.measure_record]
"""The families whose authors published instances that structure statistics read (a family they never
published, such as the toy family of the tests, declares no ``paper`` and is not read)."""


@pytest.fixture
def authors_folder(tmp_path: Path) -> Path:
    for family in READABLE:
        record, folder = RECORDS[family], tmp_path / family
        folder.mkdir()
        if family == "maze":
            (folder / "maze100.jsonl").write_text(json.dumps(record) + "\n")
        else:
            (folder / "dataset_manifest.json").write_text(json.dumps([record], indent=2))
    return tmp_path


def test_read_authors__every_family_by_hand(authors_folder: Path) -> None:
    measured = {family: (difficulty, measures) for family, difficulty, measures in structure.read_authors(authors_folder)}
    assert measured == {family: EXPECTED[family] for family in READABLE}


def test_read_authors__skips_absent_families(tmp_path: Path) -> None:
    (tmp_path / "maze").mkdir()
    (tmp_path / "maze" / "maze100.jsonl").write_text(json.dumps(RECORDS["maze"]) + "\n")
    assert [family for family, _, _ in structure.read_authors(tmp_path)] == ["maze"]


def test_measure__our_state_gives_what_their_record_gives() -> None:
    state = from_ascii(["##########", "#S.G######", "##.#######", *["##########"] * 7])
    assert structure.measure("maze", state, ("right", "right")) == EXPECTED["maze"][1]


@pytest.mark.parametrize("family", STRUCTURED)
def test_measure__every_statistic_of_a_generated_row(family: str) -> None:
    spec = FAMILIES[family]
    state = spec.generate("medium", np.random.default_rng(0))
    measures = structure.measure(family, state, spec.solve(state).answer)
    assert list(measures) == [stat.key for stat in spec.structure.statistics]
    assert all(value >= 0 for value in measures.values())


def test_authors__figures_for_every_statistic_and_bucket() -> None:
    authors = structure.authors_means()
    assert list(authors) == [name for name in STRUCTURED if FAMILIES[name].structure.authors is not None]
    for family, means in authors.items():
        keys = [stat.key for stat in FAMILIES[family].structure.statistics]
        for difficulty in DIFFICULTIES:  # in table order; a statistic their files cannot give is left out
            assert means[difficulty] and list(means[difficulty]) == [key for key in keys if key in means[difficulty]]
    paper = PAPER_STRUCTURE["hard"]
    assert authors["maze"]["hard"]["branch"] == paper.branch  # their mazes are the paper's tables


def test_compare__table_cells_and_differences() -> None:
    ours = {"maze": {d: {"walkable": 22.0} for d in DIFFICULTIES}, "onet": {"easy": {"pairs": 5.0}}}
    rows = structure.compare(ours)
    assert [(row.family, row.statistic.key) for row in rows][:2] == [("maze", "walkable"), ("maze", "branch")]
    walkable = rows[0]
    assert walkable.difference("easy") == pytest.approx(22.0 / 20.30 - 1)
    assert structure.cell_text(walkable, "easy") == "22.00 / 20.30 / 20.30 (+8%)"
    pairs = next(row for row in rows if row.statistic.key == "pairs")
    assert structure.cell_text(pairs, "medium") == "- / 8.37"
    table = structure.markdown_table(rows).splitlines()
    assert table[0] == "| family | statistic (bucket mean) | easy | medium | hard |"
    assert len(table) == 2 + len(FAMILIES["maze"].structure.statistics) + len(FAMILIES["onet"].structure.statistics)
