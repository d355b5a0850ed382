"""Onet's own values for the registry-wide tests (``tests/families.py`` finds them by name).

Regenerate the key values after a deliberate change with ``python -m tests.families onet``.
"""

from __future__ import annotations

from vgau_data.puzzles.onet import state as onet

GOLDEN_STATE = onet.from_ascii(["AA....", "B....B", "..CC..", "......", "...D..", "...D.."])
GOLDEN_KEYS = ("2d17b06a157c6c7c", "6cfaf835aaa5db84", 4)
FIXED_STATE = '{"board":[[null,null,"dragonfruit",null,null,null],[null,"dragonfruit",null,null,null,null],[null,null,"lime","lime",null,null],[null,null,null,null,"pear","pear"],["lemon",null,null,null,null,null],[null,null,"lemon",null,null,null]],"size":6}'
AID_AUTHORS = ((255, 0, 0), 2, None, 0.2, "centre", "all")
