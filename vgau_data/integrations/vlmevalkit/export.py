"""Write a built dataset as VLMEvalKit TSV files, one per family and single-turn protocol.

Columns: ``index`` (0-based position in the family), ``image`` (base64 PNG; for
``oracle_gta`` a JSON list of two, board then aid, which VLMEvalKit reads as a list),
``question`` (the protocol's prompt text, from the package's episode drivers), ``answer``
(one optimal answer, for reading only: scoring replays), ``category`` (the difficulty),
``id``, ``task``, plus ``optimal_length`` and ``state``, so the prediction file that
VLMEvalKit writes (these columns minus ``image``, plus ``prediction``) can be scored on
its own.
"""

from __future__ import annotations

import base64
import csv
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from vgau_data import safe_io
from vgau_data.errors import VgauError
from vgau_data.registry import get_family

SINGLE_TURN: tuple[str, ...] = ("direct", "text_cot", "oracle_gta")
COLUMNS: tuple[str, ...] = ("index", "image", "question", "answer", "category", "id", "task", "optimal_length", "state")


class ExportError(VgauError, ValueError):
    """An export request VLMEvalKit cannot run (an interactive protocol)."""


def dataset_name(family: str, protocol: str) -> str:
    """VLMEvalKit's name for one family under one protocol (also the TSV's file stem).

    Example:
        >>> dataset_name("maze", "text_cot")
        'VGAU_maze_text_cot'
    """
    return f"VGAU_{family}_{protocol}"


def _png_base64(image: Any) -> str:
    from vgau_data.rendering import png_bytes

    return base64.b64encode(png_bytes(image)).decode("ascii")


def export_tsvs(
    dataset: str,
    out_dir: str | Path,
    *,
    families: Sequence[str] | None = None,
    protocols: Sequence[str] = SINGLE_TURN,
) -> list[Path]:
    """Write ``<out_dir>/VGAU_<family>_<protocol>.tsv`` for a built folder or Hub repo id."""
    from vgau_data.builders.load import read_config_columns
    from vgau_data.integrations.prompts import first_message
    from vgau_data.runners.instances import INSTANCE_COLUMNS, resolve_dataset

    unknown = [p for p in protocols if p not in SINGLE_TURN]
    if unknown:
        raise ExportError(f"VLMEvalKit runs single-turn protocols only ({', '.join(SINGLE_TURN)}), not {unknown}")
    source = resolve_dataset(dataset)
    wanted = [get_family(f).name for f in families] if families else source.families
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for family in wanted:
        rows = read_config_columns(source.local_dir, family, (*INSTANCE_COLUMNS, "solution"))
        for protocol in protocols:
            path = out / f"{dataset_name(family, protocol)}.tsv"
            with safe_io.atomic_text_writer(path) as handle:
                writer = csv.writer(handle, delimiter="\t", lineterminator="\n")
                writer.writerow(COLUMNS)
                for index, row in enumerate(rows):
                    images, question = first_message(row, protocol)
                    encoded = [_png_base64(image) for image in images]
                    writer.writerow([
                        index, encoded[0] if len(encoded) == 1 else json.dumps(encoded), question, row["solution"],
                        row["difficulty"], row["id"], row["task"], row["optimal_length"], row["state"],
                    ])
            written.append(path)
    return written
