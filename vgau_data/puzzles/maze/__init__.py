"""Maze: walk the agent from its square to the goal through open cells.

Board:
    10x10 cells, each a wall (``#``, drawn dark) or open (``.``, drawn off-white). The
    agent is a blue square (its cell is ``start``), the goal a green hollow square. The
    open cells form an induced tree, so the path between any two open cells is unique.
    Generated mazes keep open cells in rows and columns 1-8 (a wall border), as the
    authors' do; states read from JSON may use the whole board.

Step:
    One orthogonal move of the agent: ``"up"``, ``"down"``, ``"left"`` or ``"right"``.
    Leaving the board is ``out_of_bounds``; entering a wall is ``wall``. The agent's
    position after a step is the new state's ``start`` (trajectory states move it).

Goal:
    The agent stands on the goal cell (``start == goal``); an answer that ends elsewhere
    is ``not_solved``.

Buckets:
    ``optimal_length`` (BFS distance start -> goal): easy 1-6, medium 7-17, hard 18-30.

Answer:
    ``<ANSWER_JSON>["up","left",...]</ANSWER_JSON>``; the last tagged list in the text
    counts. ``answer_payload`` is the compact JSON list, e.g. ``["up","left"]``. The
    format and the grid helpers are shared with sokoban and path (``grids``). One
    interactive step is the sentence ``Next, move one step up.`` (the authors' form).
"""

from __future__ import annotations

from vgau_data.puzzles.base import FamilySpec

__all__ = ["SPEC"]

SPEC = FamilySpec.from_package(__name__)
