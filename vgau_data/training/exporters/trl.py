"""TRL conversational prompt-completion rows (``SFTTrainer``; the extra columns reach GRPO reward functions).

One output row per assistant reply of a trace: ``prompt`` is every message before it,
``completion`` the reply alone, ``images`` the images of the prompt in the order their
``{"type": "image"}`` placeholders appear, as TRL 1.x's vision collator fills them
(``trl.data_utils.prepare_multimodal_messages``: images go to the prompt only, and a
completion must be text). A multi-turn VCoT trace of ``n`` steps gives ``n`` rows, each
with the whole conversation so far, as the evaluation protocol sends it; with
``completion_only_loss`` (TRL's default for prompt-completion data) each step is learned
once. ``id``, ``family``, ``split``, ``band``, ``optimal_length``, ``state`` (and
``render_style`` in an export of styled rows), ``trace`` and ``turn`` ride along (TRL passes
every extra column to reward functions as a keyword).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from vgau_data.training.exporters.base import Exporter, ExportOptions
from vgau_data.training.exporters.source import SourceRow, metadata_features
from vgau_data.training.exporters.views import images, texts
from vgau_data.training.traces.record import TraceError


def _message(message: Mapping[str, Any]) -> dict[str, Any]:
    content = [
        {"type": "image", "text": None} if part["type"] == "image" else {"type": "text", "text": part["text"]}
        for part in message["content"]
    ]
    return {"role": message["role"], "content": content}


class TrlExporter(Exporter):
    name = "trl"
    summary = "TRL conversational prompt/completion rows with images, one per assistant reply"
    consumer = 'datasets.load_dataset(OUT, "<family>", split="train") -> trl.SFTTrainer(train_dataset=...)'
    default_traces = "text_cot"
    shard_rows = 200

    def features(self, options: ExportOptions) -> Any:
        from datasets import Features, Image, List, Value

        content = List({"type": Value("string"), "text": Value("string")})
        messages = List({"role": Value("string"), "content": content})
        return Features(
            {
                "prompt": messages,
                "completion": messages,
                "images": List(Image()),
                **metadata_features(options.render_styles),
                "trace": Value("string"),
                "turn": Value("int32"),
            }
        )

    def convert(self, row: SourceRow, index: int, options: ExportOptions) -> Iterator[Mapping[str, Any]]:
        messages, pngs = row.trace(options.traces or "")
        turn = 0
        for position, message in enumerate(messages):
            if message["role"] != "assistant":
                continue
            if images(message):
                raise TraceError("TRL completions are text: an assistant message of this trace holds an image")
            prompt = messages[:position]
            yield {
                "prompt": [_message(m) for m in prompt],
                "completion": [{"role": "assistant", "content": [{"type": "text", "text": "\n".join(texts(message))}]}],
                "images": [{"bytes": pngs[i], "path": None} for m in prompt for i in images(m)],
                **row.metadata(options.render_styles),
                "trace": options.traces,
                "turn": turn,
            }
            turn += 1


EXPORTER = TrlExporter()
