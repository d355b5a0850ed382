"""Parking (Rush Hour): slide the vehicles until the red car reaches the exit.

Board:
    8x8 cells holding vehicles of length 2 or 3, each horizontal (``h``, it fills cells of
    one row) or vertical (``v``, cells of one column); a vehicle sits at its top-left cell
    ``(row, col)``. The red car ``R`` is horizontal on ``exit_row``; the exit is an opening
    in the right wall at the end of that row. Other vehicles are named by single upper-case
    letters (``A``-``Z`` without ``R``).
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
    Generation pins ``R`` on the exit of a densely packed random board, lists the goal
    positions the other vehicles reach with ``R`` parked there (small sets only), runs a
    retrograde BFS from them to just past the row's length, solves positions of the
    deepest layers forward and walks one whose optimum is at least that length along its
    optimal answer until exactly that length is left (see ``generate``). Boards are much
    denser than the authors' (about 25 vehicles against their 6-13): their sparse boards
    take the exhaustive solver seconds each, past the build's time budget.
Answer:
    ``<ANSWER_JSON>[{"car":"A","direction":"up"},...]</ANSWER_JSON>``; the last tagged list
    wins; car ids are case-insensitive and directions may be ``u d l r``. One interactive
    step is ``<STEP_JSON>{"car":"A","direction":"up"}</STEP_JSON>``.

The bit-board search behind ``solve`` and ``generate`` is ``search``; drawing is ``render``.
"""

from __future__ import annotations

from vgau_data.puzzles.base import FamilySpec
from vgau_data.puzzles.parking import (
    answers,
    fidelity,
    generator,
    paper,
    prompts,
    render,
    rules,
    solver,
    state,
    structure,
)

__all__ = ["SPEC"]

SPEC = FamilySpec.from_modules(
    "parking",
    (state, rules, solver, generator, render, answers, prompts, fidelity, paper, structure),
    generation_weight=3.0,
)
