from __future__ import annotations

import importlib
import subprocess
import sys
from pathlib import Path

import pytest

import vgau_data.puzzles
from tests.families import SHIPPED
from tests.toy_family import EXTRA
from vgau_data.errors import UnknownFamilyError
from vgau_data.puzzles.base import CAPABILITIES
from vgau_data.registry import FAMILIES, get_family

PUZZLES = Path(vgau_data.puzzles.__file__).parent


def test_registry__holds_every_family_package_once_under_its_own_name() -> None:
    packages = [path.name for path in sorted(PUZZLES.iterdir()) if (path / "__init__.py").is_file()]
    specs = {name: importlib.import_module(f"vgau_data.puzzles.{name}").SPEC for name in packages}
    assert all(spec.name == name for name, spec in specs.items())
    assert {name: spec for name, spec in FAMILIES.items() if name in SHIPPED} == specs


def test_registry__the_suite_runs_with_the_bare_toy_family_registered() -> None:
    """``tests/conftest.py`` registers it, so every registry-wide test meets a family with no optional capability."""
    toy = FAMILIES["lights"]
    assert set(FAMILIES) - set(SHIPPED) == {"lights", *EXTRA}  # EXTRA: VGAU_TEST_EXTRA_FAMILY's, none by default
    assert all(getattr(toy, group) is None for group in CAPABILITIES)


def test_registry__lookup_is_case_insensitive_and_unknown_names_list_choices() -> None:
    name = next(iter(FAMILIES))
    assert get_family(f" {name.upper()} ").name == name
    with pytest.raises(UnknownFamilyError, match=f"choose from {', '.join(FAMILIES)}$"):
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
