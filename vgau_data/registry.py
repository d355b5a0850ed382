"""The one registry of puzzle families, in table order: one line per family package."""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

from vgau_data.errors import UnknownFamilyError
from vgau_data.puzzles import klotski, maze, onet, parking, path, sokoban
from vgau_data.puzzles.base import FamilySpec

_FAMILIES: dict[str, FamilySpec] = {
    package.SPEC.name: package.SPEC for package in (maze, sokoban, path, onet, parking, klotski)
}
FAMILIES: Mapping[str, FamilySpec] = MappingProxyType(_FAMILIES)
"""Every family by name (a read-only view of ``_FAMILIES``)."""


def get_family(name: str) -> FamilySpec:
    """The family called ``name`` (case-insensitive).

    Example:
        >>> get_family("Maze").name
        'maze'
    """
    try:
        return FAMILIES[name.strip().lower()]
    except KeyError:
        raise UnknownFamilyError(f"unknown family {name!r}; choose from {', '.join(FAMILIES)}") from None
