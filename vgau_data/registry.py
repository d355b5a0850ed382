"""The one registry of puzzle families, in SPEC order."""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

from vgau_data.errors import UnknownFamilyError
from vgau_data.puzzles import klotski, maze, onet, parking, path, sokoban
from vgau_data.puzzles.base import FamilySpec

FAMILIES: Mapping[str, FamilySpec] = MappingProxyType(
    {module.SPEC.name: module.SPEC for module in (maze, sokoban, path, onet, parking, klotski)}
)


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
