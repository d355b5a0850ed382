"""``unified_edit`` parquet as ThinkMorph's BAGEL fork reads it for interleaved reasoning.

One row per trace: ``instruction_list`` ``[question]`` (the kind's ``drawn_question`` when it
has one: the model draws the boards), ``image_list`` the input board then
the board after each step (PNG bytes), ``output_text_list`` what the model says before
each later image and, last, the answer: ThinkMorph's ``UnifiedEditIterableDataset`` feeds
image 0 and the instruction as input, then each output text (trained) followed by the next
image (generated, trained), in ThinkMorph's own markup:
``<think>...</think><image_start>``, ``<image_end><think>...</think><image_start>``, ...,
``<image_end><answer>...</answer>``. A text-only trace gives one output,
``<think>reasoning</think><answer>...</answer>``. Image 0 is the question's last image (the
oracle aid for Aug-VCoT, whose later boards are annotated too): the loader takes one.
Shards hold 500 rows in row groups of 100, as BAGEL's loader reads one row group at a
time, and ``parquet_info/<family>_<split>.json`` maps each shard's absolute path to its
row groups and rows (its ``parquet_info_path``); move the folder and the paths must follow.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from vgau_data.training.exporters.base import Exporter, ExportOptions, Shard
from vgau_data.training.exporters.files import write_json
from vgau_data.training.exporters.source import SourceRow, metadata_features
from vgau_data.training.exporters.views import chain, drawing_question


def output_texts(links: Sequence[Any], answer: str) -> list[str]:
    """ThinkMorph's outputs: one per image after the input, then the answer (see the module docstring).

    Example:
        >>> from vgau_data.training.exporters.views import Link
        >>> output_texts([Link("up", 1), Link("left", 2)], "<ANSWER_JSON>[...]</ANSWER_JSON>")
        ['<think>up</think><image_start>', '<image_end><think>left</think><image_start>', '<image_end><answer><ANSWER_JSON>[...]</ANSWER_JSON></answer>']
    """
    outputs: list[str] = []
    pending: list[str] = []
    for link in links:
        if link.text:
            pending.append(link.text)
        if link.image is not None:
            thought = "\n".join(pending)
            outputs.append(("<image_end>" if outputs else "") + f"<think>{thought}</think><image_start>")
            pending = []
    thought = "<think>" + "\n".join(pending) + "</think>" if pending else ""
    return [*outputs, ("<image_end>" if outputs else "") + f"{thought}<answer>{answer}</answer>"]


class UnifiedEditExporter(Exporter):
    name = "unified_edit"
    summary = "BAGEL/ThinkMorph unified_edit parquet: instruction_list, image_list, output_text_list, parquet_info"
    consumer = (
        "ThinkMorph data/dataset_info.py: 'unified_edit': {'vgau': {'data_dir': 'OUT/<family>/<split>', "
        "'parquet_info_path': 'OUT/parquet_info/<family>_<split>.json', ...}}"
    )
    default_traces = "visual_cot"
    shard_rows = 500
    row_group_rows = 100

    def features(self, options: ExportOptions) -> Any:
        from datasets import Features, List, Value

        return Features(
            {
                "instruction_list": List(Value("string")),
                "image_list": List(Value("binary")),
                "output_text_list": List(Value("string")),
                **metadata_features(options.render_styles),
            }
        )

    def convert(self, row: SourceRow, index: int, options: ExportOptions) -> Iterator[Mapping[str, Any]]:
        messages, pngs = row.trace(options.traces or "")
        view = chain(row.spec, messages)
        later = [link.image for link in view.links if link.image is not None]
        yield {
            "instruction_list": [drawing_question(row, view, options.traces or "")],
            "image_list": [pngs[view.question_images[-1]], *(pngs[i] for i in later)],
            "output_text_list": output_texts(view.links, view.answer),
            **row.metadata(options.render_styles),
        }

    def finish(self, out: Path, shards: Sequence[Shard], options: ExportOptions) -> None:
        import pyarrow.parquet as pq

        info: dict[str, dict[str, Any]] = {}
        for shard in shards:
            meta = pq.read_metadata(shard.path)
            entry = {"num_row_groups": meta.num_row_groups, "num_rows": meta.num_rows}
            info.setdefault(f"{shard.family}_{shard.split}", {})[str(shard.path.resolve())] = entry
        for name, files in info.items():
            write_json(out / "parquet_info" / f"{name}.json", files)
        super().finish(out, shards, options)


EXPORTER = UnifiedEditExporter()
