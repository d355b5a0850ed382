"""Score a VLMEvalKit prediction file of the VGAU datasets with our replay scorer.

The file holds the exported TSV's columns minus ``image`` plus ``prediction``, so each row
carries its own reference (``id``, ``task``, ``category`` = difficulty, ``optimal_length``,
``state``). ``evaluate_predictions`` is what the shipped dataset class's ``evaluate`` calls,
``primary_metrics`` what its ``report_primary_metric`` returns; ``$VGAU_READER`` picks the
answer reader (``vgau_data.readers``, default ``ours``).
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from vgau_data import safe_io
from vgau_data.errors import SubmissionError
from vgau_data.integrations.convert import XLSX_CELL_LIMIT, read_prediction_table
from vgau_data.metrics.scoring import Verdict, aggregate, read_reference, score_answer
from vgau_data.puzzles.base import DIFFICULTIES
from vgau_data.readers import env_reader

logger = logging.getLogger(__name__)

REFERENCE_COLUMNS: tuple[str, ...] = ("id", "task", "category", "optimal_length", "state", "prediction")
HEADLINE: tuple[str, ...] = ("optimal_accuracy", "feasible_accuracy")
"""The numbers VLMEvalKit's run summary leads with, in the paper's Table 1 order."""


def score_prediction_rows(
    rows: list[dict[str, Any]], where: str = "predictions", reader: str | None = None
) -> list[Verdict]:
    """One verdict per row of a prediction table, read by ``reader`` (default ``$VGAU_READER``)."""
    reader = reader or env_reader()
    if rows and (missing := [c for c in REFERENCE_COLUMNS if c not in rows[0]]):
        raise SubmissionError(f"{where}: lacks the columns {missing}; was it made from `vgau-data export vlmevalkit` TSVs?")
    verdicts = []
    for number, row in enumerate(rows, start=2):
        try:
            length = int(row["optimal_length"])
        except (TypeError, ValueError):
            raise SubmissionError(f"{where} row {number}: optimal_length {row['optimal_length']!r:.20} is not an integer") from None
        reference = read_reference({"id": str(row["id"]), "task": str(row["task"]), "difficulty": str(row["category"]),
                                    "optimal_length": length, "state": str(row["state"])})
        prediction = row["prediction"]
        if isinstance(prediction, str) and len(prediction) == XLSX_CELL_LIMIT:
            logger.warning("%s row %d (%s): prediction cut at Excel's %d-character limit?", where, number, reference.id,
                           XLSX_CELL_LIMIT)
        verdicts.append(score_answer(None if prediction is None else str(prediction), reference, reader))
    return verdicts


def accuracy_rows(verdicts: list[Verdict]) -> list[dict[str, Any]]:
    """Table rows: each family x difficulty, each family, then overall (VLMEvalKit prints them)."""
    summary = aggregate(verdicts)
    rows = []

    def row(split: str, rates: dict[str, Any]) -> dict[str, Any]:
        keys = ("n", "optimal_accuracy", "feasible_accuracy", "parse_rate")
        return {"split": split, **{key: rates[key] for key in keys}}

    for family, per_level in summary["per_family_difficulty"].items():
        for level in DIFFICULTIES:
            if level in per_level:
                rows.append(row(f"{family}/{level}", per_level[level]))
        rows.append(row(family, summary["per_family"][family]))
    rows.append(row("overall", summary))
    return rows


def evaluate_predictions(eval_file: str | Path) -> Any:
    """Score ``eval_file``; write ``<stem>_acc.csv`` beside it and return the table as a DataFrame."""
    import pandas as pd

    path = Path(eval_file)
    table = pd.DataFrame(accuracy_rows(score_prediction_rows(read_prediction_table(path), str(path))))
    with safe_io.atomic_text_writer(path.with_name(f"{path.stem}_acc.csv")) as handle:
        table.to_csv(handle, index=False)
    return table


def primary_metrics(metrics: Mapping[str, Any] | None) -> dict[str, float]:
    """What the dataset class reports to VLMEvalKit's run summary: overall optimal, then feasible accuracy.

    ``metrics`` is VLMEvalKit's flattening of the ``evaluate`` table (``split=<row>|<column>``
    keys). Left to itself VLMEvalKit picks the alphabetically first key containing
    "overall", which is ``split=overall|feasible_accuracy``. Empty when the keys are absent.

    Example:
        >>> primary_metrics({"split=overall|feasible_accuracy": 0.5, "split=overall|optimal_accuracy": 0.25})
        {'split=overall|optimal_accuracy': 0.25, 'split=overall|feasible_accuracy': 0.5}
    """
    keys = [f"split=overall|{name}" for name in HEADLINE]
    if not isinstance(metrics, Mapping) or not all(isinstance(metrics.get(key), (int, float)) for key in keys):
        return {}
    return {key: float(metrics[key]) for key in keys}
