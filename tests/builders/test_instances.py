"""Rows: every image column holds what the standalone oracle functions draw."""

from __future__ import annotations

import io

import pytest
from PIL import Image

from vgau_data.builders.instances import COLUMN_CODECS, RowTask, generate_verified, make_row
from vgau_data.oracle_aids import oracle_aid, oracle_aug_states, oracle_states
from vgau_data.oracle_aids.vr import oracle_vr
from vgau_data.registry import FAMILIES


@pytest.mark.parametrize("family_name", list(FAMILIES))
def test_make_row__images_are_the_oracle_renderings_in_their_codecs(family_name: str) -> None:
    family = FAMILIES[family_name]
    task = RowTask(family_name, "easy", 0, master_seed=3)
    row = make_row(task)
    state, solution = generate_verified(family_name, "easy", task.seed, task.slot)
    steps = oracle_states(family, state, solution.answer)
    expected = {
        "image": [family.render(state)],
        "oracle_aid": [oracle_aid(family, state)],
        "oracle_states": steps,
        "oracle_aug_states": oracle_aug_states(family, state, solution.answer),
        "oracle_vr": [oracle_vr(family, state, solution.answer)] if family.vr else [],
    }
    for column, codec in COLUMN_CODECS.items():
        cells = row[column] if isinstance(row[column], list) else [] if row[column] is None else [row[column]]
        assert len(cells) == len(expected[column]), column
        for cell, image in zip(cells, expected[column]):
            decoded = Image.open(io.BytesIO(cell["bytes"]))
            assert decoded.format == codec.upper(), column
            assert decoded.convert("RGB").tobytes() == image.tobytes(), column
