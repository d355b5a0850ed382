"""LLaMA-Factory sharegpt rows (``formatting: sharegpt``), one multi-turn conversation per trace.

``conversations`` alternates ``human`` and ``gpt`` turns (LLaMA-Factory's converter
refuses anything else), each turn's images written as ``<image>`` where they were, and
``images`` holds the images in that order, so the tags equal the images in number (its
``mm_plugin`` checks). A trailing user turn (the board after a VCoT trace's last step)
asks for no reply and is dropped. LLaMA-Factory trains every ``gpt`` turn of a
conversation. The shards are Parquet with the images embedded (its loader reads Parquet
and its ``mm_plugin`` opens ``{"bytes": ...}`` images), and ``dataset_info.json`` names one
dataset per family and split, so ``dataset_dir`` is the export folder itself.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from vgau_data.training.exporters.base import Exporter, ExportOptions, Shard
from vgau_data.training.exporters.files import write_json
from vgau_data.training.exporters.source import SourceRow, metadata_features
from vgau_data.training.exporters.views import flat_text, images
from vgau_data.training.traces.record import TraceError

ROLE_TAGS = {"user": "human", "assistant": "gpt"}


def dataset_name(family: str, split: str) -> str:
    """The name ``dataset_info.json`` gives one family's split (``dataset: vgau_maze_train``)."""
    return f"vgau_{family}_{split}"


class LlamaFactoryExporter(Exporter):
    name = "llamafactory"
    summary = "LLaMA-Factory sharegpt conversations (<image> tags) with embedded images, plus dataset_info.json"
    consumer = "llamafactory-cli train ... --dataset_dir OUT --dataset vgau_<family>_<split>"
    default_traces = "text_cot"

    def features(self, options: ExportOptions) -> Any:
        from datasets import Features, Image, List, Value

        return Features(
            {
                "conversations": List({"from": Value("string"), "value": Value("string")}),
                "images": List(Image()),
                **metadata_features(options.render_styles),
            }
        )

    def convert(self, row: SourceRow, index: int, options: ExportOptions) -> Iterator[Mapping[str, Any]]:
        messages, pngs = row.trace(options.traces or "")
        while messages and messages[-1]["role"] == "user":
            messages = messages[:-1]
        for turn, message in enumerate(messages):
            if message["role"] != ("user", "assistant")[turn % 2]:
                raise TraceError("sharegpt conversations alternate user and assistant turns, starting with the user")
        yield {
            "conversations": [{"from": ROLE_TAGS[m["role"]], "value": flat_text(m)} for m in messages],
            "images": [{"bytes": pngs[i], "path": None} for m in messages for i in images(m)],
            **row.metadata(options.render_styles),
        }

    def finish(self, out: Path, shards: Sequence[Shard], options: ExportOptions) -> None:
        info = {
            dataset_name(shard.family, shard.split): {
                "file_name": f"{shard.family}/{shard.split}",
                "formatting": "sharegpt",
                "columns": {"messages": "conversations", "images": "images"},
                "tags": {"role_tag": "from", "content_tag": "value", "user_tag": "human", "assistant_tag": "gpt"},
            }
            for shard in shards
        }
        write_json(out / "dataset_info.json", info)
        super().finish(out, shards, options)


EXPORTER = LlamaFactoryExporter()
