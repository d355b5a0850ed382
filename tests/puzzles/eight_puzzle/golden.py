"""The 8-puzzle's own values for the registry-wide tests (``tests/families.py`` finds them by name).

The family is registered only on request (``VGAU_TEST_EXTRA_FAMILY=tests.eight_puzzle``); regenerate the
key values after a deliberate change with
``VGAU_TEST_EXTRA_FAMILY=tests.eight_puzzle python -m tests.families eight_puzzle``. It keeps no
``AID_AUTHORS``: the paper's authors published no 8-puzzle, so there is no aid of theirs to match.
"""

from __future__ import annotations

from tests.eight_puzzle.state import EightState

GOLDEN_STATE = EightState("DAB.ECGHF")
GOLDEN_KEYS = ("9cfb7ade2397ef4b", "cbe132f9ac6a4156", 5)
FIXED_STATE = '{"tiles":["ABC",".EF","DGH"]}'
