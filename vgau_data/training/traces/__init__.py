"""The one registry of trace kinds: how a row's solver trace becomes a supervised record.

A trace kind is an object with a ``name`` and two methods:

``columns(spec, state, answer, rng) -> dict``
    ``{f"trace_{name}": <JSON string of the canonical record>, f"trace_{name}_images": [<PNG bytes>, ...]}``
    for one row: ``spec`` its family, ``state`` the parsed initial state, ``answer`` an
    optimal answer (the row's ``solution``), ``rng`` a numpy Generator derived from the
    row's seed (``trace_rng``), so the same row always gets the same bytes.
``features() -> dict``
    the ``datasets`` features of those two columns.

The canonical record is
``{"messages": [{"role": "user"|"assistant", "content": [{"type": "text", "text": str} | {"type": "image", "index": int}]}]}``
where ``index`` points into the ``_images`` list. Exporters read nothing else, so every
kind exports to every format.
"""

from __future__ import annotations

import zlib
from collections.abc import Mapping
from types import MappingProxyType

import numpy as np

from vgau_data.errors import VgauError
from vgau_data.training.traces import aug_visual_cot, exploratory, solver, text_cot, visual_cot
from vgau_data.training.traces.record import TraceKind

TRACE_KINDS: Mapping[str, TraceKind] = MappingProxyType(
    {module.KIND.name: module.KIND for module in (solver, text_cot, visual_cot, aug_visual_cot, exploratory)}
)


class UnknownTraceKindError(VgauError, LookupError):
    """A trace kind that is not in the registry."""


def get_trace_kind(name: str) -> TraceKind:
    """The trace kind called ``name``.

    Example:
        >>> get_trace_kind("visual_cot").name
        'visual_cot'
    """
    try:
        return TRACE_KINDS[name]
    except KeyError:
        raise UnknownTraceKindError(f"unknown trace kind {name!r}; choose from {', '.join(TRACE_KINDS)}") from None


def trace_rng(seed: int, kind: str) -> np.random.Generator:
    """The generator a kind's ``columns`` gets for a row's ``seed``: the same row, the same trace.

    Example:
        >>> int(trace_rng(7, "exploratory").integers(1 << 30)) == int(trace_rng(7, "exploratory").integers(1 << 30))
        True
    """
    return np.random.default_rng(np.random.SeedSequence([int(seed), zlib.crc32(kind.encode("utf-8"))]))
