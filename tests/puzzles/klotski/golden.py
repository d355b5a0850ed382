"""Klotski's own values for the registry-wide tests (``tests/families.py`` finds them by name).

Regenerate the key values after a deliberate change with ``python -m tests.families klotski``.
"""

from __future__ import annotations

from vgau_data.puzzles.klotski import state as klotski

GOLDEN_STATE = klotski.from_ascii(["||||||", "||||||", "----oo", "|oTTo|", "|oTTo|", "--..oo"])
GOLDEN_KEYS = ("260d8be406b02e71", "1a64924d62eeb621", 1)
FIXED_STATE = '{"blocks":[{"col":2,"height":2,"kind":"target","row":3,"width":2},{"col":0,"height":2,"kind":"vertical","row":0,"width":1},{"col":1,"height":2,"kind":"vertical","row":0,"width":1},{"col":2,"height":2,"kind":"vertical","row":0,"width":1},{"col":3,"height":2,"kind":"vertical","row":0,"width":1},{"col":4,"height":2,"kind":"vertical","row":0,"width":1},{"col":5,"height":2,"kind":"vertical","row":0,"width":1},{"col":1,"height":2,"kind":"vertical","row":2,"width":1},{"col":4,"height":2,"kind":"vertical","row":4,"width":1},{"col":3,"height":1,"kind":"horizontal","row":2,"width":2},{"col":4,"height":1,"kind":"horizontal","row":3,"width":2},{"col":1,"height":1,"kind":"horizontal","row":5,"width":2},{"col":0,"height":1,"kind":"single","row":2,"width":1},{"col":2,"height":1,"kind":"single","row":2,"width":1},{"col":5,"height":1,"kind":"single","row":2,"width":1},{"col":0,"height":1,"kind":"single","row":3,"width":1},{"col":1,"height":1,"kind":"single","row":4,"width":1},{"col":5,"height":1,"kind":"single","row":4,"width":1},{"col":0,"height":1,"kind":"single","row":5,"width":1},{"col":5,"height":1,"kind":"single","row":5,"width":1}],"goal":[4,2],"size":6}'
AID_AUTHORS = ((255, 0, 0), 2, (12, 18), 0.24, "centre", "all")
