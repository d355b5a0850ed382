"""Task-preserving transformations of a board, for canonical keys (training-data decontamination).

Rotating a maze a quarter turn, or renaming the fruits of an onet board, gives the same
puzzle: the same optimum, and the old answer with its moves remapped solves it. A training
row that is such a copy of a test instance leaks that instance, so decontamination
compares states up to these transformations (``vgau_data.training.keys``).

A family declares its group in ``puzzles/<family>_symmetry.py``, which ends with
``SYMMETRY = Symmetry(...)``; a family without one falls back to ``identity(spec)``
(states are equal only when their JSON is). What a family declares:

- ``transforms``: names of the geometric maps of its group (``D4`` below, a mirror, or
  just ``"identity"``), applied by ``apply(state, name)`` and, to one step of an answer,
  by ``map_step(step, name, state)`` (``state`` is the board the step is played on).
- ``form(state)``: a string that is equal for two states exactly when they are the same
  board up to relabelling (fruits, letters, other vehicles), and, where a family says so,
  up to details its answer does not depend on (a sokoban player anywhere in its region).
  ``canonical_key`` takes the least form over ``transforms``.
- ``relabel(state, rng)``: a random relabelling and the step map that goes with it, so a
  test can check the claim by solving the relabelled board (None: nothing to relabel).
- ``fast_forms(state)``: optional, the forms under every transform computed at once (a
  test checks it equals ``form(apply(state, name))`` name by name).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Final

from vgau_data.types import Cell, Direction

D4: Final[tuple[str, ...]] = (
    "identity",
    "rot90",
    "rot180",
    "rot270",
    "mirror",
    "flip",
    "transpose",
    "antitranspose",
)
"""The 8 symmetries of a square: quarter turns clockwise, the left-right ``mirror``, the
up-down ``flip`` and the two diagonal reflections (``transpose`` swaps rows and columns)."""

_DIRECTION_IMAGES: Final[dict[str, dict[str, str]]] = {
    "identity": {"up": "up", "down": "down", "left": "left", "right": "right"},
    "rot90": {"up": "right", "right": "down", "down": "left", "left": "up"},
    "rot180": {"up": "down", "down": "up", "left": "right", "right": "left"},
    "rot270": {"up": "left", "left": "down", "down": "right", "right": "up"},
    "mirror": {"up": "up", "down": "down", "left": "right", "right": "left"},
    "flip": {"up": "down", "down": "up", "left": "left", "right": "right"},
    "transpose": {"up": "left", "left": "up", "down": "right", "right": "down"},
    "antitranspose": {"up": "right", "right": "up", "down": "left", "left": "down"},
}


def map_cell(transform: str, cell: Cell, size: int) -> Cell:
    """Where ``cell`` of a ``size`` x ``size`` board lands under ``transform``.

    Example:
        >>> map_cell("rot90", (0, 0), 10), map_cell("mirror", (2, 3), 6)
        ((0, 9), (2, 2))
    """
    r, c = cell
    n = size - 1
    match transform:
        case "identity":
            return (r, c)
        case "rot90":
            return (c, n - r)
        case "rot180":
            return (n - r, n - c)
        case "rot270":
            return (n - c, r)
        case "mirror":
            return (r, n - c)
        case "flip":
            return (n - r, c)
        case "transpose":
            return (c, r)
        case "antitranspose":
            return (n - c, n - r)
    raise ValueError(f"unknown transform {transform!r}; choose from {', '.join(D4)}")


def map_direction(transform: str, direction: Direction) -> Direction:
    """The direction a move becomes under ``transform`` (a quarter turn clockwise maps up to right)."""
    return _DIRECTION_IMAGES[transform][direction]  # type: ignore[return-value]


@functools.lru_cache(maxsize=64)
def _permutation(transform: str, size: int) -> tuple[int, ...]:
    """Row-major source index of each target cell: ``new[i] = old[perm[i]]``."""
    source = [0] * (size * size)
    for r in range(size):
        for c in range(size):
            tr, tc = map_cell(transform, (r, c), size)
            source[tr * size + tc] = r * size + c
    return tuple(source)


@functools.lru_cache(maxsize=1024)
def map_grid(transform: str, grid: tuple[str, ...]) -> tuple[str, ...]:
    """A square grid of one-character cells seen through ``transform`` (cached: a trajectory shares its grid).

    Example:
        >>> map_grid("rot90", ("ab", "cd"))
        ('ca', 'db')
    """
    size = len(grid)
    if any(len(row) != size for row in grid):
        raise ValueError(f"only a square board turns onto itself; this one is {size}x{len(grid[0])}")
    flat = "".join(grid)
    moved = "".join(flat[i] for i in _permutation(transform, size))
    return tuple(moved[r * size : (r + 1) * size] for r in range(size))


def map_flat(transform: str, flat: tuple[Any, ...], size: int) -> tuple[Any, ...]:
    """A row-major tuple of cells seen through ``transform``."""
    return tuple(flat[i] for i in _permutation(transform, size))


def first_seen_names(values: Any, keep: Callable[[Any], bool] = lambda v: v is not None) -> dict[Any, int]:
    """Each distinct kept value numbered by its first appearance: a canonical relabelling.

    Example:
        >>> first_seen_names(["pear", None, "fig", "pear"])
        {'pear': 0, 'fig': 1}
    """
    names: dict[Any, int] = {}
    for value in values:
        if keep(value) and value not in names:
            names[value] = len(names)
    return names


@dataclass(frozen=True, kw_only=True, slots=True)
class Symmetry:
    """A family's task-preserving transformations (see the module docstring)."""

    transforms: tuple[str, ...]
    apply: Callable[[Any, str], Any]
    map_step: Callable[[Any, str, Any], Any]
    form: Callable[[Any], str]
    relabel: Callable[[Any, Any], tuple[Any, Callable[[Any], Any]]] | None = None
    fast_forms: Callable[[Any], list[str]] | None = None

    def forms(self, state: Any) -> list[str]:
        """The form of ``state`` under every transform (``canonical_key`` hashes the least)."""
        if self.fast_forms is not None:
            return self.fast_forms(state)
        return [self.form(self.apply(state, name)) for name in self.transforms]


def identity(to_json: Callable[[Any], str]) -> Symmetry:
    """The fallback of a family that declares no symmetry: a state is equal only to itself."""
    return Symmetry(
        transforms=("identity",),
        apply=lambda state, name: state,
        map_step=lambda step, name, state: step,
        form=to_json,
    )
