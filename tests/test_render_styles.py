"""Render styles: the benchmark style draws today's bytes, training styles are seeded and never
the benchmark's, the held-out style shares no knob with them, and every reader reads them all."""

from __future__ import annotations

import colorsys
import itertools

import numpy as np
import pytest

from vgau_data.errors import VgauError
from vgau_data.fidelity import OVERLAY_OF_PURPOSE, cell_agreement
from vgau_data.fidelity.glyphs import read_glyphs
from vgau_data.fidelity.routes import read_route, red_mask
from vgau_data.oracle_aids import oracle_aid, oracle_image
from vgau_data.oracle_aids.vr import oracle_vr
from vgau_data.puzzles.base import FamilySpec
from vgau_data.registry import FAMILIES
from vgau_data.render_styles import (
    BENCHMARK_STYLE,
    OOD_STYLE,
    PALETTES,
    TRAINING_CELL_SCALES,
    TRAINING_LINE_SCALES,
    TRAINING_PALETTES,
    PaletteShift,
    RenderStyle,
    parse_render_style,
    sample_style,
    training_styles,
)
from vgau_data.rendering import png_bytes
from vgau_data.seeding import instance_seed, rng_for
from vgau_data.testing.look import check_look

FAMILY_PARAMS = [pytest.param(spec, id=name) for name, spec in FAMILIES.items() if spec.styles]
"""The families that draw other styles (``styles``); one without draws the benchmark style only (tested below)."""
READ_STYLES = [sample_style(0), sample_style(4), OOD_STYLE]
"""Styles every reader is checked on: two sampled training styles (one of the smallest cells) and the held-out one."""
EXTREMES = [
    RenderStyle(palette, line, cell)
    for palette in TRAINING_PALETTES
    for line, cell in (
        (min(TRAINING_LINE_SCALES), min(TRAINING_CELL_SCALES)),
        (max(TRAINING_LINE_SCALES), max(TRAINING_CELL_SCALES)),
    )
]


def _solved(family: FamilySpec) -> tuple[object, tuple[object, ...]]:
    state = family.generate("easy", rng_for(instance_seed(23, family.name, "easy", 0)))
    return state, family.solve(state).answer


def test_benchmark_style__is_the_default_and_draws_the_benchmark_bytes() -> None:
    assert RenderStyle() == BENCHMARK_STYLE == RenderStyle("benchmark", 1, 1) and BENCHMARK_STYLE.is_benchmark
    for family in FAMILIES.values():
        assert family.styled(BENCHMARK_STYLE) is family
        if family.styles is None:
            continue
        board = family.styles.board(BENCHMARK_STYLE)
        assert board.geometry == family.geometry and board.aid.line_rgb == family.aid.line_rgb
        state, _ = _solved(family)
        for shown in (*family.fidelity.palette_states(), state):
            assert png_bytes(board.render(shown)) == png_bytes(family.render(shown)), family.name
            if board.text_marks is not None:
                assert board.text_marks(shown) == family.fidelity.text_marks(shown)


def test_px__scales_sizes_and_offsets_keeping_their_sign() -> None:
    style = RenderStyle("benchmark", 1.0, 1.5)
    assert [style.px(n) for n in (52, 1, 0, -1, -9)] == [78, 2, 0, -2, -14]  # an offset left or up stays so
    assert [RenderStyle("benchmark", 1.0, 0.5).px(n) for n in (1, 0, -1)] == [1, 0, -1]  # never 0 unless 0
    assert [BENCHMARK_STYLE.px(n) for n in (52, 0, -9)] == [52, 0, -9]


