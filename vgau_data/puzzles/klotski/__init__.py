"""Klotski: slide the 2x2 target block to the bottom centre of a packed 6x6 board.

Board:
    6x6 cells holding twenty blocks and two empty cells: one 2x2 target ``T``, eight
    vertical blocks (1 wide, 2 tall), three horizontal blocks (2 wide, 1 tall) and eight
    1x1 singles. Blocks of one kind are indistinguishable, so a state is the 36-character
    string of per-cell codes (``KlotskiState.cells``, row-major): target ``A B / C D``,
    vertical ``v`` over ``w``, horizontal ``h`` then ``i``, single ``s``, empty ``.``.

Step:
    ``((r, c), direction)``: the block whose top-left cell is ``(r, c)`` slides one cell
    up, down, left or right into empty cells. Illegal steps: ``no_block_at`` (no block
    has its top-left at that cell, including cells off the board), ``out_of_bounds`` (the
    block would leave the board) and ``blocked`` (a cell it moves into is occupied).

Goal:
    The target's top-left cell is ``(4, 2)`` (it covers rows 4-5, columns 2-3).

Buckets:
    ``optimal_length`` 1-4 (easy), 6-10 (medium), 15-20 (hard), found by BFS.
    Easy boards walk backward from a random goal tiling (a BFS ball of backward
    slides); medium and hard boards use targeted placement (performance notes):
    a random tiling around the target at a start position that often yields that
    bucket. Every board is kept only if its BFS optimum lies in the bucket.

Answer:
    ``{"solution":[{"from":[r,c],"direction":"UP"},...]}`` with no tags; the last
    ``"solution"`` in the text wins, and a brace-less run of ``"from": [r, c],
    "direction": "UP"`` pairs is accepted too. One interactive step is
    ``<STEP_JSON>{"from":[r,c],"direction":"UP"}</STEP_JSON>`` (Table 29).
"""

from __future__ import annotations

from vgau_data.puzzles.base import FamilySpec

__all__ = ["SPEC"]

SPEC = FamilySpec.from_package(__name__)
