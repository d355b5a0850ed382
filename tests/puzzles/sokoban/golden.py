"""Sokoban's own values for the registry-wide tests (``tests/families.py`` finds them by name).

Regenerate the key values after a deliberate change with ``python -m tests.families sokoban``.
"""

from __future__ import annotations

from vgau_data.puzzles.sokoban import state as sokoban

GOLDEN_STATE = sokoban.from_ascii(["##########", "#P...#...#", "#.##.....#", "#..B..#..#", "#........#", "#.#...#..#", "#......T.#", "#..#.....#", "#........#", "##########"])
GOLDEN_KEYS = ("377d6005766d9c60", "6d5beacf46f19c16", 14)
FIXED_STATE = '{"box":[6,2],"grid":["##########","#........#","#.#.#..#.#","#.#......#","#........#","#........#","##.#.....#","##.......#","#..#....##","##########"],"player":[4,1],"target":[7,2]}'
AID_AUTHORS = ((230, 40, 40), 2, None, 0.28, "centre", "open")
