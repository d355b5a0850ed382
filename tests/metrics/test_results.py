"""score_submission: coverage rules, rejections, runs, and the results.json shape."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from vgau_data.errors import SubmissionError
from vgau_data.metrics.baselines import make_baseline
from vgau_data.metrics.references import ReferenceSet
from vgau_data.metrics.results import META_KEY, protocol_results, score_submission
from vgau_data.metrics.submission import FingerprintMismatchError, Submission, SubmissionRecord


@pytest.fixture(scope="module")
def oracle(references: ReferenceSet) -> Submission:
    return make_baseline("oracle", references, protocols=("direct", "text_cot"))


def only(submission: Submission, keep: Callable[[SubmissionRecord], bool]) -> Submission:
    return replace(submission, records=tuple(r for r in submission.records if keep(r)))


def test_oracle__scores_one_everywhere(references: ReferenceSet, oracle: Submission) -> None:
    model, meta, protocols = protocol_results(score_submission(oracle, references))
    assert model == "baseline-oracle"
    assert list(protocols) == ["direct", "text_cot"]
    for result in protocols.values():
        assert result["optimal_accuracy"] == result["feasible_accuracy"] == result["parse_rate"] == 1.0
        assert result["n"] == len(references.rows)
        assert result["missing"] == [0]
        assert result["errors"] == {}
        for family, cells in result["per_family_difficulty"].items():
            assert set(cells) == {"easy", "medium", "hard"}
            assert all(cell["optimal_accuracy"] == 1.0 for cell in cells.values()), family
    assert meta["n_rows"] == len(references.rows)
    assert meta["dataset"]["fingerprint"] == references.fingerprint
    assert meta["warnings"] == []


def test_missing_rows__count_as_failed_and_are_reported(references: ReferenceSet, oracle: Submission) -> None:
    dropped = {r.id for r in references.rows if r.difficulty == "hard"}
    partial = only(oracle, lambda r: not (r.protocol == "direct" and r.id in dropped))
    _, meta, protocols = protocol_results(score_submission(partial, references))
    direct = protocols["direct"]
    assert direct["optimal_accuracy"] == pytest.approx(1 - len(dropped) / len(references.rows))
    assert direct["errors"] == {"missing": len(dropped)}
    assert direct["missing"] == [len(dropped)]
    for cells in direct["per_family_difficulty"].values():
        assert cells["hard"]["optimal_accuracy"] == 0.0 and cells["hard"]["n"] > 0
        assert cells["easy"]["optimal_accuracy"] == 1.0
    assert protocols["text_cot"]["optimal_accuracy"] == 1.0
    assert any("direct" in w and f"{len(dropped)} missing" in w for w in meta["warnings"])


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture], database=None)
@given(data=st.data())
def test_dropping_rows__never_raises_a_score(references: ReferenceSet, data: st.DataObject) -> None:
    """Whatever the answers and whichever rows are left out, scores can only fall."""
    kind = data.draw(st.sampled_from(("oracle", "random")))
    full = make_baseline(kind, references, seed=data.draw(st.integers(0, 3)))
    mixed = data.draw(st.lists(st.booleans(), min_size=len(full.records), max_size=len(full.records)))
    empty = make_baseline("empty", references)
    full = replace(full, records=tuple(a if keep else b for a, b, keep in zip(full.records, empty.records, mixed)))
    drop = data.draw(st.sets(st.sampled_from([r.id for r in references.rows])))
    before = protocol_results(score_submission(full, references))[2]["direct"]
    after = protocol_results(score_submission(only(full, lambda r: r.id not in drop), references))[2]["direct"]
    for key in ("optimal_accuracy", "feasible_accuracy", "parse_rate"):
        assert after[key] <= before[key]
        for family, cells in after["per_family_difficulty"].items():
            for difficulty, cell in cells.items():
                assert cell[key] <= before["per_family_difficulty"][family][difficulty][key]


def test_runs__mean_and_spread_with_a_missing_run(references: ReferenceSet, oracle: Submission) -> None:
    run0 = only(oracle, lambda r: r.protocol == "direct")
    run2 = tuple(replace(r, run=2) for r in run0.records)  # run 1 never appears: all its rows are missing
    submission = replace(run0, records=run0.records + run2)
    result = protocol_results(score_submission(submission, references))[2]["direct"]
    assert result["runs"] == 3
    assert type(result["n"]) is int and result["n"] == len(references.rows)
    assert result["errors"] == {"missing": len(references.rows)}, "errors add up over runs"
    assert result["optimal_accuracy"] == pytest.approx(2 / 3)
    assert result["optimal_accuracy_std"] == pytest.approx((2 / 9) ** 0.5)
    for cells in result["per_family_difficulty"].values():  # every cell has its own spread: the plots' error bars
        for cell in cells.values():
            assert cell["optimal_accuracy_std"] == pytest.approx((2 / 9) ** 0.5) and cell["parse_rate_std"] >= 0
    maze = {row.id for row in references.rows if row.task == "maze"}
    run1 = tuple(replace(r, run=1) for r in run0.records if r.id not in maze)  # run 1 leaves maze out
    two = protocol_results(score_submission(replace(run0, records=run0.records + run1), references))[2]["direct"]
    spread = {family: {c["optimal_accuracy_std"] for c in cells.values()} for family, cells in two["per_family_difficulty"].items()}
    assert spread.pop("maze") == {0.5} and set(spread) and all(s == {0.0} for s in spread.values()), spread
    assert two["per_family"]["maze"]["optimal_accuracy_std"] == 0.5
    assert [r["optimal_accuracy"] for r in result["per_run"]] == [1.0, 0.0, 1.0]
    assert result["missing"] == [0, len(references.rows), 0]


def test_coverage__rows_answered_per_run_out_of_the_dataset(references: ReferenceSet, oracle: Submission) -> None:
    first = {r.id for r in references.rows[:5]}
    run0 = only(oracle, lambda r: r.protocol == "direct" and r.id in first)
    run1 = tuple(replace(r, run=1) for r in run0.records[:3])
    results = score_submission(replace(run0, records=run0.records + run1), references)
    _, meta, protocols = protocol_results(results)
    direct = protocols["direct"]
    assert direct["coverage"] == {"answered": [5, 3], "rows": len(references.rows), "complete": False}
    assert direct["n"] == len(references.rows) and meta["subset"] is False
    assert direct["optimal_accuracy"] == pytest.approx(4 / len(references.rows))
    complete = protocol_results(score_submission(oracle, references))[2]["direct"]["coverage"]
    assert complete == {"answered": [len(references.rows)], "rows": len(references.rows), "complete": True}


def test_subset__scores_only_the_rows_answered_and_says_so(references: ReferenceSet, oracle: Submission) -> None:
    first = {r.id for r in references.rows[:5]}
    partial = only(oracle, lambda r: r.protocol == "text_cot" or r.id in first)
    run1 = tuple(replace(r, run=1, output="no") for r in partial.records if r.protocol == "direct")[:4]
    submission = replace(partial, records=partial.records + run1)
    _, meta, protocols = protocol_results(score_submission(submission, references, subset=True))
    direct = protocols["direct"]
    assert meta["subset"] is True and direct["n"] == 5  # rows answered in any run
    assert [run["optimal_accuracy"] for run in direct["per_run"]] == [1.0, 0.0]  # run 1 misses one of the 5
    assert direct["missing"] == [0, 1] and direct["coverage"]["answered"] == [5, 4]
    assert direct["coverage"]["rows"] == len(references.rows)
    assert protocols["text_cot"]["n"] == len(references.rows) and protocols["text_cot"]["optimal_accuracy"] == 1.0
    assert any(w.startswith("subset:") and "not comparable" in w for w in meta["warnings"])


def test_duplicates_in_a_written_submission__rejected_by_the_reader(oracle: Submission) -> None:
    from vgau_data.metrics.submission import read_submission, submission_lines

    lines = list(submission_lines(oracle))
    with pytest.raises(SubmissionError, match=r"duplicate of line 2 \(id=maze-easy-0000"):
        read_submission(lines + [lines[1]])


def test_unknown_ids__rejected_with_their_names(references: ReferenceSet, oracle: Submission) -> None:
    extra = (SubmissionRecord("maze-hard-9999", "direct", 0, ""), SubmissionRecord("zebra-easy-0001", "direct", 0, ""))
    message = r"2 id\(s\) are not rows of the dataset .*maze-hard-9999, zebra-easy-0001"
    with pytest.raises(SubmissionError, match=message):
        score_submission(replace(oracle, records=oracle.records + extra), references)


def test_wrong_fingerprint__rejected_naming_both_unless_allowed(references: ReferenceSet, oracle: Submission) -> None:
    other = "0" * 64
    wrong = replace(oracle, header=replace(oracle.header, fingerprint=other))
    with pytest.raises(FingerprintMismatchError, match=f"{other}.*differs from {references.fingerprint}"):
        score_submission(wrong, references)
    results = score_submission(wrong, references, allow_fingerprint_mismatch=True)
    meta = results["baseline-oracle"][META_KEY]
    assert meta["dataset"]["submitted_fingerprint"] == other
    assert any("differs" in w for w in meta["warnings"])


def test_unknown_protocol__scored_with_a_warning(references: ReferenceSet, oracle: Submission) -> None:
    probe = tuple(replace(r, protocol="zz_probe") for r in oracle.records if r.protocol == "direct")
    results = score_submission(replace(oracle, records=oracle.records + probe), references)
    _, meta, protocols = protocol_results(results)
    assert list(protocols) == ["direct", "text_cot", "zz_probe"]
    assert protocols["zz_probe"]["optimal_accuracy"] == 1.0
    assert any("zz_probe" in w for w in meta["warnings"])


def test_details__one_verdict_per_row_per_run_in_dataset_order(references: ReferenceSet, oracle: Submission) -> None:
    details: dict = {}
    score_submission(oracle, references, details=details)
    assert [d["id"] for d in details["direct"][0]] == [r.id for r in references.rows]
    assert all(d["optimal"] for d in details["text_cot"][0])


def test_header_only_submission__scores_nothing_with_a_warning(references: ReferenceSet, oracle: Submission) -> None:
    model, meta, protocols = protocol_results(score_submission(replace(oracle, records=()), references))
    assert protocols == {}
    assert meta["warnings"] == ["the submission has no records: nothing to score"]
