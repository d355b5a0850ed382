"""Slots: how a bucket's rows get their lengths (the authors' histogram) and quantiles."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

from vgau_data.puzzles.base import BUCKET_SIZES, Slot, bucket_slot, draw_slot, mix_order
from vgau_data.registry import FAMILIES


@pytest.mark.parametrize("counts", [{1: 5, 2: 5, 3: 3, 5: 4, 6: 3}, {8: 7, 9: 3, 12: 8, 13: 6, 14: 2, 15: 3, 16: 1}])
def test_mix_order__the_whole_mix_and_every_prefix_close_to_it(counts: dict[int, int]) -> None:
    order = mix_order(counts)
    total = sum(counts.values())
    assert Counter(order) == Counter(counts)
    for size in range(1, total + 1):
        have = Counter(order[:size])
        assert all(abs(have[n] - k * size / total) < 1 for n, k in counts.items()), (size, have)


@pytest.mark.parametrize("name", list(FAMILIES))
def test_slot__a_full_bucket_is_the_mix_and_quantiles_spread(name: str) -> None:
    spec = FAMILIES[name]
    for difficulty, rows in BUCKET_SIZES.items():
        slots = [spec.slot(difficulty, index) for index in range(rows)]
        assert Counter(slot.length for slot in slots) == Counter(spec.length_mix[difficulty])
        quantiles = sorted(slot.quantile for slot in slots)
        assert all(0 <= q < 1 for q in quantiles)
        assert max(b - a for a, b in zip([0.0, *quantiles], [*quantiles, 1.0])) < 2.5 / rows
        assert spec.slot(difficulty, rows).length == slots[0].length  # the mix repeats past its total


def test_draw_slot__follows_the_weights_and_refuses_unknown_buckets() -> None:
    rng = np.random.default_rng(0)
    mix = {"easy": {1: 1, 2: 3}}
    drawn = Counter(draw_slot(mix, "easy", rng).length for _ in range(2000))
    assert set(drawn) == {1, 2} and 0.2 < drawn[1] / 2000 < 0.3
    with pytest.raises(ValueError, match="unknown difficulty"):
        draw_slot(mix, "extreme", rng)


def test_bucket_slot__draws_or_checks_the_slot_against_its_bucket() -> None:
    buckets, mix = {"easy": (1, 2)}, {"easy": {1: 1, 2: 3}}
    drawn = bucket_slot("toy", buckets, mix, "easy", np.random.default_rng(0), None)
    assert drawn == draw_slot(mix, "easy", np.random.default_rng(0))  # the same draw, the same stream
    given = Slot(2, 0.5)
    assert bucket_slot("toy", buckets, mix, "easy", np.random.default_rng(0), given) is given
    with pytest.raises(ValueError, match=r"toy: unknown difficulty 'hard'; choose from \['easy'\]"):
        bucket_slot("toy", buckets, mix, "hard", np.random.default_rng(0), None)
    with pytest.raises(ValueError, match="toy/easy: length 3 is outside 1-2"):
        bucket_slot("toy", buckets, mix, "easy", np.random.default_rng(0), Slot(3, 0.5))


def test_from_modules__reads_the_role_modules_and_names_what_is_missing_or_ambiguous() -> None:
    import types

    from vgau_data.puzzles.base import FamilySpec
    from vgau_data.puzzles.maze import SPEC, answers, fidelity, generator, prompts, render, rules, solver, state

    roles = (state, rules, solver, generator, render, answers, prompts)
    spec = FamilySpec.from_modules("maze", (*roles, fidelity))
    assert (spec.apply_step, spec.buckets, spec.geometry, spec.answer_tag) == (
        rules.apply_step, generator.BUCKETS, render.GEOMETRY, answers.ANSWER_TAG
    )
    capabilities = (spec.fidelity, spec.vr, spec.paper, spec.structure, spec.episode_steps)
    assert capabilities == (fidelity.FIDELITY, fidelity.VR, None, None, None)  # what no module declares stays None
    assert FamilySpec.from_modules("maze", roles, solve=len).solve is len  # a keyword overrides a module
    assert FamilySpec.from_modules("maze", (*roles, fidelity), vr=None).vr is None
    assert SPEC.structure is not None and spec.structure is None
    with pytest.raises(TypeError, match="none of its modules defines apply_step, candidate_steps, is_goal, replay"):
        FamilySpec.from_modules("maze", (state, solver, generator, render, answers, prompts))
    other = types.ModuleType("other")
    other.solve = len
    with pytest.raises(TypeError, match="solve is defined differently in vgau_data.puzzles.maze.solver, other"):
        FamilySpec.from_modules("maze", (*roles, other))


def test_from_package__reads_every_module_of_the_package_as_from_modules_does() -> None:
    import importlib

    from vgau_data.puzzles.base import DEFAULT_AID, FamilySpec
    from vgau_data.puzzles.maze import SPEC, render

    names = ("answers", "authors_reader", "fidelity", "generator", "paper", "prompts", "render")
    names += ("rules", "solver", "state", "structure", "symmetry")
    modules = [importlib.import_module(f"vgau_data.puzzles.maze.{name}") for name in names]
    assert FamilySpec.from_package("vgau_data.puzzles.maze") == FamilySpec.from_modules("maze", modules) == SPEC
    assert SPEC.aid is render.AID and render.AID != DEFAULT_AID  # the aid's look is read from AID
    assert FamilySpec.from_package("vgau_data.puzzles.maze", aid=DEFAULT_AID).aid is DEFAULT_AID
    without_render_module = [module for module in modules if module is not render]
    with pytest.raises(TypeError, match="defines GEOMETRY, render "):  # AID alone is no render.py
        FamilySpec.from_modules("maze", without_render_module)
