"""Parking (Rush Hour): slide the vehicles until the red car reaches the exit.

Board:
    8x8 cells holding vehicles of length 2 or 3, each horizontal (``h``, it fills cells of
    one row) or vertical (``v``, cells of one column); a vehicle sits at its top-left cell
    ``(row, col)``. The red car ``R`` is horizontal on ``exit_row``; the exit is an opening
    in the right wall at the end of that row. Other vehicles are named by single upper-case
    letters (``A``-``Z`` without ``R``); generated boards name them ``B``, ``C``, ... as the
    authors do, with the exit on row 3 as in every record of theirs.
Step:
    ``(vehicle_id, direction)``: one vehicle slides ONE cell along its orientation
    (horizontal: ``left``/``right``, vertical: ``up``/``down``). Illegal steps:
    ``unknown_vehicle`` (no such id), ``against_orientation`` (e.g. ``up`` for a horizontal
    vehicle), ``out_of_bounds`` (a vehicle would leave the board; ``R`` never drives out
    through the exit either), ``blocked`` (the cell it slides into is occupied).
Goal:
    ``R``'s rightmost cell is on column 7 of the exit row (otherwise ``not_solved``).
Buckets:
    ``optimal_length`` (fewest single-cell slides) 1-5 easy, 8-16 medium, 18-34 hard.
    Boards are built like the authors' (``generator``): their vehicle counts, trucks,
    vertical vehicles, blockers and ``R``'s distance per bucket, as jammed as theirs;
    medium and hard rows are positions of a board's whole cluster searched with ``R``
    held, at the row's distance from a clear corridor. The solver is an exact A*
    (``astar``): sparse boards are too large for the plain BFS in the build's budget.
Answer:
    ``<ANSWER_JSON>[{"car":"A","direction":"up"},...]</ANSWER_JSON>``; the last tagged list
    wins; car ids are case-insensitive and directions may be ``u d l r``. One interactive
    step is ``<STEP_JSON>{"car":"A","direction":"up"}</STEP_JSON>``.

The bit-board searches behind ``solve`` and ``generate`` are ``search`` and ``astar``; drawing is ``render``.
"""

from __future__ import annotations

from vgau_data.puzzles.base import FamilySpec

__all__ = ["SPEC"]

SPEC = FamilySpec.from_package(__name__, generation_weight=3.0)
