"""Onet's own values for the registry-wide tests (``tests/families.py`` finds them by name).

Regenerate the key values after a deliberate change with ``python -m tests.families onet``.
"""

from __future__ import annotations

from vgau_data.puzzles.onet import state as onet

GOLDEN_STATE = onet.from_ascii(["AA....", "B....B", "..CC..", "......", "...D..", "...D.."])
"""A fixed board written out here, for the golden key values (``tests/training/test_keys.py``)."""
GOLDEN_KEYS = ("2d17b06a157c6c7c", "6cfaf835aaa5db84", 4)
"""(canonical key, exact key, optimum) of ``GOLDEN_STATE``: a change here changes every shipped test key."""
FIXED_STATE = '{"board":[[null,null,"dragonfruit",null,null,null],[null,"dragonfruit",null,null,null,null],[null,null,"lime","lime",null,null],[null,null,null,null,"pear","pear"],["lemon",null,null,null,null,null],[null,null,"lemon",null,null,null]],"size":6}'
"""A short puzzle (optimum 3 or 4) as state JSON, for the trace and export tests (``tests/training/conftest.py``)."""
AID_AUTHORS = ((255, 0, 0), 2, None, 0.2, "centre", "all")
"""(line RGB, line px, dash, label px / cell px, anchor, labelled cells) of the authors' ``_build_aux_overlay``
(``tests/test_oracle_aids.py``)."""
