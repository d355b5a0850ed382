"""MVoT-style per-step rows: input text and images -> a label, the next board or the next step.

MVoT (Li et al. 2025) trains an interleaved model on two tasks per step, and its maze
loader writes them as rows of ``input_text`` (``<image>`` where each input image goes),
``input_imgs``, ``label_text`` and ``label_imgs``: ``single_step_visualization`` takes the
initial board, the board before a step and the steps so far, and labels the board after
the step (``label_text`` ``<image>``); ``action_reasoning`` takes the initial and the current
board and labels the next step's text, or the final answer once the goal is reached.
The question is the kind's ``drawn_question`` when it has one (the model draws the boards).
A trace of ``n`` steps gives ``2n + 1`` rows; it needs a board after each step
(``visual_cot``, ``aug_visual_cot``, ``exploratory``). Each row also carries ``task``
(``vgau_<family>``), the source row's ``id``, the ``step`` and, in an export of styled rows,
``render_style`` (``SourceRow.style_metadata``).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from vgau_data.training.exporters.base import Exporter, ExportError, ExportOptions
from vgau_data.training.exporters.source import SourceRow, style_features
from vgau_data.training.exporters.views import IMAGE_TAG, chain, drawing_question

VISUALIZATION = "single_step_visualization"
REASONING = "action_reasoning"


class MvotExporter(Exporter):
    name = "mvot"
    summary = "MVoT per-step rows: input_text/input_imgs -> label_imgs (next board) or label_text (next step)"
    consumer = (
        'datasets.load_dataset(OUT, "<family>", split="train") rows of input_text, input_imgs, label_text, label_imgs'
    )
    default_traces = "visual_cot"
    shard_rows = 200

    def features(self, options: ExportOptions) -> Any:
        from datasets import Features, Image, List, Value

        return Features(
            {
                "idx": Value("int64"),
                "input_text": Value("string"),
                "input_imgs": List(Image()),
                "label_text": Value("string"),
                "label_imgs": List(Image()),
                "task": Value("string"),
                "train_task": Value("string"),
                "id": Value("string"),
                "step": Value("int32"),
                **style_features(options.render_styles),
            }
        )

    def convert(self, row: SourceRow, index: int, options: ExportOptions) -> Iterator[Mapping[str, Any]]:
        messages, pngs = row.trace(options.traces or "")
        view = chain(row.spec, messages)
        links = [link for link in view.links if link.image is not None]
        if len(links) != len(view.links):
            raise ExportError(f"--format mvot needs a board after every step; trace {options.traces!r} has none")

        def image(i: int) -> dict[str, Any]:
            return {"bytes": pngs[i], "path": None}

        def common(step: int) -> dict[str, Any]:
            style = row.style_metadata(options.render_styles)
            return {"task": f"vgau_{row.family}", "id": row.id, "step": step, **style}

        start = view.question_images[-1]
        header = f"{drawing_question(row, view, options.traces or '')}\nInitial board: {IMAGE_TAG}\n"
        for step, link in enumerate(links):
            history = "".join(f"{done.text}\n" for done in links[:step])
            before = [image(links[step - 1].image)] if step else []  # type: ignore[arg-type]
            seen = f"Current board: {IMAGE_TAG}\n" if step else ""
            tags = common(step + 1)
            yield {
                "idx": 2 * step, "input_text": f"{header}{history}{seen}{link.text}", "input_imgs": [image(start), *before],
                "label_text": IMAGE_TAG, "label_imgs": [image(link.image)], "train_task": VISUALIZATION, **tags,  # type: ignore[arg-type]
            }  # fmt: skip
            yield {
                "idx": 2 * step + 1, "input_text": f"{header}{history}{seen}", "input_imgs": [image(start), *before],
                "label_text": link.text, "label_imgs": [], "train_task": REASONING, **tags,
            }  # fmt: skip
        history = "".join(f"{done.text}\n" for done in links)
        yield {
            "idx": 2 * len(links), "input_text": f"{header}{history}Current board: {IMAGE_TAG}\n",
            "input_imgs": [image(start), image(links[-1].image)], "label_text": view.answer, "label_imgs": [],  # type: ignore[arg-type]
            "train_task": REASONING, **common(len(links) + 1),
        }  # fmt: skip


EXPORTER = MvotExporter()
