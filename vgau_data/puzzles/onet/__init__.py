"""Onet: clear a 6x6 board of fruit tiles by removing connectable identical pairs.

Board:
    6x6 cells; each cell holds a fruit tile or is empty. Every fruit on the board appears
    exactly twice. Fruits are drawn from ``FRUITS`` (18 kinds); which ones appear is random.

Step:
    ``((r1, c1), (r2, c2))`` removes the two tiles at those cells. It is legal when both
    cells are on the board (else ``out_of_bounds``), are different cells (``same_cell``),
    both hold a tile (``empty_cell``), show the same fruit (``not_identical``), and are
    joined by an orthogonal path with at most two turns whose inner cells are all empty
    (``not_connectable``). The path stays INSIDE the 6x6 board: it may not run around the
    outside edge (a fixed rule of this benchmark; it changes which boards are solvable).
    Codes are checked in that order.

Goal:
    An empty board. Removal only frees cells, so a connectable pair stays connectable;
    with two tiles per fruit there is never a choice of partner, so greedy removal is a
    complete solver and every complete answer has one step per pair.

Buckets:
    ``optimal_length`` = number of pairs: easy 4-6, medium 7-10, hard 12-16.

Answer:
    ``<answer_json>[[[r1,c1],[r2,c2]],...]</answer_json>`` (tag case-insensitive; the
    last tagged answer in the text counts). One interactive step is
    ``<STEP_JSON>[[r1,c1],[r2,c2]]</STEP_JSON>``.

Drawing (the fruit tiles, drawn in code) is ``render``.
"""

from __future__ import annotations

from vgau_data.puzzles.base import FamilySpec

__all__ = ["SPEC"]

SPEC = FamilySpec.from_package(__name__, unique_length=True)
