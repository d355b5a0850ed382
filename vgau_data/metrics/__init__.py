"""Scoring: verdicts, aggregates, submissions, reference baselines, tables and the ``evaluate`` module.

Modules (each imports only what it needs; none imports torch or transformers):
    scoring      ``score_answer`` (raw text + reference -> ``Verdict``), ``aggregate``,
                 ``mean_over_runs``, ``score_batch``.
    references   the scoring columns of a built dataset folder or Hub repo, and its fingerprint.
    submission   the JSONL submission format, its reader, writer and checks.
    results      a whole submission -> the ``results.json`` structure.
    baselines    oracle / random / empty submissions made from the dataset alone.
    tables       paper-style plain-text tables; ``plots`` the optional bar charts.
    leaderboard  the static leaderboard Space; ``provenance`` its details lines.
    solver_accuracy/   the ``evaluate`` module, shipped as package data.

This ``__init__`` stays import-free so ``import vgau_data.metrics.scoring`` costs nothing extra.
"""

from __future__ import annotations

from importlib import resources

METRIC_NAME = "solver_accuracy"
"""Folder and script name of the ``evaluate`` module; also the Space ``vgau/solver_accuracy``."""


def solver_accuracy_path() -> str:
    """The folder of the shipped ``evaluate`` module, for ``evaluate.load``.

    Example:
        >>> solver_accuracy_path().endswith("solver_accuracy")
        True
    """
    return str(resources.files("vgau_data.metrics") / METRIC_NAME)


def submission_schema_path() -> str:
    """The JSON Schema (draft 2020-12) of one submission line, shipped with the package.

    Example:
        >>> submission_schema_path().endswith("submission.schema.json")
        True
    """
    return str(resources.files("vgau_data.metrics") / "submission.schema.json")
