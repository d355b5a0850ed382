"""The shipped evaluate module: loads offline from package data and agrees with the Python API."""

from __future__ import annotations

import doctest
import re
from pathlib import Path
from typing import Any

import pytest

from vgau_data.metrics import METRIC_NAME, solver_accuracy_path
from vgau_data.metrics.baselines import make_baseline
from vgau_data.metrics.references import ReferenceSet
from vgau_data.metrics.results import protocol_results, score_submission
from vgau_data.metrics.scoring import score_batch
from vgau_data.registry import FAMILIES

evaluate = pytest.importorskip("evaluate")
SCRIPT = Path(solver_accuracy_path()) / f"{METRIC_NAME}.py"
AGGREGATE_KEYS = (
    "n", "optimal_accuracy", "feasible_accuracy", "parse_rate", "per_family", "per_family_difficulty", "errors"
)


@pytest.fixture(scope="module")
def metric() -> Any:
    return evaluate.load(solver_accuracy_path(), keep_in_memory=True)


def inputs(references: ReferenceSet, kind: str) -> tuple[list[str | None], list[str]]:
    submission = make_baseline(kind, references)
    return [r.output for r in submission.records], [row.reference_json() for row in references.rows]


def test_script__follows_the_evaluate_loading_rules() -> None:
    assert SCRIPT.parent.name == SCRIPT.stem == METRIC_NAME
    for line in SCRIPT.read_text(encoding="utf-8").splitlines():
        if re.match(r"(import|from)\s", line):
            assert "#" not in line, f"trailing comment on an import line breaks evaluate.load: {line!r}"
            assert not re.match(r"import\s+\S+\s*,", line), f"one import per line: {line!r}"
            assert not line.startswith("from ."), "relative imports are copied away from the package"
    for name in ("README.md", "requirements.txt"):
        assert (SCRIPT.parent / name).is_file()


def test_load__oracle_scores_one_and_empty_zero(metric: Any, references: ReferenceSet) -> None:
    predictions, refs = inputs(references, "oracle")
    result = metric.compute(predictions=predictions, references=refs, return_details=True)
    assert result["optimal_accuracy"] == result["feasible_accuracy"] == result["parse_rate"] == 1.0
    assert type(result["optimal_accuracy"]) is float
    assert [d["id"] for d in result["details"]] == [row.id for row in references.rows]
    predictions, refs = inputs(references, "empty")
    result = metric.compute(predictions=predictions, references=refs)
    assert result["optimal_accuracy"] == 0.0 and "details" not in result
    assert result["errors"] == {"no_answer": len(refs)}


def test_load__equals_score_batch_and_the_submission_scorer(metric: Any, references: ReferenceSet) -> None:
    predictions, refs = inputs(references, "random")
    predictions[0] = ""
    from_metric = metric.compute(predictions=predictions, references=refs, return_details=True)
    assert from_metric == score_batch(predictions, refs, return_details=True)
    submission = make_baseline("random", references)
    from_cli_api = protocol_results(score_submission(submission, references))[2]["direct"]
    from_metric = metric.compute(predictions=[r.output for r in submission.records], references=refs)
    for key in AGGREGATE_KEYS:
        assert from_metric[key] == from_cli_api[key], key


def test_load__compute_takes_the_reader(metric: Any, references: ReferenceSet) -> None:
    predictions, refs = inputs(references, "oracle")
    read = [k for k, row in enumerate(references.rows) if FAMILIES[row.task].authors_reader]  # the authors' families
    rows, refs = [references.rows[k] for k in read], [refs[k] for k in read]
    untagged = [p.split("<ANSWER_JSON>")[-1].split("</ANSWER_JSON>")[0] if "<ANSWER_JSON>" in p else p
                for p in (predictions[k] for k in read)]  # fmt: skip
    ours = metric.compute(predictions=untagged, references=refs, return_details=True)
    authors = metric.compute(predictions=untagged, references=refs, return_details=True, reader="authors")
    assert authors == score_batch(untagged, refs, return_details=True, reader="authors")
    maze = [d["optimal"] for d, r in zip(authors["details"], rows) if r.task == "maze"]
    assert maze and all(maze)  # the authors' code reads a bare move list
    assert not any(d["optimal"] for d, r in zip(ours["details"], rows) if r.task == "maze")


def test_load__add_batch_then_compute(metric: Any, references: ReferenceSet) -> None:
    predictions, refs = inputs(references, "oracle")
    half = len(refs) // 2
    metric.add_batch(predictions=predictions[:half], references=refs[:half])
    metric.add_batch(predictions=predictions[half:], references=refs[half:])
    assert metric.compute()["optimal_accuracy"] == 1.0


def test_docstring_example__runs() -> None:
    globs: dict = {}
    exec(compile(SCRIPT.read_text(encoding="utf-8"), str(SCRIPT), "exec"), globs)
    finder = doctest.DocTestFinder()
    tests = finder.find(globs["_KWARGS_DESCRIPTION"], "solver_accuracy._KWARGS_DESCRIPTION", globs={})
    runner = doctest.DocTestRunner()
    for test in tests:
        runner.run(test)
    assert runner.summarize(verbose=False).attempted >= 8
    assert runner.summarize(verbose=False).failed == 0


@pytest.mark.parametrize("value", ["no", "false", 0, None, [True]])
def test_compute__return_details_must_be_a_boolean(metric: Any, references: ReferenceSet, value: object) -> None:
    """``"no"`` used to count as true; anything but True or False is now refused."""
    predictions, refs = inputs(references, "oracle")
    with pytest.raises(ValueError, match="return_details must be True or False"):
        metric.compute(predictions=predictions[:2], references=refs[:2], return_details=value)
    assert "details" not in metric.compute(predictions=predictions[:2], references=refs[:2], return_details=False)


@pytest.mark.parametrize(
    ("reference", "message"),
    [
        ("[" * 100_000 + "]" * 100_000, "nested more than 64 levels deep"),
        ('{"id": ' + "[" * 900 + "]" * 900 + "}", "nested more than 64 levels deep"),
        ('{"id": "x", "task": "maze", "difficulty": "easy", "optimal_length": NaN, "state": "{}"}', "NaN is not JSON"),
        ('{"id": {"a": [1]}, "task": "maze", "difficulty": "easy", "optimal_length": 1, "state": "{}"}',
         "reference id must be a string, got dict"),
    ],
    ids=["deep", "deep-field", "nan", "object-id"],
)
def test_compute__hostile_references_are_one_error(metric: Any, reference: str, message: str) -> None:
    from vgau_data.metrics.scoring import ReferenceError

    with pytest.raises(ReferenceError, match=message):
        metric.compute(predictions=["x"], references=[reference])
