"""OpenRLHF prompt JSONL (``--data.input_key prompt --data.label_key label --data.image_key images``).

One line per source row: ``prompt`` a one-message chat whose ``<image>`` tags OpenRLHF's
``PromptDataset`` turns into image parts (with ``--data.apply_chat_template``), ``label``
``{"ground_truth": state JSON, "family", "optimal_length"}`` as one JSON string (what its
``reward_func(queries, prompts, labels)`` receives: ``rewards.openrlhf.read_label`` takes
the optimum from it, so no reward call solves the state), ``images``
the protocol's images as PNG data URIs (``openrlhf.utils.vlm_utils.load_images`` decodes
them: the file needs no image folder beside it), ``datasource`` ``vgau/<family>``, and the
row's id, family, split, band, optimal length and protocol (and ``render_style`` in an
export of styled rows, ``SourceRow.style_metadata``). The prompt is the verl
exporter's: the chosen single-turn protocol's first message.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Iterator, Mapping
from typing import Any

from vgau_data.training.exporters.base import Exporter, ExportOptions, Shard
from vgau_data.training.exporters.files import JsonlWriter, ShardWriter
from vgau_data.training.exporters.source import SourceRow
from vgau_data.training.exporters.views import protocol_prompt


def data_uri(png: bytes) -> str:
    return "data:image/png;base64," + base64.b64encode(png).decode("ascii")


def openrlhf_label(row: SourceRow) -> str:
    """The row's state with its family and optimum, as the string OpenRLHF hands the reward."""
    truth = {"ground_truth": row.state, "family": row.family, "optimal_length": row.optimal_length}
    return json.dumps(truth, sort_keys=True, separators=(",", ":"))


class OpenRlhfExporter(Exporter):
    name = "openrlhf"
    summary = "OpenRLHF prompt JSONL: chat prompt with <image>, label = state JSON with its optimum, images as data URIs"
    consumer = (
        "python -m openrlhf.cli.train_ppo_ray --data.prompt_data OUT/<family>/train/<file>.jsonl "
        "--data.input_key prompt --data.label_key label --data.image_key images --data.apply_chat_template ..."
    )
    suffix = ".jsonl"
    default_traces = None

    def writer(self, shard: Shard, options: ExportOptions) -> ShardWriter:
        return JsonlWriter(shard.path)

    def convert(self, row: SourceRow, index: int, options: ExportOptions) -> Iterator[Mapping[str, Any]]:
        pngs, content = protocol_prompt(row, options.protocol)
        yield {
            "prompt": [{"role": "user", "content": content}],
            "label": openrlhf_label(row),
            "images": [data_uri(png) for png in pngs],
            "datasource": f"vgau/{row.family}",
            "id": row.id,
            "family": row.family,
            "split": row.split,
            "band": row.band,
            "optimal_length": row.optimal_length,
            "protocol": options.protocol,
            **row.style_metadata(options.render_styles),
        }


EXPORTER = OpenRlhfExporter()
