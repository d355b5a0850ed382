"""Cell decoding holds for every family: our oracle images read back exactly, perturbations
lose exactly k cells, noise and other boards do not pass for the truth."""

from __future__ import annotations

import io

import numpy as np
import pytest
from PIL import Image

from vgau_data.fidelity.cells import UNKNOWN, agreement, cell_agreement, read_cells
from vgau_data.oracle_aids import (
    PROMPTED_LOOK,
    _labelled_layer,
    oracle_aid,
    oracle_aug_states,
    oracle_image,
    oracle_states,
)
from vgau_data.oracle_aids.vr import oracle_vr
from vgau_data.puzzles.base import FamilySpec
from vgau_data.puzzles.capabilities import pick_edits
from vgau_data.registry import FAMILIES

FAMILY_PARAMS = [pytest.param(spec, id=name) for name, spec in FAMILIES.items() if spec.fidelity is not None]
"""The families whose cells are decoded (``FamilySpec.fidelity``); ``tests/test_capabilities.py`` covers the rest."""


def _noise(size: tuple[int, int], seed: int) -> Image.Image:
    pixels = np.random.default_rng(seed).normal(128, 64, (size[1], size[0], 3))
    return Image.fromarray(pixels.clip(0, 255).astype(np.uint8))


@pytest.mark.parametrize("family", FAMILY_PARAMS)
def test_cells__palette_states_read_back_exactly(family: FamilySpec) -> None:
    for state in family.fidelity.palette_states():
        assert read_cells(family, family.render(state)) == family.fidelity.cell_labels(state)


@pytest.mark.parametrize("family", FAMILY_PARAMS)
def test_cells__oracle_images_agree_fully(family: FamilySpec, solved) -> None:
    for state, solution in solved[family.name]:
        steps = family.trajectory(state, solution.answer)
        cases = [(family.render(state), state, "none"), (oracle_aid(family, state), state, "grid")]
        if family.vr:  # a family without a solution drawing has no oracle_vr
            cases.append((oracle_vr(family, state, solution.answer), state, "sketch"))
        cases += [(board, step, "none") for board, step in zip(oracle_states(family, state, solution.answer), steps)]
        cases += [(aug, step, "grid") for aug, step in zip(oracle_aug_states(family, state, solution.answer), steps)]
        for image, truth, overlay in cases:
            result = cell_agreement(family, image, truth, overlay)
            assert (result.agreement, result.exact) == (1.0, True), overlay


@pytest.mark.parametrize("family", FAMILY_PARAMS)
@pytest.mark.parametrize("k", [1, 2, 5])
def test_cells__k_cell_perturbation_costs_exactly_k_cells(family: FamilySpec, k: int, solved) -> None:
    for index, (state, _) in enumerate(solved[family.name]):
        perturbed = family.fidelity.perturb(state, k, np.random.default_rng(index))
        truth = family.fidelity.cell_labels(state)
        assert sum(a != b for a, b in zip(family.fidelity.cell_labels(perturbed), truth)) == k
        for purpose, overlay in (("next_state", "none"), ("aid", "grid")):
            result = cell_agreement(family, oracle_image(family, perturbed, purpose), state, overlay)
            assert result.agreement == pytest.approx(1 - k / len(truth), abs=1e-12)
            assert not result.exact


@pytest.mark.parametrize("family", FAMILY_PARAMS)
def test_cells__perturbation_is_seeded(family: FamilySpec, solved) -> None:
    state, _ = solved[family.name][1]
    first = family.fidelity.perturb(state, 3, np.random.default_rng(7))
    assert family.fidelity.perturb(state, 3, np.random.default_rng(7)) == first


@pytest.mark.parametrize("family", FAMILY_PARAMS)
def test_cells__noise_agrees_on_almost_nothing(family: FamilySpec, solved) -> None:
    for index, (state, _) in enumerate(solved[family.name]):
        result = cell_agreement(family, _noise(family.geometry.size, index), state)
        assert result.agreement <= 0.1
        assert not result.exact


def test_cells__noise_on_a_flat_palette_reads_as_unknown() -> None:
    maze = FAMILIES["maze"]
    assert set(read_cells(maze, _noise(maze.geometry.size, 0))) == {UNKNOWN}


@pytest.mark.parametrize("family", FAMILY_PARAMS)
def test_cells__another_board_disagrees(family: FamilySpec, solved) -> None:
    (state, _), (other, _) = solved[family.name][0], solved[family.name][2]
    assert cell_agreement(family, family.render(other), state).agreement < 0.9


@pytest.mark.parametrize("family", FAMILY_PARAMS)
def test_cells__rescaled_and_jpeg_boards_still_read(family: FamilySpec, solved) -> None:
    state, _ = solved[family.name][1]
    board = family.render(state)
    buffer = io.BytesIO()
    board.save(buffer, "JPEG", quality=75)
    for image in (board.resize((1024, 1024), Image.Resampling.BICUBIC), Image.open(buffer)):
        assert cell_agreement(family, image, state).agreement == 1.0


def test_cells__agreement_counts_matches() -> None:
    result = agreement(("a", "b", "?", "d"), ("a", "b", "c", "x"))
    assert (result.agreement, result.exact) == (0.5, False)
    with pytest.raises(ValueError, match="3 decoded cells for 2"):
        agreement(("a", "b", "c"), ("a", "b"))


def test_cells__unknown_overlay_is_rejected() -> None:
    maze = FAMILIES["maze"]
    with pytest.raises(ValueError, match="unknown overlay"):
        read_cells(maze, maze.render(maze.fidelity.palette_states()[0]), "arrows")  # type: ignore[arg-type]


def test_pick_edits__reaches_exactly_k_or_says_why() -> None:
    options = [[(2, "split-a"), (1, "drop-a")], [(3, "recolour-b")], [(1, "c")]]
    for k in range(7):
        chosen = pick_edits(options, k, np.random.default_rng(k))
        cost = {"split-a": 2, "drop-a": 1, "recolour-b": 3, "c": 1}
        assert sum(cost[edit] for edit in chosen) == k
        assert len({edit[-1] for edit in chosen}) == len(chosen)  # one edit per piece
    with pytest.raises(ValueError, match="exactly 7 cells"):
        pick_edits(options, 7, np.random.default_rng(0))


@pytest.mark.parametrize("family", FAMILY_PARAMS)
def test_cells__an_aid_in_the_look_the_prompt_asks_for_decodes_too(family: FamilySpec, solved) -> None:
    """Models' Self-GtA drawings follow Tables 18-23 (labels at every cell's centre, ``PROMPTED_LOOK``, our
    aids' look until they followed the authors' code), not the authors' oracle look."""
    for state, _ in solved[family.name]:
        colours, coverage = _labelled_layer(family.geometry, PROMPTED_LOOK, None)
        drawn = family.render(state)
        drawn.paste(colours, (0, 0), coverage)
        result = cell_agreement(family, drawn, state, "grid")
        assert (result.agreement, result.exact) == (1.0, True)
