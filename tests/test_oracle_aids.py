"""The oracle aid: drawn as the authors' ``_build_aux_overlay`` draws it, family by family, in one pasted layer."""

from __future__ import annotations

import numpy as np
import pytest
from PIL import Image, ImageChops, ImageDraw

from tests.families import family_value, needs
from vgau_data.oracle_aids import _layers, aid_footprint, annotate, grid_layer, oracle_aid
from vgau_data.puzzles.base import FamilySpec
from vgau_data.registry import FAMILIES
from vgau_data.render_styles import TRAINING_CELL_SCALES, training_styles

FAMILY_PARAMS = [pytest.param(spec, id=name) for name, spec in FAMILIES.items()]

SMALLER_LABELS = {"path": 9}
"""Label sizes we draw smaller than the authors' fraction gives, in px (clear of path's triangles)."""


def _states(family: FamilySpec) -> list[object]:
    generated = [family.generate(d, np.random.default_rng(5)) for d in ("easy", "medium", "hard")]
    return [*(family.fidelity.palette_states() if family.fidelity else ()), *generated]


def _open_cells(state: object) -> set[tuple[int, int]]:
    return {(r, c) for r, row in enumerate(state.grid) for c, char in enumerate(row) if char != "#"}  # type: ignore[attr-defined]


@pytest.mark.parametrize("family", FAMILY_PARAMS)
def test_aid__style_is_the_authors(family: FamilySpec) -> None:
    rgb, width, dash, fraction, anchor, _ = family_value(family.name, "AID_AUTHORS")
    aid = family.aid
    assert (aid.line_rgb, aid.line_px, aid.dash, aid.label_anchor) == (rgb, width, dash, anchor)
    expected_px = SMALLER_LABELS.get(family.name, int(family.geometry.cell_px * fraction))
    assert aid.label_px(family.geometry) == expected_px


@pytest.mark.parametrize("family", FAMILY_PARAMS)
def test_aid__labels_the_cells_the_authors_label(family: FamilySpec) -> None:
    """Every cell, or the open cells only: their maze, sokoban and path walls carry no label
    (``tests/test_family_contract.py`` checks the pixels follow ``labelled_cells``)."""
    cells = family.aid.labelled_cells
    if family_value(family.name, "AID_AUTHORS")[5] == "all":
        assert cells is None
        return
    for state in _states(family):
        assert cells(state) == _open_cells(state)


