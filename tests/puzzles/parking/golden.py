"""Parking's own values for the registry-wide tests (``tests/families.py`` finds them by name).

Regenerate the key values after a deliberate change with ``python -m tests.families parking``.
"""

from __future__ import annotations

from vgau_data.puzzles.parking import state as parking

GOLDEN_STATE = parking.from_ascii(["..A.....", "..A.....", "RRA.....>", "...BBB..", "........", "........", "........", "........"])
GOLDEN_KEYS = ("384bff03970b439b", "2cbad9cc0b49119f", 9)
FIXED_STATE = '{"exit_row":0,"size":8,"vehicles":[{"col":0,"id":"A","length":2,"orientation":"v","row":0},{"col":3,"id":"B","length":3,"orientation":"v","row":0},{"col":6,"id":"C","length":2,"orientation":"v","row":0},{"col":1,"id":"D","length":2,"orientation":"h","row":1},{"col":4,"id":"E","length":2,"orientation":"h","row":1},{"col":1,"id":"F","length":2,"orientation":"h","row":2},{"col":5,"id":"G","length":2,"orientation":"h","row":2},{"col":0,"id":"H","length":2,"orientation":"h","row":3},{"col":2,"id":"I","length":2,"orientation":"h","row":3},{"col":4,"id":"J","length":3,"orientation":"h","row":3},{"col":7,"id":"K","length":2,"orientation":"v","row":3},{"col":0,"id":"L","length":2,"orientation":"h","row":4},{"col":2,"id":"M","length":3,"orientation":"h","row":4},{"col":5,"id":"N","length":2,"orientation":"h","row":4},{"col":0,"id":"O","length":3,"orientation":"v","row":5},{"col":1,"id":"P","length":2,"orientation":"h","row":5},{"col":3,"id":"Q","length":2,"orientation":"h","row":5},{"col":4,"id":"R","length":2,"orientation":"h","row":0},{"col":5,"id":"S","length":3,"orientation":"h","row":5},{"col":1,"id":"T","length":2,"orientation":"v","row":6},{"col":2,"id":"U","length":2,"orientation":"v","row":6},{"col":3,"id":"V","length":2,"orientation":"v","row":6},{"col":4,"id":"W","length":2,"orientation":"v","row":6},{"col":5,"id":"X","length":2,"orientation":"v","row":6},{"col":6,"id":"Y","length":2,"orientation":"v","row":6},{"col":7,"id":"Z","length":2,"orientation":"v","row":6}]}'
AID_AUTHORS = ((230, 40, 40), 2, None, 0.2, "centre", "all")
