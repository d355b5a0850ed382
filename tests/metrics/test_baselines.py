"""Reference submissions: oracle, random and empty, and the files they make."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import jsonschema
import pytest

from vgau_data.metrics import submission_schema_path
from vgau_data.metrics.baselines import BASELINE_KINDS, make_baseline, random_output
from vgau_data.metrics.references import ReferenceSet
from vgau_data.metrics.results import protocol_results, score_submission
from vgau_data.metrics.submission import read_submission, write_submission
from vgau_data.registry import FAMILIES


def direct(references: ReferenceSet, kind: str, **kwargs: object) -> dict:
    return protocol_results(score_submission(make_baseline(kind, references, **kwargs), references))[2]["direct"]


def test_oracle_output__is_the_canonical_answer_text(references: ReferenceSet) -> None:
    oracle = make_baseline("oracle", references)
    for row, record in zip(references.rows, oracle.records):
        family = FAMILIES[row.task]
        assert record.id == row.id
        assert record.output == family.format_answer(family.parse_answer(record.output))
        assert family.answer_payload(family.parse_answer(record.output)) == row.solution


def test_empty__scores_zero_with_no_answer(references: ReferenceSet) -> None:
    result = direct(references, "empty")
    assert result["optimal_accuracy"] == result["feasible_accuracy"] == result["parse_rate"] == 0.0
    assert result["errors"] == {"no_answer": len(references.rows)}


def test_random__parses_everywhere_and_is_reproducible(references: ReferenceSet) -> None:
    result = direct(references, "random")
    assert result["parse_rate"] == 1.0
    assert result["optimal_accuracy"] < 0.5
    a = make_baseline("random", references, seed=3, runs=2)
    b = make_baseline("random", references, seed=3, runs=2)
    c = make_baseline("random", references, seed=4)
    assert a == b
    assert [r.output for r in a.records if r.run == 0] != [r.output for r in c.records]
    assert [r.output for r in a.records if r.run == 0] != [r.output for r in a.records if r.run == 1]


def test_random__depends_on_the_row_not_its_position(references: ReferenceSet) -> None:
    row = references.rows[-1]
    reordered = replace(references, rows=tuple(reversed(references.rows)))
    outputs = {r.id: r.output for r in make_baseline("random", reordered, seed=9).records}
    assert outputs[row.id] == random_output(row, 9)


@pytest.mark.parametrize("kind", BASELINE_KINDS)
def test_baseline_file__every_line_matches_the_schema(references: ReferenceSet, kind: str, tmp_path: Path) -> None:
    submission = make_baseline(kind, references, protocols=("direct", "oracle_gta"), runs=2)
    path = write_submission(tmp_path / f"{kind}.jsonl", submission)
    validator = jsonschema.Draft202012Validator(json.loads(Path(submission_schema_path()).read_text(encoding="utf-8")))
    lines = path.read_text(encoding="ascii").splitlines()
    assert len(lines) == 1 + 2 * 2 * len(references.rows)
    for line in lines:
        validator.validate(json.loads(line))
    assert read_submission(path) == replace(submission, path=str(path))


def test_make_baseline__rejects_bad_arguments(references: ReferenceSet) -> None:
    with pytest.raises(ValueError, match="unknown baseline kind 'perfect'"):
        make_baseline("perfect", references)
    with pytest.raises(ValueError, match="runs must be >= 1"):
        make_baseline("oracle", references, runs=0)