@pytest.mark.parametrize("style", [BENCHMARK_STYLE, OOD_STYLE, *EXTREMES], ids=str)
def test_styled__parkings_exit_arrow_is_the_benchmarks_scaled(style: RenderStyle) -> None:
    """The arrow is drawn from offsets above and below the exit row's middle; scaled, it keeps its shape."""
    from vgau_data.puzzles.parking.render import EXIT_RGB

    parking = FAMILIES["parking"].styled(style)
    state = parking.generate("easy", np.random.default_rng(0))
    pixels = np.asarray(parking.render(state).convert("RGB"), dtype=int)
    geometry = parking.geometry
    right = pixels[:, geometry.margin_left + geometry.cols * geometry.cell_px :]
    rows, cols = np.nonzero(np.abs(right - np.array(style.rgb(EXIT_RGB))).sum(axis=2) < 30)
    middle = geometry.margin_top + state.exit_row * geometry.cell_px + geometry.cell_px // 2
    assert rows.min() + rows.max() in (2 * middle - 1, 2 * middle, 2 * middle + 1)  # as far above as below
    assert rows.max() - rows.min() + 1 == pytest.approx(37 * style.cell_scale, abs=2)  # the head's full height
    assert cols.max() - cols.min() + 1 == pytest.approx(39 * style.cell_scale, abs=2)


def test_sample_style__is_seeded_never_the_benchmark_and_never_the_held_out_knobs() -> None:
    styles = [sample_style(seed) for seed in range(400)]
    assert styles == [sample_style(seed) for seed in range(400)]
    assert BENCHMARK_STYLE not in styles and BENCHMARK_STYLE not in training_styles()
    assert len(set(styles)) > 40  # of 89: neighbouring seeds are not one style
    assert all(s.palette in TRAINING_PALETTES and s.line_scale in TRAINING_LINE_SCALES for s in styles)
    assert OOD_STYLE.palette not in TRAINING_PALETTES
    assert OOD_STYLE.line_scale not in TRAINING_LINE_SCALES and OOD_STYLE.cell_scale not in TRAINING_CELL_SCALES
    assert set(training_styles(include_benchmark=True)) - set(training_styles()) == {BENCHMARK_STYLE}
    assert BENCHMARK_STYLE in {sample_style(seed, include_benchmark=True) for seed in range(2000)}
    golden = ["dim-l1-c1.125", "benchmark-l1.5-c0.875", "soft-l1.5-c1", "warm-l1.5-c1.25", "muted-l1.5-c0.75"]
    assert [sample_style(seed).name for seed in range(5)] == golden  # a changed sampler changes every varied row


def test_render_style__json_round_trips_and_refuses_what_is_not_a_style() -> None:
    style = RenderStyle("soft", 1.5, 0.875)
    assert RenderStyle.from_json(style.to_json()) == style and style.name == "soft-l1.5-c0.875"
    assert style.to_json() == '{"cell_scale":0.875,"line_scale":1.5,"palette":"soft"}'
    for text in (
        "", "[]", '{"palette":"soft"}', "x" * 10_000, '{"palette":"neon","line_scale":1,"cell_scale":1}',
        '{"palette":"soft","line_scale":9,"cell_scale":1}', '{"palette":"soft","line_scale":true,"cell_scale":1}',
        '{"palette":["soft"],"line_scale":1,"cell_scale":1}',
    ):  # fmt: skip
        with pytest.raises(VgauError):
            RenderStyle.from_json(text)
    with pytest.raises(VgauError, match="not a render style"):
        RenderStyle.from_json(3)  # type: ignore[arg-type]


def test_parse_render_style__reads_a_rows_cell_and_names_the_row_when_it_is_not_a_style() -> None:
    assert parse_render_style(None, "row 'a'") is None and parse_render_style(OOD_STYLE, "row 'a'") is OOD_STYLE
    assert parse_render_style(OOD_STYLE.to_json(), "row 'a'") == OOD_STYLE
    for cell in ("faded", b"{}", 1.5, '{"palette":{},"line_scale":1,"cell_scale":1}'):
        with pytest.raises(VgauError, match=r"^row 'a': (not a render style|unknown palette)"):
            parse_render_style(cell, "row 'a'")


