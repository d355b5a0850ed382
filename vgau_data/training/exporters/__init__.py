"""The one registry of training exporters: ``--format`` name -> exporter.

Each module writes one trainer's format from the same rows and canonical trace records
(``base.Exporter``); ``base.export_training`` runs any of them over a folder of training
shards or the benchmark folder.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

from vgau_data.training.exporters import bagel_think, llamafactory, mvot, openrlhf, trl, unified_edit, verl
from vgau_data.training.exporters.base import Exporter, ExportError, export_training

EXPORTERS: Mapping[str, Exporter] = MappingProxyType(
    {
        module.EXPORTER.name: module.EXPORTER
        for module in (trl, llamafactory, verl, openrlhf, bagel_think, unified_edit, mvot)
    }
)

__all__ = ["EXPORTERS", "ExportError", "Exporter", "export_training", "get_exporter"]


def get_exporter(name: str) -> Exporter:
    """The exporter of ``--format name``.

    Example:
        >>> get_exporter("verl").suffix
        '.parquet'
    """
    try:
        return EXPORTERS[name]
    except KeyError:
        raise ExportError(f"unknown export format {name!r}; choose from {', '.join(EXPORTERS)}") from None
