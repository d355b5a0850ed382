"""Cell decoding: read an image back into what each cell of the board shows.

Every cell of the image is reduced to a small colour patch (block averages) and compared
with reference cells rendered by our own renderer from the family's ``palette_states``
(``FamilySpec.fidelity``; every label in every look: a vehicle's end cell and middle cell, a target block's four
quarters). The nearest reference gives the cell's label; a cell farther than
``MAX_CELL_RMS`` from every reference reads as ``UNKNOWN`` (noise, a smeared or missing
piece), so it never agrees with the truth by accident.

What an image may carry on top of the board is masked out before comparing: the oracle
aid's red grid and ``(r,c)`` labels (``overlay="grid"``: wherever the family's own aid or
one drawn as the Self-GtA prompt asks may put them, ``aid_footprint``) or a solution
drawing's strokes and badges (``overlay="sketch"``). The masked pixels include all those
our own drawings can touch, so our oracle images decode with agreement 1.0.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Final, Literal

import numpy as np
from PIL import Image

from vgau_data.oracle_aids import aid_footprint
from vgau_data.oracle_aids.vr import sketch_mask
from vgau_data.puzzles.base import FamilySpec
from vgau_data.puzzles.capabilities import Fidelity
from vgau_data.rendering import AidStyle, BoardGeometry, image_cache

Overlay = Literal["none", "grid", "sketch"]
OVERLAYS: Final[tuple[str, ...]] = ("none", "grid", "sketch")
UNKNOWN: Final = "?"
"""The label of a cell that looks like no reference cell."""
MAX_CELL_RMS: Final = 40.0
"""Largest root-mean-square colour distance (0-255 scale) at which a cell still reads as a label."""
PATCH_SIDE: Final = 8
"""A cell is reduced to at least this many blocks per side (block side divides the cell side)."""


@dataclass(frozen=True, slots=True)
class CellAgreement:
    """How well an image shows a state, cell by cell.

    ``agreement`` is the fraction of cells whose decoded label is the true one, ``exact``
    whether all of them are, ``decoded`` the labels read (``UNKNOWN`` where none fits).
    """

    agreement: float
    exact: bool
    decoded: tuple[str, ...]

    def to_dict(self) -> dict[str, Any]:
        return {"cell_agreement": self.agreement, "cells_exact": self.exact}


def block_px(geometry: BoardGeometry) -> int:
    """The side of the square blocks a cell is averaged over: the largest divisor of the cell
    side that leaves at least ``PATCH_SIDE`` blocks per side."""
    return max(d for d in range(1, geometry.cell_px // PATCH_SIDE + 1) if geometry.cell_px % d == 0)


def _board_region(geometry: BoardGeometry) -> tuple[int, int, int, int]:
    left, top = geometry.margin_left, geometry.margin_top
    return (left, top, left + geometry.cols * geometry.cell_px, top + geometry.rows * geometry.cell_px)


def cell_patches(geometry: BoardGeometry, image: Image.Image) -> np.ndarray:
    """``(cells, features)`` float32: each cell's block-averaged RGB, row-major.

    Images of another size are scaled onto the board (generators rarely keep its size).
    """
    if image.mode != "RGB":
        image = image.convert("RGB")
    block = block_px(geometry)
    side = geometry.cell_px // block
    region = _board_region(geometry)
    if image.size == geometry.size:
        small = np.asarray(image.crop(region).reduce(block), dtype=np.float32)
    else:  # average the board's part of the image straight onto the block grid
        scale_x, scale_y = image.size[0] / geometry.size[0], image.size[1] / geometry.size[1]
        box = (region[0] * scale_x, region[1] * scale_y, region[2] * scale_x, region[3] * scale_y)
        target = (geometry.cols * side, geometry.rows * side)
        small = np.asarray(image.resize(target, Image.Resampling.BOX, box=box), dtype=np.float32)
    cells = small.reshape(geometry.rows, side, geometry.cols, side, 3).transpose(0, 2, 1, 3, 4)
    return cells.reshape(geometry.rows * geometry.cols, side * side * 3)


@dataclass(frozen=True, slots=True)
class _Library:
    labels: tuple[str, ...]
    patches: np.ndarray  # (references, features)
    squares: np.ndarray  # (references,) sum of squares of each patch, per feature masked later


_LIBRARIES: dict[tuple[str, Callable[[Any], Image.Image]], tuple[Fidelity, _Library]] = {}
"""Per family name and renderer (one per render style, ``render_styles.styled``): the decoding
a library was built from, and the library."""
_MAX_LIBRARIES: Final = 256


def _decoding(family: FamilySpec) -> Fidelity:
    if family.fidelity is None:
        raise ValueError(f"family {family.name!r} has no cell decoding (FamilySpec.fidelity)")
    return family.fidelity


def _library(family: FamilySpec) -> _Library:
    """The family's reference cells in its spec's render style, rendered once per process
    (again for a spec with another decoding)."""
    decoding = _decoding(family)
    cached = _LIBRARIES.get((family.name, family.render))
    if cached is not None and cached[0] is decoding:
        return cached[1]
    seen: dict[bytes, str] = {}
    rows: list[np.ndarray] = []
    for state in decoding.palette_states():
        patches = cell_patches(family.geometry, family.render(state))
        for label, patch in zip(decoding.cell_labels(state), patches):
            key = patch.tobytes()
            if key in seen:
                if seen[key] != label:
                    raise ValueError(f"{family.name}: labels {seen[key]!r} and {label!r} look the same")
                continue
            seen[key] = label
            rows.append(patch)
    patches = np.stack(rows)
    library = _Library(tuple(seen.values()), patches, patches * patches)
    if len(_LIBRARIES) >= _MAX_LIBRARIES:
        _LIBRARIES.pop(next(iter(_LIBRARIES)))
    _LIBRARIES[(family.name, family.render)] = (decoding, library)
    return library


@image_cache(maxsize=64)
def _weights(geometry: BoardGeometry, overlay: str, aid: AidStyle) -> np.ndarray:
    """``(cells, features)`` 0/1 weights: 0 on blocks the overlay can touch."""
    if overlay not in OVERLAYS:
        raise ValueError(f"unknown overlay {overlay!r}; choose from {', '.join(OVERLAYS)}")
    block = block_px(geometry)
    side = geometry.cell_px // block
    cells = geometry.rows * geometry.cols
    if overlay == "none":
        return np.ones((cells, side * side * 3), dtype=np.float32)
    if overlay == "grid":
        left, top, right, bottom = _board_region(geometry)
        touched = aid_footprint(geometry, aid)[top:bottom, left:right]
        touched = touched.reshape(geometry.rows, geometry.cell_px, geometry.cols, geometry.cell_px).transpose(0, 2, 1, 3)
    else:
        touched = np.broadcast_to(sketch_mask(geometry.cell_px), (geometry.rows, geometry.cols, geometry.cell_px, geometry.cell_px))
    blocks = touched.reshape(geometry.rows, geometry.cols, side, block, side, block).any(axis=(3, 5))
    keep = (~blocks).reshape(cells, side * side).astype(np.float32)
    return np.repeat(keep, 3, axis=1)


def read_cells(family: FamilySpec, image: Image.Image, overlay: Overlay = "none") -> tuple[str, ...]:
    """The label each cell of ``image`` shows, row-major (``UNKNOWN`` where none fits).

    Args:
        family: the board's family.
        image: a board of that family at any size (resized to the family's board size).
        overlay: what may be drawn over the board: ``"none"`` (a plain state image),
            ``"grid"`` (an oracle aid: grid lines and ``(r,c)`` labels) or ``"sketch"``
            (a solution drawing).

    Example:
        >>> from vgau_data.registry import get_family
        >>> maze = get_family("maze")
        >>> state = maze.fidelity.palette_states()[0]
        >>> read_cells(maze, maze.render(state)) == maze.fidelity.cell_labels(state)
        True
    """
    library = _library(family)
    patches = cell_patches(family.geometry, image)
    weights = _weights(family.geometry, overlay, family.aid)
    weighted = weights * patches
    # squared distance of every cell to every reference over the unmasked features
    distance = (
        (weighted * patches).sum(axis=1)[:, None]
        - 2.0 * weighted @ library.patches.T
        + weights @ library.squares.T
    )
    distance /= np.maximum(weights.sum(axis=1), 1.0)[:, None]
    nearest = distance.argmin(axis=1)
    close = distance[np.arange(len(nearest)), nearest] <= MAX_CELL_RMS**2
    return tuple(library.labels[i] if ok else UNKNOWN for i, ok in zip(nearest.tolist(), close.tolist()))


def agreement(decoded: Sequence[str], truth: Sequence[str]) -> CellAgreement:
    """Compare decoded labels with the true ones."""
    if len(decoded) != len(truth):
        raise ValueError(f"{len(decoded)} decoded cells for {len(truth)} true ones")
    matches = sum(a == b for a, b in zip(decoded, truth))
    return CellAgreement(matches / len(truth), matches == len(truth), tuple(decoded))


def cell_agreement(family: FamilySpec, image: Image.Image, state: Any, overlay: Overlay = "none") -> CellAgreement:
    """How many cells of ``image`` show what they show in ``state``.

    Example:
        >>> from vgau_data.registry import get_family
        >>> maze = get_family("maze")
        >>> state = maze.fidelity.palette_states()[0]
        >>> cell_agreement(maze, maze.render(state), state).agreement
        1.0
    """
    return agreement(read_cells(family, image, overlay), _decoding(family).cell_labels(state))
