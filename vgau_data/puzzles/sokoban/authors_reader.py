"""Sokoban as the authors' code reads it (``lmms_eval/tasks/sokoban``): maze's answer and step formats.

Final answer: maze's move list; replayed with walls only (their boards have a wall ring);
solved when the box ends on the target, optimal at ``optimal_steps`` moves. Step reply:
the first direction word. After each step the box must still reach the target within the
optimum (a BFS over player and box positions). The capability ``FamilySpec.authors_reader``.
"""

from __future__ import annotations

from vgau_data.puzzles.authors_reading import DirectionListReader

AUTHORS_READER = DirectionListReader("sokoban")
