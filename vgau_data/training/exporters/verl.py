"""verl RL parquet rows (its multimodal layout, as in its geo3k example), one per source row.

``data_source`` is ``vgau/<family>``, ``prompt`` one user message whose ``<image>`` tags
stand where the protocol's images go (``RLHFDataset`` splits the content on them and
checks their count against ``images``), ``images`` a list of ``{"bytes": png}``,
``ability`` ``visual_planning``, ``reward_model`` ``{"style": "rule", "ground_truth":
<state JSON>}`` and ``extra_info`` ``{family, id, split, optimal_length, band, protocol,
index}`` (and ``render_style`` in an export of styled rows, ``SourceRow.style_metadata``): all that ``vgau_data.rewards.verl.compute_score`` reads to replay a response on
the row's own state. The prompt is the first message of the chosen single-turn protocol
(``--protocol``, default ``text_cot``), built by the protocol drivers the benchmark runs.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from vgau_data.training.exporters.base import Exporter, ExportOptions
from vgau_data.training.exporters.source import SourceRow, style_features
from vgau_data.training.exporters.views import protocol_prompt


class VerlExporter(Exporter):
    name = "verl"
    summary = "verl RL parquet: data_source, prompt with <image>, images, ability, reward_model, extra_info"
    consumer = (
        "python -m verl.trainer.main_ppo data.train_files=[OUT/<family>/<split>/<shard>.parquet] "
        "data.image_key=images reward.custom_reward_function.path=... ..."
    )
    default_traces = None

    def features(self, options: ExportOptions) -> Any:
        from datasets import Features, List, Value

        return Features(
            {
                "data_source": Value("string"),
                "prompt": List({"role": Value("string"), "content": Value("string")}),
                "images": List({"bytes": Value("binary")}),
                "ability": Value("string"),
                "reward_model": {"style": Value("string"), "ground_truth": Value("string")},
                "extra_info": {
                    "family": Value("string"),
                    "id": Value("string"),
                    "split": Value("string"),
                    "optimal_length": Value("int32"),
                    "band": Value("string"),
                    "protocol": Value("string"),
                    "index": Value("int64"),
                    **style_features(options.render_styles),
                },
            }
        )

    def convert(self, row: SourceRow, index: int, options: ExportOptions) -> Iterator[Mapping[str, Any]]:
        pngs, content = protocol_prompt(row, options.protocol)
        yield {
            "data_source": f"vgau/{row.family}",
            "prompt": [{"role": "user", "content": content}],
            "images": [{"bytes": png} for png in pngs],
            "ability": "visual_planning",
            "reward_model": {"style": "rule", "ground_truth": row.state},
            "extra_info": {
                "family": row.family,
                "id": row.id,
                "split": row.split,
                "optimal_length": row.optimal_length,
                "band": row.band,
                "protocol": options.protocol,
                "index": index,
                **row.style_metadata(options.render_styles),
            },
        }


EXPORTER = VerlExporter()
