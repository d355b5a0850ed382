"""The ``solver_accuracy`` evaluate module: VGAU puzzle answers scored by replay.

A thin shim over ``vgau_data.metrics.scoring.score_batch``: the scorer is imported from
the installed ``vgau_data`` package (an absolute import), so the same code scores here,
in ``vgau-data score`` and in the Python API. This file is shipped as package data
(``vgau_data.metrics.solver_accuracy_path()``) and mirrored to the Space
``vgau/solver_accuracy`` whose ``requirements.txt`` installs ``vgau-data``.
"""

from __future__ import annotations

import datasets
import evaluate

from vgau_data.metrics.scoring import score_batch

_CITATION = """\
@article{vgau2026,
  title   = {When Does Visual Generation Help Visual Understanding in Unified Multimodal Models?},
  journal = {arXiv preprint arXiv:2608.22174},
  year    = {2026}
}
"""

_DESCRIPTION = """\
Solver accuracy for the VGAU puzzles (maze, sokoban, path, onet, parking, klotski).
Each prediction is a model's raw output; it is parsed in the family's answer format
(last match wins, tolerant of prose, code fences, case, single quotes and trailing
commas) and replayed on the instance's true state. An answer is feasible when every
step is legal and the goal is reached, optimal when it is also as short as the
solver-verified optimum. Unparseable or missing answers count as failed.
"""

_KWARGS_DESCRIPTION = """
Args:
    predictions (list of str): raw model outputs, one per instance ("" when the model gave none;
        evaluate rejects None).
    references (list of str): the reference of each instance, the JSON string of
        {"id", "task", "difficulty", "optimal_length", "state"} taken from the dataset row
        (vgau_data.metrics.scoring.make_reference(row)).
    return_details (bool): also return one verdict dict per prediction, in input order
        (True or False only: any other value is an error).
    reader (str): how answers are read (vgau_data.readers): "ours" (default, the paper's text)
        or "authors" (the authors' released code, the reader behind the paper's tables).
Returns:
    optimal_accuracy (float): share of answers that are feasible and of optimal length.
    feasible_accuracy (float): share of answers whose steps are legal and reach the goal.
    parse_rate (float): share of outputs in which an answer was found and read.
    n (int): number of predictions.
    per_family (dict): the same rates per family.
    per_family_difficulty (dict): the same rates per family and difficulty.
    errors (dict): how often each reason code occurred (no_answer, wall, not_solved, ...).
    details (list of dict, with return_details=True): id, task, difficulty, parsed,
        feasible, optimal, length, error, first_invalid_step.
Examples:
    >>> import json
    >>> import evaluate
    >>> import vgau_data.metrics
    >>> metric = evaluate.load(vgau_data.metrics.solver_accuracy_path(), keep_in_memory=True)
    >>> grid = ["..." + "#" * 7] + ["#" * 10] * 9
    >>> state = json.dumps({"goal": [0, 2], "grid": grid, "start": [0, 0]})
    >>> ref = json.dumps({"id": "maze-easy-0000", "task": "maze", "difficulty": "easy",
    ...                   "optimal_length": 2, "state": state})
    >>> out = metric.compute(predictions=['<ANSWER_JSON>["right","R"]</ANSWER_JSON>', "no idea"],
    ...                      references=[ref, ref], return_details=True)
    >>> out["optimal_accuracy"], out["parse_rate"], [d["error"] for d in out["details"]]
    (0.5, 0.5, [None, 'no_answer'])
"""


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class SolverAccuracy(evaluate.Metric):
    """Replay-based optimal and feasible accuracy on the VGAU puzzles."""

    def _info(self) -> evaluate.MetricInfo:
        return evaluate.MetricInfo(
            module_type="metric",
            description=_DESCRIPTION,
            citation=_CITATION,
            inputs_description=_KWARGS_DESCRIPTION,
            features=datasets.Features(
                {"predictions": datasets.Value("string"), "references": datasets.Value("string")}
            ),
            homepage="https://huggingface.co/datasets/vgau/puzzles",
            codebase_urls=["https://github.com/vgau/vgau_data"],
            reference_urls=["https://arxiv.org/abs/2608.22174"],
        )

    def _compute(self, predictions, references, return_details=False, reader="ours"):
        return score_batch(list(predictions), list(references), return_details=return_details, reader=reader)
