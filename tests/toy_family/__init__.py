"""A toy seventh family (``lights``, 3x3 Lights Out) that ships with the tests only.

The whole suite runs with it registered bare (``register_bare``: no optional capability),
so every registry-wide test meets a family that lacks each capability and whose tables of
golden values nothing outside its own package holds. ``test_lights.py`` registers it with
its capabilities for its own duration and drives every command through it.
"""

from __future__ import annotations

import dataclasses
import importlib

from vgau_data import registry
from vgau_data.puzzles.base import CAPABILITIES, FamilySpec


def bare_spec() -> FamilySpec:
    """The toy family with every optional capability removed."""
    from tests.toy_family import lights

    return dataclasses.replace(lights.SPEC, **dict.fromkeys(CAPABILITIES))


def unshipped_spec() -> FamilySpec:
    """The bare toy under a name no shipped data holds: a new family before its data is regenerated."""
    return dataclasses.replace(bare_spec(), name="unshipped")


def register_bare() -> None:
    """Register the bare toy family in the registry for the whole test session."""
    spec = bare_spec()
    registry._FAMILIES.setdefault(spec.name, spec)


EXTRA: list[str] = []
"""The families ``register_extra`` registered in this process (``VGAU_TEST_EXTRA_FAMILY``)."""


def register_extra(packages: str) -> None:
    """Register the family packages named in ``packages`` (comma-separated, e.g. ``tests.eight_puzzle``) for
    the whole test session, after the package's own; a name the registry already has is refused."""
    for package in filter(None, (name.strip() for name in packages.split(","))):
        spec = importlib.import_module(package).SPEC
        if spec.name in registry._FAMILIES:
            raise ValueError(f"VGAU_TEST_EXTRA_FAMILY: {package} is family {spec.name!r}, which is already registered")
        registry._FAMILIES[spec.name] = spec
        EXTRA.append(spec.name)
