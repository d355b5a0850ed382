from __future__ import annotations

import subprocess
import sys

import pytest

from vgau_data.errors import UnknownFamilyError
from vgau_data.registry import FAMILIES, get_family


def test_registry__holds_exactly_the_six_families_in_spec_order() -> None:
    assert list(FAMILIES) == ["maze", "sokoban", "path", "onet", "parking", "klotski"]


def test_registry__lookup_is_case_insensitive_and_unknown_names_list_choices() -> None:
    assert get_family(" SOKOBAN ").name == "sokoban"
    with pytest.raises(UnknownFamilyError, match="choose from maze, sokoban"):
        get_family("tetris")


def test_registry__is_read_only() -> None:
    with pytest.raises(TypeError):
        FAMILIES["tetris"] = FAMILIES["maze"]  # type: ignore[index]


def test_core__imports_no_torch_transformers_or_evaluate() -> None:
    code = (
        "import sys, vgau_data.registry, vgau_data.metrics.scoring, vgau_data.oracle_aids, vgau_data.builders;"
        "heavy = [m for m in ('torch', 'transformers', 'evaluate', 'vllm') if m in sys.modules];"
        "print(','.join(heavy))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""
