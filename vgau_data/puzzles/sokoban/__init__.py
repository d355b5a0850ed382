"""Sokoban with one box: push the crate onto the green X.

Board:
    10x10 cells, ``#`` wall and ``.`` floor; one player, one box and one target, each on
    floor (the player may stand on the target; the box is never inside a wall). Cells
    outside the board are neither walls nor floor: nothing may leave the board.
Step:
    One player move ``"up" | "down" | "left" | "right"``. The player walks onto free
    floor; walking into the box pushes it one cell further if that cell is floor inside
    the board. Walks and pushes both cost one step. Illegal steps: ``out_of_bounds``
    (the player would leave the board), ``wall`` (the player walks into a wall),
    ``box_blocked`` (the box would enter a wall or leave the board).
Goal:
    The box stands on the target (after the last step; otherwise ``not_solved``).
Buckets:
    ``optimal_length`` 1-8 easy, 10-16 medium, 20-39 hard. Generated maps have
    a wall ring and a bucket-dependent number of walls inside it, like the authors'.
    Generation runs one retrograde BFS from every goal state of a sampled map, which gives
    the exact distance of every (player, box) state at once, and picks a state of the
    row's exact length; ``solve`` is an independent forward BFS.
Answer:
    ``<ANSWER_JSON>["up","left",...]</ANSWER_JSON>``; the last tagged list wins. The
    format (parser included) is maze's, shared through ``grids``, and so is one
    interactive step, the sentence ``Next, move one step up.``. The oracle aid labels
    the non-wall cells only (``render.AID``, as Table 19 asks).
"""

from __future__ import annotations

from vgau_data.puzzles.base import FamilySpec

__all__ = ["SPEC"]

SPEC = FamilySpec.from_package(__name__)
