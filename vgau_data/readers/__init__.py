"""The registry of answer readers: how raw model text is read, and where interactive episodes end.

``ours`` (the default) follows the paper's text; ``authors`` reproduces the authors'
released code, so a model's numbers can be put beside the paper's tables read the same
way. ``docs/readers.md`` lists every difference. A reader is chosen with
``score_answer(..., reader=)``, ``vgau-data score --reader``, ``vgau-data run --reader``
(a run's variants then carry the reader's name: ``oracle_vcot_authors``) and the
``VGAU_READER`` variable of the harness integrations.

Example:
    >>> reader_names()
    ['ours', 'authors']
    >>> reader_of_variant("oracle_vcot_fixed_authors"), reader_of_variant("oracle_vcot")
    ('authors', 'ours')
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from types import MappingProxyType

from vgau_data.readers import authors, ours
from vgau_data.readers.base import EpisodeRules, Reader, ReaderError, Reading

__all__ = [
    "DEFAULT_READER",
    "READERS",
    "READER_ENV",
    "EpisodeRules",
    "Reader",
    "ReaderError",
    "Reading",
    "env_reader",
    "get_reader",
    "reader_names",
    "reader_of_variant",
]

READERS: Mapping[str, Reader] = MappingProxyType({reader.name: reader for reader in (ours.READER, authors.READER)})
DEFAULT_READER = "ours"
READER_ENV = "VGAU_READER"
"""The environment variable the lmms-eval tasks and the VLMEvalKit dataset read the reader from."""


def reader_names() -> list[str]:
    return list(READERS)


def get_reader(name: str) -> Reader:
    """The reader called ``name``."""
    try:
        return READERS[name]
    except (KeyError, TypeError):
        raise ReaderError(f"unknown reader {name!r}; choose from {', '.join(READERS)}") from None


def reader_of_variant(variant: str) -> str:
    """The reader whose episodes a protocol variant holds: its ``_<reader>`` suffix, else the default."""
    for name in READERS:
        if name != DEFAULT_READER and variant.endswith(f"_{name}"):
            return name
    return DEFAULT_READER


def env_reader() -> str:
    """``$VGAU_READER`` when set (checked), else the default reader."""
    name = os.environ.get(READER_ENV, "").strip() or DEFAULT_READER
    get_reader(name)
    return name
