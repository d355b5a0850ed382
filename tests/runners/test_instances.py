"""Instances: a row's render style makes its family the styled one; benchmark rows keep the registry's."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from vgau_data.errors import VgauError
from vgau_data.oracle_aids import oracle_aid
from vgau_data.registry import FAMILIES
from vgau_data.render_styles import OOD_STYLE, RenderStyle
from vgau_data.rendering import png_bytes
from vgau_data.runners.instances import Instance, instance_from_row
from vgau_data.runners.protocols import ProtocolConfig, make_episode


def _row(instance: Instance, **cells: Any) -> dict[str, Any]:
    return {"id": instance.id, "task": instance.task, "difficulty": instance.difficulty,
            "optimal_length": instance.optimal_length, "state": instance.state, **cells}  # fmt: skip


def test_benchmark_instances__have_no_style_and_the_registrys_own_family(instances: list[Instance]) -> None:
    assert {instance.render_style for instance in instances} == {None}
    assert all(instance.family is FAMILIES[instance.task] for instance in instances)


@pytest.mark.parametrize("style", [OOD_STYLE, OOD_STYLE.to_json()], ids=["RenderStyle", "json"])
def test_a_styled_row__draws_its_missing_board_and_aid_and_its_episode_in_its_style(
    instances: list[Instance], style: RenderStyle | str
) -> None:
    base = next(instance for instance in instances if instance.task == "parking")
    instance = instance_from_row(_row(base, render_style=style))
    spec = FAMILIES["parking"].styled(OOD_STYLE)
    state = spec.from_json(base.state)
    assert instance.render_style == OOD_STYLE and instance.family is spec  # FamilySpec.styled's cached spec
    assert png_bytes(instance.image) == png_bytes(spec.render(state))  # the row had no image
    assert png_bytes(instance.aid()) == png_bytes(oracle_aid(spec, state))  # nor an aid
    episode = make_episode(instance, ProtocolConfig(name="oracle_vcot"))
    after = episode.env.step(spec.oracle_steps(state)[0]).image
    assert after.size == spec.geometry.size != FAMILIES["parking"].geometry.size
    assert instance.reference == base.reference  # the style is how it looks, not what it is


@pytest.mark.parametrize("style", ["faded", '{"palette":"x"}', 7, '{"palette":{},"line_scale":1,"cell_scale":1}'])
def test_a_style_that_is_not_one__is_a_one_line_error_naming_the_row(instances: list[Instance], style: object) -> None:
    with pytest.raises(VgauError, match=rf"^row '{instances[0].id}': (not a render style|unknown palette)") as caught:
        instance_from_row(_row(instances[0], image=None, render_style=style))
    assert "\n" not in str(caught.value)


def test_a_null_style__is_the_benchmark_row_as_before(instances: list[Instance]) -> None:
    base = instances[0]
    plain, null = instance_from_row(_row(base)), instance_from_row(_row(base, render_style=None))
    assert plain == null and null.family is FAMILIES[base.task]
    assert np.array_equal(np.asarray(plain.image), np.asarray(base.family.render(base.initial_state())))
