"""Maze's own values for the registry-wide tests (``tests/families.py`` finds them by name).

Regenerate the key values after a deliberate change with ``python -m tests.families maze``.
"""

from __future__ import annotations

from vgau_data.puzzles.maze import state as maze

GOLDEN_STATE = maze.from_ascii(["##########", "#S...#...#", "#.##.#.#.#", "#.#..#.#.#", "#.#.##.#.#", "#...#..#.#", "###...##.#", "#...#....#", "#.###.##G#", "##########"])
"""A fixed board written out here, for the golden key values (``tests/training/test_keys.py``)."""
GOLDEN_KEYS = ("6cae3cd34bbd408e", "ff44928a3172f9c3", 14)
"""(canonical key, exact key, optimum) of ``GOLDEN_STATE``: a change here changes every shipped test key."""
FIXED_STATE = '{"goal":[8,5],"grid":["##########","#.#.######","#...######","#.########","#.########","#..#######","#.#.###.##","#....##.##","##.#.....#","##########"],"start":[8,8]}'
"""A short puzzle (optimum 3 or 4) as state JSON, for the trace and export tests (``tests/training/conftest.py``)."""
AID_AUTHORS = ((255, 0, 0), 2, None, 0.32, "centre", "open")
"""(line RGB, line px, dash, label px / cell px, anchor, labelled cells) of the authors' ``_build_aux_overlay``
(``tests/test_oracle_aids.py``)."""
