"""lmms-eval and VLMEvalKit outputs -> submissions, on hand-written sample files."""

from __future__ import annotations

import csv
import importlib.util
import json
from pathlib import Path

import pytest

from vgau_data.cli import main
from vgau_data.errors import MissingDependencyError, SubmissionError
from vgau_data.metrics.baselines import oracle_output
from vgau_data.metrics.convert import convert, records_from_lmms_eval, records_from_vlmevalkit
from vgau_data.metrics.references import ReferenceSet
from vgau_data.metrics.results import protocol_results, score_submission
from vgau_data.metrics.submission import read_submission


def lmms_sample(doc_id: int, doc: dict, output: str, *, filtered: bool = True) -> dict:
    """The shape lmms-eval 0.7 writes with --log_samples (trimmed)."""
    sample = {
        "doc_id": doc_id,
        "doc": doc,
        "target": doc.get("solution", ""),
        "arguments": [["<prompt>", {"max_new_tokens": 2048}]],
        "resps": [[output]],
        "solved": 0.0,
        "doc_hash": "x",
        "prompt_hash": "y",
        "target_hash": "z",
    }
    if filtered:
        sample["filtered_resps"] = [output]
    return sample


def write_lmms(path: Path, references: ReferenceSet, family: str, *, with_doc: bool = True) -> Path:
    rows = [r for r in references.rows if r.task == family]
    with path.open("w", encoding="utf-8") as handle:
        for doc_id, row in enumerate(rows):
            doc = {"id": row.id, "task": row.task, "difficulty": row.difficulty, "state": row.state} if with_doc else {}
            handle.write(json.dumps(lmms_sample(doc_id, doc, oracle_output(row), filtered=doc_id % 2 == 0)) + "\n")
    return path


def test_lmms_eval__doc_ids_and_outputs(references: ReferenceSet, tmp_path: Path) -> None:
    path = write_lmms(tmp_path / "samples_vgau_maze.jsonl", references, "maze")
    records = records_from_lmms_eval(path, references, protocol="direct", run=1)
    maze = [r for r in references.rows if r.task == "maze"]
    assert [r.id for r in records] == [r.id for r in maze]
    assert [r.output for r in records] == [oracle_output(r) for r in maze]
    assert {(r.protocol, r.run) for r in records} == {("direct", 1)}


def test_lmms_eval__positions_need_the_family(references: ReferenceSet, tmp_path: Path) -> None:
    path = write_lmms(tmp_path / "samples.jsonl", references, "sokoban", with_doc=False)
    records = records_from_lmms_eval(path, references, protocol="direct", family="sokoban")
    assert [r.id for r in records] == [r.id for r in references.rows if r.task == "sokoban"]
    # without the family, positions index the whole dataset: sokoban outputs land on maze rows and fail
    wrong = records_from_lmms_eval(path, references, protocol="direct")
    assert wrong[0].id == references.rows[0].id


def test_lmms_eval__json_list_form_and_bad_ids(references: ReferenceSet, tmp_path: Path) -> None:
    row = references.rows[0]
    path = tmp_path / "samples.json"
    path.write_text(json.dumps([lmms_sample(0, {"id": row.id}, "x")]), encoding="utf-8")
    assert records_from_lmms_eval(path, references, protocol="direct")[0].id == row.id
    path.write_text(json.dumps([lmms_sample(0, {"id": "maze-easy-9999"}, "x")]), encoding="utf-8")
    with pytest.raises(SubmissionError, match=r"sample 1: id 'maze-easy-9999' is not a row"):
        records_from_lmms_eval(path, references, protocol="direct")


def test_convert_cli__lmms_eval_files_score_like_the_oracle(
    scoring_dataset: Path, references: ReferenceSet, tmp_path: Path
) -> None:
    files = [str(write_lmms(tmp_path / f"samples_vgau_{f}.jsonl", references, f)) for f in references.families]
    out = tmp_path / "converted.jsonl"
    assert main(["convert", "--from", "lmms-eval", *files, "--dataset", str(scoring_dataset), "--model", "dummy",
                 "--protocol", "text_cot", "--out", str(out)]) == 0
    submission = read_submission(out)
    assert submission.header.model == "dummy" and submission.header.harness.startswith("lmms-eval")
    result = protocol_results(score_submission(submission, references))[2]["text_cot"]
    assert result["optimal_accuracy"] == 1.0


def test_convert__the_same_row_twice_is_rejected(references: ReferenceSet, tmp_path: Path) -> None:
    path = write_lmms(tmp_path / "samples.jsonl", references, "path")
    with pytest.raises(SubmissionError, match=r"appear twice in the input: path-easy-0000"):
        convert("lmms-eval", [path, path], references, model="m")


def write_vlmevalkit(path: Path, references: ReferenceSet, *, id_column: bool, delimiter: str) -> Path:
    with path.open("w", newline="", encoding="utf-8") as handle:
        columns = ["index", "question", "answer", "prediction"] + (["id"] if id_column else [])
        writer = csv.DictWriter(handle, columns, delimiter=delimiter)
        writer.writeheader()
        for index, row in enumerate(references.rows):
            record = {"index": index, "question": "q", "answer": row.solution, "prediction": oracle_output(row)}
            if id_column:
                record["id"] = row.id
            writer.writerow(record)
    return path


@pytest.mark.parametrize(("suffix", "delimiter", "id_column"), [(".tsv", "\t", True), (".csv", ",", False)])
def test_vlmevalkit__prediction_table(
    references: ReferenceSet, tmp_path: Path, suffix: str, delimiter: str, id_column: bool
) -> None:
    path = write_vlmevalkit(tmp_path / f"model_VGAU{suffix}", references, id_column=id_column, delimiter=delimiter)
    records = records_from_vlmevalkit(path, references, protocol="direct")
    assert [r.id for r in records] == [r.id for r in references.rows]
    assert all(r.output == oracle_output(row) for r, row in zip(records, references.rows))


def test_vlmevalkit__missing_prediction_column_and_bad_index(references: ReferenceSet, tmp_path: Path) -> None:
    path = tmp_path / "p.tsv"
    path.write_text("index\tanswer\n0\tx\n", encoding="utf-8")
    with pytest.raises(SubmissionError, match="no 'prediction' column"):
        records_from_vlmevalkit(path, references, protocol="direct")
    path.write_text(f"index\tprediction\n{len(references.rows)}\tx\n", encoding="utf-8")
    with pytest.raises(SubmissionError, match=r"row 2: position \d+ is outside the dataset"):
        records_from_vlmevalkit(path, references, protocol="direct")


def test_vlmevalkit__xlsx(references: ReferenceSet, tmp_path: Path) -> None:
    path = tmp_path / "model_VGAU.xlsx"
    if importlib.util.find_spec("openpyxl") is None:
        path.write_bytes(b"PK\x03\x04")
        with pytest.raises(MissingDependencyError, match="openpyxl"):
            records_from_vlmevalkit(path, references, protocol="direct")
        return
    import pandas as pd

    pd.DataFrame({"index": [0], "prediction": [oracle_output(references.rows[0])]}).to_excel(path, index=False)
    assert records_from_vlmevalkit(path, references, protocol="direct")[0].id == references.rows[0].id
