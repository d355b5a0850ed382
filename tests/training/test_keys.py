"""Canonical keys: fixed values, equal under every declared symmetry, one per trajectory state."""

from __future__ import annotations

import dataclasses

import pytest

from tests.families import family_table, family_value, needs
from tests.training.golden_states import GOLDEN_STATES
from vgau_data.registry import FAMILIES
from vgau_data.training.keys import canonical_key, exact_key, key_hex, symmetry_of, trajectory, trajectory_keys

GOLDEN = family_table("GOLDEN_KEYS")
"""(canonical key, exact key, optimum) of ``GOLDEN_STATES``: a change here changes every shipped test key."""


def test_every_family_has_a_golden_board() -> None:
    assert set(GOLDEN) == set(GOLDEN_STATES) <= set(FAMILIES)


@pytest.mark.parametrize("family", list(FAMILIES))
def test_golden_key_values_stay_fixed(family: str) -> None:
    state = family_value(family, "GOLDEN_STATE")
    key, exact, optimum = family_value(family, "GOLDEN_KEYS")
    assert FAMILIES[family].solve(state).optimal_length == optimum
    assert key_hex(canonical_key(family, state)) == key
    assert key_hex(exact_key(family, state)) == exact


@pytest.mark.parametrize("family", list(FAMILIES))
def test_every_image_of_a_board_gets_its_key(family: str) -> None:
    needs(family, "symmetry")
    state = family_value(family, "GOLDEN_STATE")
    symmetry = symmetry_of(family)
    images = {FAMILIES[family].to_json(symmetry.apply(state, name)) for name in symmetry.transforms}
    assert len(images) > 1  # the transforms really move the board
    assert {canonical_key(family, symmetry.apply(state, name)) for name in symmetry.transforms} == {
        canonical_key(family, state)}


@pytest.mark.parametrize("family", list(FAMILIES))
def test_a_trajectory_keys_every_state_before_the_goal(family: str) -> None:
    spec = FAMILIES[family]
    state = family_value(family, "GOLDEN_STATE")
    answer = spec.solve(state).answer
    boards = trajectory(family, state, answer)
    keys = trajectory_keys(family, state, answer)
    assert len(keys) == len(boards) == spec.solve(state).optimal_length
    assert keys[0] == canonical_key(family, state)
    assert not spec.is_goal(boards[-1])
    assert spec.is_goal(spec.trajectory(state, answer)[-1])


def test_a_family_without_a_symmetry_capability_falls_back_to_the_identity(monkeypatch: pytest.MonkeyPatch) -> None:
    from vgau_data import registry

    declared = FAMILIES["maze"].symmetry
    bare = dataclasses.replace(FAMILIES["maze"], symmetry=None)
    monkeypatch.setitem(registry._FAMILIES, "maze", bare)
    symmetry = symmetry_of("maze")
    assert symmetry.transforms == ("identity",)
    assert symmetry.forms(GOLDEN_STATES["maze"]) == [bare.to_json(GOLDEN_STATES["maze"])]
    assert canonical_key("maze", GOLDEN_STATES["maze"]) != canonical_key(
        "maze", declared.apply(GOLDEN_STATES["maze"], "rot90")
    )
