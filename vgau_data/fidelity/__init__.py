"""Generation fidelity: how faithfully a generated image shows what it should.

Core measures (numpy and Pillow only; LPIPS, which needs torch, is
``vgau_data.runners.perceptual``):

- cell agreement (``cells``): the image decoded cell by cell against the true state;
- SSIM against the oracle image (``ssim``);
- for self-VR on maze, sokoban and path, the red route read and replayed (``routes``).

``image_fidelity`` computes all that applies to one generated image.
"""

from __future__ import annotations

from typing import Any, Final

from PIL import Image

from vgau_data.fidelity.cells import CellAgreement, cell_agreement, read_cells
from vgau_data.fidelity.routes import RouteReading, read_route
from vgau_data.fidelity.ssim import ssim
from vgau_data.oracle_aids import Purpose, oracle_image
from vgau_data.puzzles.base import FamilySpec

OVERLAY_OF_PURPOSE: Final = {"aid": "grid", "next_state": "none", "vr": "sketch"}
"""What may be drawn over the board in an image made for each purpose."""

__all__ = [
    "OVERLAY_OF_PURPOSE",
    "CellAgreement",
    "RouteReading",
    "cell_agreement",
    "image_fidelity",
    "read_cells",
    "read_route",
    "ssim",
]


def image_fidelity(
    family: FamilySpec, image: Image.Image, state: Any, purpose: Purpose, oracle: Image.Image | None = None
) -> dict[str, Any]:
    """Cell agreement, SSIM against the oracle image and (self-VR routes) the route's verdict.

    Args:
        family: the board's family.
        image: the generated (or substituted) image.
        state: the true state it should show: the initial state for ``"aid"`` and
            ``"vr"``, the state after the step for ``"next_state"``.
        purpose: ``"aid"``, ``"next_state"`` or ``"vr"``.
        oracle: the oracle image, if already at hand (else rendered, and for ``"vr"`` solved).

    Returns:
        JSON-able ``cell_agreement``, ``cells_exact`` (both None for a family whose cells
        cannot be decoded, ``FamilySpec.fidelity`` None), ``ssim`` and, for ``"vr"`` on a
        family with a red route, ``route_feasible``, ``route_error``, ``route_cells``,
        ``route_length``, ``route_ambiguous``.

    Example:
        >>> from vgau_data.registry import get_family
        >>> maze = get_family("maze")
        >>> state = maze.fidelity.palette_states()[0]
        >>> image_fidelity(maze, oracle_image(maze, state, "vr"), state, "vr")["route_feasible"]
        True
    """
    oracle = oracle if oracle is not None else oracle_image(family, state, purpose)
    if family.fidelity is not None:
        record: dict[str, Any] = cell_agreement(family, image, state, OVERLAY_OF_PURPOSE[purpose]).to_dict()
    else:  # nothing to decode the cells with: no cell measures, the rest still applies
        record = {"cell_agreement": None, "cells_exact": None}
    record["ssim"] = ssim(image, oracle)
    if purpose == "vr" and family.vr is not None and family.vr.route_start is not None:
        record |= read_route(family, image, state).to_dict()
    return record
