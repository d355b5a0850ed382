"""The grid annotation: one pasted layer, the same pixels as lines then labels."""

from __future__ import annotations

import numpy as np
import pytest
from PIL import Image, ImageChops, ImageDraw

from vgau_data.oracle_aids import _layers, annotate, grid_layer
from vgau_data.puzzles.base import FamilySpec
from vgau_data.registry import FAMILIES


@pytest.mark.parametrize("family", FAMILIES.values(), ids=list(FAMILIES))
def test_grid_layer__labels_never_touch_lines(family: FamilySpec) -> None:
    _, line_coverage, _, label_coverage = _layers(family.geometry, family.dashed_grid)
    lines, labels = np.asarray(line_coverage) > 0, np.asarray(label_coverage) > 0
    assert lines.any() and labels.any()
    assert not (lines & labels).any()


def lines_then_labels(family: FamilySpec, board: Image.Image, state: object) -> Image.Image:
    """The annotation pasted in two layers, labels masked to the labelled cells (the reference)."""
    line_colours, line_coverage, label_colours, label_coverage = _layers(family.geometry, family.dashed_grid)
    if family.labelled_cells is not None:
        inside = Image.new("L", family.geometry.size, 0)
        for cell in family.labelled_cells(state):
            ImageDraw.Draw(inside).rectangle(family.geometry.cell_box(cell), fill=255)
        label_coverage = ImageChops.multiply(label_coverage, inside)
    expected = board.copy()
    expected.paste(line_colours, (0, 0), line_coverage)
    expected.paste(label_colours, (0, 0), label_coverage)
    return expected


@pytest.mark.parametrize("family", FAMILIES.values(), ids=list(FAMILIES))
def test_annotate__is_the_lines_then_the_labels_of_the_labelled_cells(family: FamilySpec) -> None:
    generated = family.generate("easy", np.random.default_rng(0))
    for state in (*(family.fidelity.palette_states() if family.fidelity else ()), generated):
        board = family.render(state)
        assert annotate(family, board, state).tobytes() == lines_then_labels(family, board, state).tobytes()
        assert board.tobytes() == family.render(state).tobytes()  # annotate leaves the board alone


def test_grid_layer__masks_labels_per_set_of_cells() -> None:
    sokoban = FAMILIES["sokoban"]
    state = sokoban.fidelity.palette_states()[0]
    _, coverage = grid_layer(sokoban, state)
    _, every_label = grid_layer(FAMILIES["maze"], FAMILIES["maze"].fidelity.palette_states()[0])
    walls = set(np.ndindex(sokoban.geometry.rows, sokoban.geometry.cols)) - set(sokoban.labelled_cells(state))
    assert walls
    for cell in walls:
        box = sokoban.geometry.cell_box(cell, inset=4)
        assert not np.asarray(coverage.crop(box)).any()
    assert np.asarray(coverage).sum() < np.asarray(every_label).sum()
