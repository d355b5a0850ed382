"""Sokoban's own values for the registry-wide tests (``tests/families.py`` finds them by name).

Regenerate the key values after a deliberate change with ``python -m tests.families sokoban``.
"""

from __future__ import annotations

from vgau_data.puzzles.sokoban import state as sokoban

GOLDEN_STATE = sokoban.from_ascii(["##########", "#P...#...#", "#.##.....#", "#..B..#..#", "#........#", "#.#...#..#", "#......T.#", "#..#.....#", "#........#", "##########"])
"""A fixed board written out here, for the golden key values (``tests/training/test_keys.py``)."""
GOLDEN_KEYS = ("377d6005766d9c60", "6d5beacf46f19c16", 14)
"""(canonical key, exact key, optimum) of ``GOLDEN_STATE``: a change here changes every shipped test key."""
FIXED_STATE = '{"box":[6,2],"grid":["##########","#........#","#.#.#..#.#","#.#......#","#........#","#........#","##.#.....#","##.......#","#..#....##","##########"],"player":[4,1],"target":[7,2]}'
"""A short puzzle (optimum 3 or 4) as state JSON, for the trace and export tests (``tests/training/conftest.py``)."""
AID_AUTHORS = ((230, 40, 40), 2, None, 0.28, "centre", "open")
"""(line RGB, line px, dash, label px / cell px, anchor, labelled cells) of the authors' ``_build_aux_overlay``
(``tests/test_oracle_aids.py``)."""
