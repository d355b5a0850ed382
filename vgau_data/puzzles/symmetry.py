"""The square's symmetries, shared by the families' ``symmetry.py`` modules (the ``symmetry`` capability).

A family declares its task-preserving transformations as ``SYMMETRY = Symmetry(...)`` in
``puzzles/<family>/symmetry.py`` (``capabilities.Symmetry`` says what each field means);
``FamilySpec.from_package`` picks it up, and a family without one falls back to
``identity(spec.to_json)``: states are equal only when their JSON is. This module holds
what the D4 families share: the eight transforms of a square board and their action on
cells, grids and directions, and the first-seen renaming of labels.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, Final

from vgau_data.puzzles.capabilities import Symmetry
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


def identity(to_json: Callable[[Any], str]) -> Symmetry:
    """The fallback of a family that declares no symmetry: a state is equal only to itself."""
    return Symmetry(
        transforms=("identity",),
        apply=lambda state, name: state,
        map_step=lambda step, name, state: step,
        form=to_json,
    )
