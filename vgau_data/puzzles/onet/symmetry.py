"""Onet symmetries: D4 (the connection rule, at most two turns inside the board, turns with it)
plus any renaming of the fruits.

``form`` numbers the fruits by first appearance in row-major order, so boards that differ
only in which fruit sits where a pair sits are one form.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from vgau_data.puzzles.capabilities import Symmetry
from vgau_data.puzzles.onet.state import FRUITS, SIZE, OnetState, Step
from vgau_data.puzzles.symmetry import D4, first_seen_names, map_cell, map_flat


def apply(state: OnetState, transform: str) -> OnetState:
    """``state`` seen through ``transform``."""
    flat = map_flat(transform, tuple(cell for row in state.board for cell in row), SIZE)
    return OnetState(tuple(flat[r * SIZE : (r + 1) * SIZE] for r in range(SIZE)))


def map_step(step: Step, transform: str, state: OnetState) -> Step:
    return (map_cell(transform, step[0], SIZE), map_cell(transform, step[1], SIZE))


def _flat_form(flat: tuple[Any, ...]) -> str:
    names = first_seen_names(flat)
    return ",".join("." if cell is None else str(names[cell]) for cell in flat)


def form(state: OnetState) -> str:
    """The cells row-major, each fruit named by the order it first appears in."""
    return _flat_form(tuple(cell for row in state.board for cell in row))


def forms(state: OnetState) -> list[str]:
    flat = tuple(cell for row in state.board for cell in row)
    return [_flat_form(map_flat(name, flat, SIZE)) for name in D4]


def relabel(state: OnetState, rng: np.random.Generator) -> tuple[OnetState, Callable[[Step], Step]]:
    """The fruits renamed by a random permutation of every fruit kind (steps name cells, so they stay)."""
    names = dict(zip(FRUITS, (FRUITS[i] for i in rng.permutation(len(FRUITS)))))
    board = tuple(tuple(None if cell is None else names[cell] for cell in row) for row in state.board)
    return OnetState(board), lambda step: step


SYMMETRY = Symmetry(transforms=D4, apply=apply, map_step=map_step, form=form, relabel=relabel, fast_forms=forms)
