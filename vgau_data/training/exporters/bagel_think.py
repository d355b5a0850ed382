"""BAGEL think traces (the Zebra-CoT layout that Bagel-Zebra-CoT's ``ThinkTraceJSONLIterableDataset`` reads).

One JSONL line per trace: ``Question`` (``<image_start>[problem_image_k]<image_end>`` for
each image of the question, then its text: Self-VCoT's, the kind's ``drawn_question``,
since here the model draws the boards), ``Text Reasoning Trace`` (what the model says
at each point of the ``Chain`` view, each followed by
``<image_start>[reasoning_image_k]<image_end>`` for the board after it), ``Final Answer``
(the family's answer text), and one key per image slot holding the PNG's path relative to
the export folder: the loader joins it to its ``image_prefix_dir``. The loader trains on
the reasoning text and generates the reasoning images (loss on both); the question's
images are inputs only. The images of a shard sit in ``images/<shard>/`` beside it, put
in place before the shard itself.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from vgau_data.safe_io import atomic_folder
from vgau_data.training.exporters.base import Exporter, ExportOptions, Shard
from vgau_data.training.exporters.files import JsonlWriter, ShardWriter
from vgau_data.training.exporters.source import SourceRow
from vgau_data.training.exporters.views import chain, drawing_question
from vgau_data.training.traces.record import TraceError


def slot(name: str) -> str:
    """An image reference in the loader's syntax: ``<image_start>[problem_image_1]<image_end>``."""
    return f"<image_start>[{name}]<image_end>"


class ThinkTraceWriter(JsonlWriter):
    """A JSONL shard whose rows name image files; the files' folder is put in place before the shard."""

    def __init__(self, shard: Shard, root: Path) -> None:
        super().__init__(shard.path)
        folder = shard.path.parent / "images" / shard.path.stem
        self._images = self._open.enter_context(atomic_folder(folder))
        self._prefix = folder.relative_to(root).as_posix()

    def add(self, row: Mapping[str, Any]) -> None:
        line = dict(row["line"])
        for key, png in row["images"].items():
            name = f"{row['index']:08d}_{key}.png"
            (self._images / name).write_bytes(png)
            line[key] = f"{self._prefix}/{name}"
        super().add(line)


class BagelThinkExporter(Exporter):
    name = "bagel_think"
    summary = "BAGEL/Zebra-CoT think traces: Question, Text Reasoning Trace with image slots, Final Answer, PNG files"
    consumer = (
        "Bagel-Zebra-CoT data/dataset_info.py: 'think_trace': {'vgau': {'jsonl_path': 'OUT/<family>/<split>/<file>.jsonl', "
        "'image_prefix_dir': 'OUT', ...}}"
    )
    suffix = ".jsonl"
    default_traces = "visual_cot"

    def writer(self, shard: Shard, options: ExportOptions) -> ShardWriter:
        return ThinkTraceWriter(shard, shard.path.parents[2])

    def convert(self, row: SourceRow, index: int, options: ExportOptions) -> Iterator[Mapping[str, Any]]:
        messages, pngs = row.trace(options.traces or "")
        view = chain(row.spec, messages)
        files: dict[str, bytes] = {}
        question = []
        for k, image in enumerate(view.question_images, 1):
            files[f"problem_image_{k}"] = pngs[image]
            question.append(slot(f"problem_image_{k}"))
        pieces = []
        for link in view.links:
            if link.text:
                pieces.append(link.text)
            if link.image is not None:
                name = f"reasoning_image_{sum(key.startswith('reasoning') for key in files) + 1}"
                files[name] = pngs[link.image]
                pieces.append(slot(name))
        if not pieces:
            raise TraceError(f"row {row.id}: a think trace needs reasoning text or images; this trace has neither")
        line = {
            "Question": "\n".join([*question, drawing_question(row, view, options.traces or "")]),
            "Text Reasoning Trace": "\n".join(pieces),
            "Final Answer": view.answer,
            **row.metadata(options.render_styles),
        }
        yield {"line": line, "images": files, "index": index}


EXPORTER = BagelThinkExporter()
