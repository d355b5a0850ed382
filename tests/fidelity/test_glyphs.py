"""The glyph reader: every letter, marker and vehicle id reads back from the aids as from the plain boards,
and a label drawn over a letter makes it illegible."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from PIL import Image, ImageDraw

from vgau_data.fidelity.cells import cell_agreement
from vgau_data.fidelity.glyphs import read_glyph, read_glyphs
from vgau_data.oracle_aids import annotate, oracle_aid
from vgau_data.puzzles.base import FamilySpec
from vgau_data.registry import FAMILIES
from vgau_data.rendering import font

LETTERED = [pytest.param(spec, id=name) for name, spec in FAMILIES.items() if spec.fidelity and spec.fidelity.text_marks]
DECODED = [pytest.param(spec, id=name) for name, spec in FAMILIES.items() if spec.fidelity]


def _boards(family: FamilySpec, solved) -> list[object]:
    """Every palette state, and every state along the solutions of the conftest's instances."""
    states = list(family.fidelity.palette_states())
    for state, solution in solved[family.name]:
        states += [state, *family.trajectory(state, solution.answer)]
    return states


def test_glyphs__the_families_that_draw_letters_declare_them() -> None:
    assert {"path", "parking", "klotski"} <= {p.id for p in LETTERED}
    with pytest.raises(ValueError, match="declares no letters"):
        read_glyphs(FAMILIES["maze"], Image.new("RGB", (8, 8)), FAMILIES["maze"].fidelity.palette_states()[0])


@pytest.mark.parametrize("family", LETTERED)
def test_glyphs__every_letter_reads_from_the_aid_as_from_the_plain_board(family: FamilySpec, solved) -> None:
    for state in _boards(family, solved):
        board = family.render(state)
        for image in (board, annotate(family, board, state)):
            readings = read_glyphs(family, image, state)
            assert readings and all(r.legible for r in readings), [r for r in readings if not r.legible]


@pytest.mark.parametrize("family", DECODED)
def test_glyphs__every_marker_and_piece_reads_from_the_aid(family: FamilySpec, solved) -> None:
    """The cell decoder (looking past the aid's lines and labels) reads every cell of every aid."""
    for state in _boards(family, solved):
        result = cell_agreement(family, annotate(family, family.render(state), state), state, "grid")
        assert result.exact, family.name


def _centred_label(family: FamilySpec, image: Image.Image, xy: tuple[int, int]) -> Image.Image:
    """A ``(r,c)`` label at ``xy`` as our aids drew them before: black, a quarter cell high, white halo."""
    covered = image.copy()
    ImageDraw.Draw(covered).text(xy, "(3,4)", font=font(family.geometry.cell_px // 4), fill=(0, 0, 0), anchor="mm",
                                 stroke_width=2, stroke_fill=(255, 255, 255))  # fmt: skip
    return covered


@pytest.mark.parametrize("family", LETTERED)
def test_glyphs__a_label_over_a_letter_makes_it_illegible(family: FamilySpec, solved) -> None:
    """Our path aid's labels sat at cell centres, over the letters: B read like D, A and E lost their bars."""
    for state, _ in solved[family.name]:
        board = family.render(state)
        for mark in family.fidelity.text_marks(state):
            assert read_glyph(board, mark).legible
            reading = read_glyph(_centred_label(family, board, mark.xy), mark)
            assert not reading.legible, reading


@pytest.mark.parametrize("name", ["parking", "klotski"])
def test_glyphs__without_its_gaps_the_aid_would_cross_the_letters(name: str, solved) -> None:
    """Parking's ids and klotski's T sit on cell boundaries: the lines break around them (``AidStyle.keep_clear``)."""
    family = FAMILIES[name]
    gapless = dataclasses.replace(family, aid=dataclasses.replace(family.aid, keep_clear=None))
    for state, _ in solved[name]:
        plain = read_glyphs(family, family.render(state), state)
        crossed = read_glyphs(family, oracle_aid(gapless, state), state)
        assert all(c.match < p.match for c, p in zip(crossed, plain))


def test_glyphs__a_letter_reads_as_the_letter_drawn() -> None:
    """Another letter drawn in the mark's place reads as that letter, not the mark's."""
    path = FAMILIES["path"]
    state = path.fidelity.palette_states()[0]
    board = path.render(state)
    mark = path.fidelity.text_marks(state)[0]
    x0, y0, x1, y1 = mark.box(margin=1)
    swapped = board.copy()
    draw = ImageDraw.Draw(swapped)
    draw.rectangle((x0, y0, x1, y1), fill=mark.ground)
    other = "B" if mark.text != "B" else "D"
    draw.text(
        mark.xy, other, font=font(mark.size), fill=mark.ink, anchor="mm", stroke_width=mark.stroke, stroke_fill=mark.ink
    )
    reading = read_glyph(swapped, mark)
    assert reading.read == other and not reading.legible and reading.match > 0.9


def test_glyphs__the_aid_of_every_family_leaves_its_letters_at_full_match(solved) -> None:
    """Not just legible: the aids do not touch the letters at all (match as on the plain board)."""
    for family in (p.values[0] for p in LETTERED):
        for state, _ in solved[family.name]:
            plain = read_glyphs(family, family.render(state), state)
            aid = read_glyphs(family, oracle_aid(family, state), state)
            assert [r.match for r in aid] == pytest.approx([r.match for r in plain], abs=1e-12), family.name
            assert np.isfinite([r.runner_up for r in aid]).all()
