"""Path's own values for the registry-wide tests (``tests/families.py`` finds them by name).

Regenerate the key values after a deliberate change with ``python -m tests.families path``.
"""

from __future__ import annotations

from vgau_data.puzzles.path import state as path

GOLDEN_STATE = path.from_ascii(["S.A.T#####", "#.##.#####", "#B##.#####", "####C#####", "####.#####", "####D#####", "####.#####", "###E.#####", "##########", "##########"])
"""A fixed board written out here, for the golden key values (``tests/training/test_keys.py``)."""
GOLDEN_KEYS = ("606d14530470f690", "fd0cbf5d822ad058", 4)
"""(canonical key, exact key, optimum) of ``GOLDEN_STATE``: a change here changes every shipped test key."""
FIXED_STATE = '{"end":[6,9],"grid":["..###.#...","#.##....##",".....##...","##.#.#.#.#","###.#.....","##....###.","#..#.#....","#.#..##.#.","..#.#....#","#.####.#.."],"labels":{"A":[5,9],"B":[4,9],"C":[6,8],"D":[4,8],"E":[4,7]},"start":[3,8]}'
"""A short puzzle (optimum 3 or 4) as state JSON, for the trace and export tests (``tests/training/conftest.py``)."""
AID_AUTHORS = ((230, 40, 40), 1, None, 0.2, "top_left", "open")
"""(line RGB, line px, dash, label px / cell px, anchor, labelled cells) of the authors' ``_build_aux_overlay``
(``tests/test_oracle_aids.py``)."""