@pytest.mark.parametrize("family", FAMILY_PARAMS)
def test_aid__lines_have_the_authors_colour_width_and_dash(family: FamilySpec) -> None:
    state = _states(family)[-1]
    geometry, style = family.geometry, family.aid
    aid = np.asarray(oracle_aid(family, state)).astype(int)
    red = np.abs(aid - np.array(style.line_rgb)).max(axis=2) == 0
    # across the vertical boundary between columns 0 and 1, in a row where nothing keeps the line away
    x = geometry.margin_left + geometry.cell_px
    clear = style.keep_clear(state) if style.keep_clear else ()
    if style.dash:  # the middle of each dash
        ys = range(geometry.margin_top + style.dash[0] // 2, geometry.size[1] - geometry.margin_bottom, sum(style.dash))
    else:
        ys = [
            geometry.margin_top + r * geometry.cell_px + geometry.cell_px // 2
            for r in range(geometry.rows)
            if family.name != "path" or {(r, 0), (r, 1)} <= _open_cells(state)
        ]
    y = next(y for y in ys if not any(x0 - 3 <= x <= x1 + 3 and y0 <= y <= y1 for x0, y0, x1, y1 in clear))
    assert red[y, x - 3 : x + 4].sum() == style.line_px
    if style.dash is None:
        return
    on, off = style.dash
    along = red[geometry.margin_top, geometry.margin_left : geometry.margin_left + geometry.cols * geometry.cell_px]
    runs = np.diff(np.flatnonzero(np.diff(np.concatenate([[0], along.astype(int), [0]]))))
    assert runs[0] == on + 1 and runs[1] == off - 1  # the authors' dash: on + 1 pixels drawn, off - 1 skipped


def test_aid__path_lines_skip_the_walls() -> None:
    path = FAMILIES["path"]
    for state in _states(path):
        _, coverage = grid_layer(path, state)
        covered = np.asarray(coverage) > 0
        for r, row in enumerate(state.grid):
            for c, char in enumerate(row):
                x0, y0, x1, y1 = path.geometry.cell_box((r, c))
                if char == "#":
                    assert not covered[y0 - 1 : y1 + 2, x0 - 1 : x1 + 2].any(), (r, c)
        open_edges = [
            (r, c) for r in range(10) for c in range(9) if state.grid[r][c] == "." and state.grid[r][c + 1] == "."
        ]
        for r, c in open_edges:  # the line between two open cells is drawn
            x = path.geometry.margin_left + (c + 1) * path.geometry.cell_px
            assert covered[path.geometry.center((r, c))[1], x]


@pytest.mark.parametrize("family", [p for p in FAMILY_PARAMS if p.values[0].aid.keep_clear is not None])
def test_aid__leaves_the_kept_clear_pixels_of_every_step_alone(family: FamilySpec) -> None:
    """Parking's ids and klotski's T move with their pieces: every step's aid leaves them as drawn."""
    for state in _states(family)[-3:]:  # the generated ones, which have solutions
        solution = family.solve(state)
        for shown in (state, *family.trajectory(state, solution.answer)):
            board = family.render(shown)
            aid = np.asarray(annotate(family, board, shown))
            plain = np.asarray(board)
            boxes = family.aid.keep_clear(shown)
            assert boxes
            for x0, y0, x1, y1 in boxes:
                window = np.s_[max(y0, 0) : y1 + 1, max(x0, 0) : x1 + 1]
                assert (aid[window] == plain[window]).all()


@pytest.mark.parametrize("family", FAMILY_PARAMS)
def test_grid_layer__labels_never_touch_lines(family: FamilySpec) -> None:
    _, line_coverage, _, label_coverage = _layers(family.geometry, family.aid)
    lines, labels = np.asarray(line_coverage) > 0, np.asarray(label_coverage) > 0
    assert lines.any() and labels.any()
    assert not (lines & labels).any()


def lines_then_labels(family: FamilySpec, board: Image.Image, state: object) -> Image.Image:
    """The annotation pasted in two layers, labels masked to the labelled cells, kept-clear boxes restored."""
    style = family.aid
    line_colours, line_coverage, label_colours, label_coverage = _layers(family.geometry, style)
    if style.labelled_cells is not None:
        inside = Image.new("L", family.geometry.size, 0)
        for cell in style.labelled_cells(state):
            ImageDraw.Draw(inside).rectangle(family.geometry.cell_box(cell), fill=255)
        label_coverage = ImageChops.multiply(label_coverage, inside)
    expected = board.copy()
    expected.paste(line_colours, (0, 0), line_coverage)
    expected.paste(label_colours, (0, 0), label_coverage)
    for box in style.keep_clear(state) if style.keep_clear else ():
        x0, y0, x1, y1 = box
        expected.paste(board.crop((x0, y0, x1 + 1, y1 + 1)), (x0, y0))
    return expected


@pytest.mark.parametrize("family", FAMILY_PARAMS)
def test_annotate__is_the_lines_then_the_labels_of_the_labelled_cells(family: FamilySpec) -> None:
    for state in _states(family):
        board = family.render(state)
        assert annotate(family, board, state).tobytes() == lines_then_labels(family, board, state).tobytes()
        assert board.tobytes() == family.render(state).tobytes()  # annotate leaves the board alone


@pytest.mark.parametrize("family", FAMILY_PARAMS)
def test_grid_layer__one_cached_layer_per_cell_scale_in_every_render_style(family: FamilySpec) -> None:
    """The whole-board layers (~3 MB each) do not multiply with render styles, though path's, parking's
    and klotski's ``keep_clear`` is bound to each style: one per board size, with the style's own pixels."""
    needs(family.name, "styles")
    state = _states(family)[-1]
    _layers.cache_clear()
    for style in training_styles():
        grid_layer(family.styled(style), state)
    assert _layers.cache_info().misses == len(TRAINING_CELL_SCALES)
    for style in training_styles()[::30]:
        styled = family.styled(style)
        board = styled.render(state)
        assert annotate(styled, board, state).tobytes() == lines_then_labels(styled, board, state).tobytes()


def test_annotate__refuses_a_board_of_another_size() -> None:
    maze = FAMILIES["maze"]
    state = maze.fidelity.palette_states()[0]
    with pytest.raises(ValueError, match="boards are"):
        annotate(maze, maze.render(state).resize((100, 100)), state)


@pytest.mark.parametrize("family", FAMILY_PARAMS)
def test_aid_footprint__covers_every_pixel_of_the_aid(family: FamilySpec) -> None:
    """What the cell decoder looks past (``tests/fidelity`` checks the look Tables 18-23 ask for decodes too)."""
    footprint = aid_footprint(family.geometry, family.aid)
    for state in _states(family):
        assert footprint[np.asarray(grid_layer(family, state)[1]) > 0].all()
