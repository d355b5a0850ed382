from __future__ import annotations

import itertools

import pytest

from vgau_data.seeding import instance_seed, rng_for


def test_instance_seed__is_stable_and_63_bit() -> None:
    seed = instance_seed(0, "maze", "hard", 7)
    assert seed == instance_seed(0, "maze", "hard", 7)
    assert 0 <= seed < 2**63


def test_instance_seed__neighbouring_master_seeds_never_shift_into_each_other() -> None:
    # the `seed + i` bug: ds(seed=s)[i+1] == ds(seed=s+1)[i]
    first = {instance_seed(1, "maze", d, i) for d in ("easy", "hard") for i in range(200)}
    second = {instance_seed(2, "maze", d, i) for d in ("easy", "hard") for i in range(200)}
    assert not first & second


def test_instance_seed__every_coordinate_matters() -> None:
    coords = itertools.product((0, 1), ("maze", "path"), ("easy", "hard"), (0, 1), (0, 1))
    seeds = [instance_seed(*c) for c in coords]
    assert len(set(seeds)) == len(seeds)


def test_instance_seed__rejects_negative_master_seed() -> None:
    with pytest.raises(ValueError, match=">= 0"):
        instance_seed(-1, "maze", "easy", 0)


def test_rng_for__same_seed_same_stream() -> None:
    assert rng_for(5).integers(0, 1 << 30, 4).tolist() == rng_for(5).integers(0, 1 << 30, 4).tolist()
