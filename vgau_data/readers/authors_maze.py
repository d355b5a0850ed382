"""Maze as the authors' code reads it (``lmms_eval/tasks/maze``: ``utils.py``, ``step_adapter.py``).

Final answer: the last ``<ANSWER_JSON>[...]</ANSWER_JSON>`` (or the whole text when it is
one list), strict JSON, each move ``str(move).strip().lower()``; replayed on the walkable
cells, reach_any when it ends on the goal, reach_optimal at the BFS length.
Step reply: the first whole word up/down/left/right anywhere in it (else a JSON list or
string of one). After each step the agent must still reach the goal within the optimum.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from vgau_data.readers.authors_common import (
    DIRECTIONS,
    Answer,
    AuthorsFamily,
    first_direction,
    loads,
    read_direction_list,
)


def read_move(text: str) -> str | None:
    """A maze or sokoban step reply: its first direction word, else a JSON list (its first item) or string."""
    if not text:
        return None
    word = first_direction(text)
    if word is not None:
        return word
    ok, value = loads(text.strip().lower())
    if ok and isinstance(value, list) and value:
        word = str(value[0]).strip().lower()
        return word if word in DIRECTIONS else None
    return value if ok and isinstance(value, str) and value in DIRECTIONS else None


class MazeReader(AuthorsFamily):
    family = "maze"
    empty_answer = "<ANSWER_JSON>[]</ANSWER_JSON>"

    def read_answer(self, text: str) -> Answer | str:
        return read_direction_list(text)

    def read_step(self, text: str) -> Any:
        return read_move(text)

    def answer_text(self, steps: Sequence[Any]) -> str:
        return f"<ANSWER_JSON>{json.dumps(list(steps))}</ANSWER_JSON>"


READER = MazeReader()
