"""Maze's own values for the registry-wide tests (``tests/families.py`` finds them by name).

Regenerate the key values after a deliberate change with ``python -m tests.families maze``.
"""

from __future__ import annotations

from vgau_data.puzzles.maze import state as maze

GOLDEN_STATE = maze.from_ascii(["##########", "#S...#...#", "#.##.#.#.#", "#.#..#.#.#", "#.#.##.#.#", "#...#..#.#", "###...##.#", "#...#....#", "#.###.##G#", "##########"])
GOLDEN_KEYS = ("6cae3cd34bbd408e", "ff44928a3172f9c3", 14)
FIXED_STATE = '{"goal":[8,5],"grid":["##########","#.#.######","#...######","#.########","#.########","#..#######","#.#.###.##","#....##.##","##.#.....#","##########"],"start":[8,8]}'
AID_AUTHORS = ((255, 0, 0), 2, None, 0.32, "centre", "open")