def test_palettes__keep_every_colour_near_its_hue_so_the_prompts_colour_words_stay_true() -> None:
    named = {"blue": (37, 99, 235), "green": (22, 163, 74), "orange": (249, 115, 22), "red": (214, 30, 36)}
    for shift, (word, rgb) in itertools.product(PALETTES.values(), named.items()):
        hue = colorsys.rgb_to_hls(*(v / 255 for v in rgb))[0] * 360
        moved = colorsys.rgb_to_hls(*(v / 255 for v in shift.apply(rgb)))[0] * 360
        assert min(abs(hue - moved), 360 - abs(hue - moved)) <= 8, (word, shift)
    assert PaletteShift().apply((1, 2, 3)) == (1, 2, 3)


@pytest.mark.parametrize("family", FAMILY_PARAMS)
def test_styled__draws_deterministic_boards_of_its_geometry_unlike_the_benchmark(family: FamilySpec) -> None:
    state, _ = _solved(family)
    benchmark = png_bytes(family.render(state))
    for style in READ_STYLES:
        spec = family.styled(style)
        assert family.styled(style) is spec
        image = spec.render(state)
        assert image.size == spec.geometry.size and spec.geometry.cell_px == style.px(family.geometry.cell_px)
        data = png_bytes(image)
        assert data == png_bytes(family.styles.board(style).render(state)) != benchmark


@pytest.mark.parametrize("family", FAMILY_PARAMS)
@pytest.mark.parametrize("style", READ_STYLES, ids=lambda s: s.name)
def test_styled__every_reader_reads_the_board_aid_and_drawing(family: FamilySpec, style: RenderStyle) -> None:
    spec = family.styled(style)
    state, answer = _solved(family)
    problems: list[str] = []
    check_look(spec, state, answer, lambda ok, message: problems.append(message) if not ok else None)
    assert not problems
    for shown in (*family.fidelity.palette_states(), state):
        purposes = ("aid", "next_state", "vr") if family.vr is not None and shown is state else ("aid", "next_state")
        for purpose in purposes:
            reading = cell_agreement(spec, oracle_image(spec, shown, purpose), shown, OVERLAY_OF_PURPOSE[purpose])
            assert reading.exact, (purpose, reading.agreement)
        if family.fidelity.text_marks is not None:
            for image in (spec.render(shown), oracle_aid(spec, shown)):
                assert all(glyph.legible for glyph in read_glyphs(spec, image, shown))
    if family.vr is not None and family.vr.route_start is not None:
        reading = read_route(spec, oracle_vr(spec, state, answer), state)
        assert reading.replay.feasible and reading.replay.length == family.replay(state, answer).length


@pytest.mark.parametrize("family", [p for p in FAMILY_PARAMS if p.values[0].vr and p.values[0].vr.route_start])
def test_styled__no_style_draws_red_on_a_board_whose_red_route_is_read(family: FamilySpec) -> None:
    state, _ = _solved(family)
    for style in [*EXTREMES, OOD_STYLE]:
        spec = family.styled(style)
        for shown in (*family.fidelity.palette_states(), state):
            assert not red_mask(spec.render(shown)).any(), style.name


def test_styled__a_family_without_styles_is_refused_by_name() -> None:
    import dataclasses

    bare = dataclasses.replace(FAMILIES["maze"], styles=None)
    assert bare.styled(BENCHMARK_STYLE) is bare
    with pytest.raises(VgauError, match="only the benchmark style"):
        bare.styled(OOD_STYLE)


@pytest.mark.slow
@pytest.mark.parametrize("family", FAMILY_PARAMS)
def test_styled__every_training_style_reads_back(family: FamilySpec) -> None:
    """The fast tests check a few sampled styles; this one every style ``sample_style`` can return."""
    state, answer = _solved(family)
    for style in training_styles():
        spec = family.styled(style)
        for shown in (*family.fidelity.palette_states(), state):
            assert cell_agreement(spec, oracle_image(spec, shown, "aid"), shown, "grid").exact, style.name
            if family.fidelity.text_marks is not None:
                assert all(glyph.legible for glyph in read_glyphs(spec, spec.render(shown), shown)), style.name
        if family.vr is not None and family.vr.route_start is not None:
            assert read_route(spec, oracle_vr(spec, state, answer), state).replay.feasible, style.name
            assert not np.any(red_mask(spec.render(state))), style.name
