"""Each family's own test values, found by name, so registry-wide tests need no table of family names.

A family keeps them in ``tests/puzzles/<family>/golden.py``:

    GOLDEN_STATE   a fixed board, for the golden key values (``tests/training/test_keys.py``)
    GOLDEN_KEYS    (canonical key, exact key, optimum) of GOLDEN_STATE: a change here changes
                   every shipped test key
    FIXED_STATE    a short puzzle (optimum 3 or 4) as state JSON, for the trace and export tests
    AID_AUTHORS    (line RGB, line px, dash, label px / cell px, anchor, labelled cells) of the
                   authors' ``_build_aux_overlay`` (``tests/test_oracle_aids.py``)
A registry-wide test reads one through ``family_value``,
which skips the test, saying so, for a family that keeps none (a new family, or the bare toy
family the whole suite registers, ``tests/toy_family``), and builds ``{family: value}`` tables
with ``family_table``.

After a deliberate change to a generator, a solver or the keys, print a family's values
again and paste them into its ``golden.py``::

    python -m tests.families maze parking
    VGAU_TEST_EXTRA_FAMILY=tests.eight_puzzle python -m tests.families eight_puzzle   # a family the tests register
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from types import ModuleType
from typing import Any

import pytest

from tests.toy_family import register_extra
from vgau_data.puzzles.base import FamilySpec
from vgau_data.registry import FAMILIES

SHIPPED = [name for name, spec in FAMILIES.items() if spec.generate.__module__.startswith("vgau_data.")]
"""The families the package registers (``vgau_data/registry.py``), which its shipped per-family data covers;
not those a test registers (the toy family)."""

PAPER_FAMILIES = [name for name in SHIPPED if FAMILIES[name].paper is not None]
"""The benchmark's families, those of the package whose records the paper's authors published (``paper``): what
tests that hold the paper's tables, or fixtures recorded once per family, must cover at least. A family a test
registers (``VGAU_TEST_EXTRA_FAMILY``) may declare ``paper`` too; those tests skip it, saying so, where it has
no recorded fixture."""


def family_module(family: str) -> ModuleType | None:
    """``tests/puzzles/<family>/golden.py``, or None when the family keeps no test values there."""
    try:
        return importlib.import_module(f"tests.puzzles.{family}.golden")
    except ModuleNotFoundError as error:
        if error.name not in (f"tests.puzzles.{family}", f"tests.puzzles.{family}.golden"):
            raise
        return None


def family_table(attribute: str) -> dict[str, Any]:
    """``{family: value}`` of every registered family whose ``golden.py`` defines ``attribute``, in registry order."""
    modules = {name: family_module(name) for name in FAMILIES}
    return {name: getattr(module, attribute) for name, module in modules.items() if hasattr(module, attribute)}


def family_value(family: str, attribute: str) -> Any:
    """The family's ``attribute``; the calling test is skipped when the family keeps none."""
    module = family_module(family)
    if module is None or not hasattr(module, attribute):
        pytest.skip(f"{family} keeps no {attribute} (tests/puzzles/{family}/golden.py)")
    return getattr(module, attribute)


def needs(family: str, capability: str) -> Any:
    """The family's capability group; the calling test is skipped when the family declares none."""
    group = getattr(FAMILIES[family], capability)
    if group is None:
        pytest.skip(f"{family} declares no {capability} capability")
    return group


def plays(spec: FamilySpec, protocol: str) -> bool:
    """Whether the scripted oracle plays ``protocol`` on ``spec``: the capabilities the protocol needs, and those the
    scripted oracle's drawing needs where the protocol draws (self-VR's drawing needs ``vr``); ``run`` refuses the rest."""
    from vgau_data.runners.backends.base import family_needs
    from vgau_data.runners.backends.scripted_images import ScriptedImageGenerator
    from vgau_data.runners.protocols import protocol_class

    cls = protocol_class(protocol)
    drawer = family_needs(ScriptedImageGenerator("oracle"), cls.purpose) if cls.draws else ()
    return all(getattr(spec, need) for need in (*cls.needs, *drawer))


def golden_keys(family: str) -> tuple[str, str, int]:
    """``GOLDEN_KEYS`` computed afresh from the family's ``GOLDEN_STATE``."""
    from vgau_data.training.keys import canonical_key, exact_key, key_hex

    state = family_value(family, "GOLDEN_STATE")
    return key_hex(canonical_key(family, state)), key_hex(exact_key(family, state)), FAMILIES[family].solve(state).optimal_length


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.families", description="Print families' GOLDEN_KEYS afresh.")
    parser.add_argument("families", nargs="*", default=None, help="default: every family that keeps a GOLDEN_STATE")
    args = parser.parse_args(argv)
    register_extra(os.environ.get("VGAU_TEST_EXTRA_FAMILY", ""))  # a family not yet in the registry, as the tests do
    for family in args.families or family_table("GOLDEN_STATE"):
        print(f"{family}: GOLDEN_KEYS = {golden_keys(family)!r}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
