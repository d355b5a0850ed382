"""Path's own values for the registry-wide tests (``tests/families.py`` finds them by name).

Regenerate the key values after a deliberate change with ``python -m tests.families path``.
"""

from __future__ import annotations

from vgau_data.puzzles.path import state as path

GOLDEN_STATE = path.from_ascii(["S.A.T#####", "#.##.#####", "#B##.#####", "####C#####", "####.#####", "####D#####", "####.#####", "###E.#####", "##########", "##########"])
GOLDEN_KEYS = ("606d14530470f690", "fd0cbf5d822ad058", 4)
FIXED_STATE = '{"end":[6,9],"grid":["..###.#...","#.##....##",".....##...","##.#.#.#.#","###.#.....","##....###.","#..#.#....","#.#..##.#.","..#.#....#","#.####.#.."],"labels":{"A":[5,9],"B":[4,9],"C":[6,8],"D":[4,8],"E":[4,7]},"start":[3,8]}'
AID_AUTHORS = ((230, 40, 40), 1, None, 0.2, "top_left", "open")
