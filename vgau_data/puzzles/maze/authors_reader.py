"""Maze as the authors' code reads it (``lmms_eval/tasks/maze``: ``utils.py``, ``step_adapter.py``).

Final answer: the last ``<ANSWER_JSON>[...]</ANSWER_JSON>`` (or the whole text when it is
one list), strict JSON, each move ``str(move).strip().lower()``; replayed on the walkable
cells, reach_any when it ends on the goal, reach_optimal at the BFS length.
Step reply: the first whole word up/down/left/right anywhere in it (else a JSON list or
string of one). After each step the agent must still reach the goal within the optimum.
The capability ``FamilySpec.authors_reader`` (reader ``authors``, ``vgau_data.readers``).
"""

from __future__ import annotations

from vgau_data.puzzles.authors_reading import DirectionListReader

AUTHORS_READER = DirectionListReader("maze")
