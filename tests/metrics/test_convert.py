"""lmms-eval and VLMEvalKit outputs -> submissions, on files those tools really wrote.

``tests/data/harness_outputs`` holds lmms-eval 0.7.3 samples files (all five protocols,
six families) and VLMEvalKit prediction files (xlsx, tsv, json) from runs against a
loopback server, with the scoring columns of the dataset they were made on.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from tests.bounded import run_cli_bounded, zip_bomb
from tests.metrics.conftest import HARNESS_OUTPUTS as OUTPUTS
from vgau_data.cli import main
from vgau_data.errors import SubmissionError
from vgau_data.integrations.convert import (
    XLSX_CELL_LIMIT,
    convert,
    lmms_task,
    read_prediction_table,
    records_from_lmms_eval,
    records_from_vlmevalkit,
)
from vgau_data.metrics.references import ReferenceSet
from vgau_data.metrics.results import protocol_results, score_submission

LMMS = OUTPUTS / "lmms_eval_0.7.3" / "test-model"
VLMEVAL = OUTPUTS / "vlmevalkit_e8e78f05"


def lmms_samples(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


# ---------------------------------------------------------------- lmms-eval


def test_lmms_eval__one_command_converts_every_file_and_scores_equal_lmms_evals_own(
    real_dataset: Path, real_references: ReferenceSet, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    files = sorted(str(p) for p in LMMS.glob("*_samples_vgau_*.jsonl"))
    assert len(files) == 30
    out = tmp_path / "converted.jsonl"
    details = tmp_path / "details.jsonl"
    assert main(["convert", "--from", "lmms-eval", *files, "--dataset", str(real_dataset), "--model", "test-model",
                 "--out", str(out)]) == 0
    err = capsys.readouterr().err
    failed = sum("LMMS_EVAL_REQUEST_FAILED" in s["filtered_resps"] for p in map(Path, files) for s in lmms_samples(p))
    assert failed >= 6 and f"kept {failed} failed request(s) as failed records" in err
    assert "[LMMS_EVAL_REQUEST_FAILED after 1 retries]" in err
    assert main(["score", str(out), "--dataset", str(real_dataset), "--out", str(tmp_path / "r.json"),
                 "--details", str(details)]) == 0
    verdicts = {}
    for line in details.read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        verdicts[(record["protocol"], record["id"])] = record
    compared = 0
    for path in map(Path, files):
        _, _, protocol = lmms_task(path)
        for sample in lmms_samples(path):
            verdict = verdicts[(protocol, sample["target"])]
            assert float(verdict["optimal"]) == sample["optimal_accuracy"], (path.name, sample["target"])
            assert float(verdict["feasible"]) == sample["feasible_accuracy"], (path.name, sample["target"])
            if "LMMS_EVAL_REQUEST_FAILED" not in sample["filtered_resps"]:
                assert float(verdict["parsed"]) == sample["parse_rate"], (path.name, sample["target"])
            compared += 1
    assert compared == 30 * 4
    lmms_results = json.loads(next(LMMS.glob("*_results.json")).read_text(encoding="utf-8"))["results"]
    ours = protocol_results(json.loads((tmp_path / "r.json").read_text(encoding="utf-8")))[2]
    for protocol, result in ours.items():
        assert result["optimal_accuracy"] == pytest.approx(lmms_results[f"vgau_{protocol}"]["optimal_accuracy,none"])
        assert result["feasible_accuracy"] == pytest.approx(lmms_results[f"vgau_{protocol}"]["feasible_accuracy,none"])
    assert 0 < ours["oracle_vcot"]["optimal_accuracy"] < 1


def test_lmms_eval__rows_come_from_target_and_protocol_from_the_file_name(real_references: ReferenceSet) -> None:
    path = next(LMMS.glob("*_samples_vgau_sokoban_oracle_aug_vcot.jsonl"))
    converted = records_from_lmms_eval(path, real_references)
    samples = lmms_samples(path)
    kept = [s for s in samples if "LMMS_EVAL_REQUEST_FAILED" not in s["filtered_resps"]]
    assert [r.id for r in converted.records] == [s["target"] for s in samples]  # a failed request is a failed record
    assert [r.id for r in converted.records if not r.failed] == [s["target"] for s in kept]
    assert {r.protocol for r in converted.records} == {"oracle_aug_vcot"}
    # interactive outputs are our episode JSON; the submission holds the answer inside it
    episode = json.loads(kept[0]["filtered_resps"])
    assert next(r for r in converted.records if not r.failed).output == episode["answer"]
    assert len(converted.failed) == len(samples) - len(kept)


def test_lmms_eval__positions_need_a_family_and_are_never_guessed(real_references: ReferenceSet, tmp_path: Path) -> None:
    source = next(LMMS.glob("*_samples_vgau_path_direct.jsonl"))
    lines = [{k: v for k, v in s.items() if k != "target"} for s in lmms_samples(source)]
    named = tmp_path / "20261201_000000_samples_vgau_path_direct.jsonl"
    named.write_text("\n".join(json.dumps(s) for s in lines), encoding="utf-8")
    ids = [r.id for r in records_from_lmms_eval(named, real_references).records]
    assert all(i.startswith("path-") for i in ids)
    custom = tmp_path / "20261201_000000_samples_mytask.jsonl"
    shutil.copyfile(named, custom)
    with pytest.raises(SubmissionError, match=r"names no vgau task.*--protocol"):
        records_from_lmms_eval(custom, real_references)
    with pytest.raises(SubmissionError, match=r"samples_mytask.jsonl line 1: rows are given by position only"):
        records_from_lmms_eval(custom, real_references, protocol="direct")
    placed = records_from_lmms_eval(custom, real_references, protocol="direct", family="path").records
    assert [r.id for r in placed] == ids


def test_lmms_eval__repeats_become_runs_and_unknown_ids_are_refused(
    real_references: ReferenceSet, tmp_path: Path
) -> None:
    row = real_references.rows[0]
    path = tmp_path / "x_samples_vgau_maze_text_cot.jsonl"
    path.write_text(json.dumps({"doc_id": 0, "target": row.id, "filtered_resps": ["a", "b", "c"]}) + "\n", encoding="utf-8")
    records = records_from_lmms_eval(path, real_references, run=2).records
    assert [(r.run, r.output) for r in records] == [(2, "a"), (3, "b"), (4, "c")]
    path.write_text(json.dumps({"doc_id": 0, "target": "maze-easy-0999", "filtered_resps": "a"}) + "\n", encoding="utf-8")
    with pytest.raises(SubmissionError, match=r"line 1: id 'maze-easy-0999' is not a row"):
        records_from_lmms_eval(path, real_references)


def test_lmms_eval__episodes_played_by_another_reader_become_its_variant(
    real_references: ReferenceSet, tmp_path: Path
) -> None:
    row = real_references.rows[0]
    path = tmp_path / "x_samples_vgau_maze_oracle_vcot.jsonl"
    episodes = [{"vgau_episode": 1, "answer": "<ANSWER_JSON>[]</ANSWER_JSON>", "end": "off_optimum", "steps": 2,
                 "reader": "authors"},
                {"vgau_episode": 1, "answer": "", "end": "unparseable", "steps": 0}]  # fmt: skip
    path.write_text(json.dumps({"doc_id": 0, "target": row.id, "filtered_resps": [json.dumps(e) for e in episodes]}),
                    encoding="utf-8")  # fmt: skip
    records = records_from_lmms_eval(path, real_references).records
    assert [(r.protocol, r.run) for r in records] == [("oracle_vcot_authors", 0), ("oracle_vcot", 1)]


def test_convert__the_same_file_twice_is_refused(real_references: ReferenceSet) -> None:
    path = next(LMMS.glob("*_samples_vgau_maze_direct.jsonl"))
    with pytest.raises(SubmissionError, match=r"appear twice in the input: maze-[a-z]+-[0-9]+ \(direct, run 0\)"):
        convert("lmms-eval", [path, path], real_references, model="m")


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"\xff\xfe not utf-8", "not UTF-8 text"),
        (b'{"doc_id": 0, "target": ', "line 1: not valid JSON"),
        (b"[1, 2]", "line 1: the record must be an object, got integer 1"),
        (b'{"doc_id": [0], "target": null}', "line 1: 'doc_id' must be an integer or a string, got list"),
        (b'{"doc_id": 0, "filtered_resps": ' + b"[" * 3000 + b"]" * 3000 + b"}", "line 1: nested more than 64"),
        (b'{"doc_id": 0, "filtered_resps": NaN}', "line 1: not valid JSON (NaN is not JSON)"),
    ],
)
def test_convert_cli__hostile_files_are_one_line_errors(
    real_dataset: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], content: bytes, message: str
) -> None:
    path = tmp_path / "x_samples_vgau_maze_direct.jsonl"
    path.write_bytes(content)
    code = main(["convert", "--from", "lmms-eval", str(path), "--dataset", str(real_dataset), "--model", "m",
                 "--out", str(tmp_path / "o.jsonl")])
    err = capsys.readouterr().err
    assert code == 2 and message in err and len(err.strip().splitlines()) == 1 and "Traceback" not in err


# ---------------------------------------------------------------- VLMEvalKit


@pytest.mark.parametrize("fmt", ["xlsx", "tsv", "json"])
def test_vlmevalkit__real_prediction_files_convert_to_the_scores_its_evaluate_wrote(
    real_dataset: Path, real_references: ReferenceSet, tmp_path: Path, fmt: str
) -> None:
    import csv

    files = sorted((VLMEVAL / fmt / "loopmodel").glob(f"loopmodel_VGAU_*.{fmt}"))
    assert len(files) == 3
    submission, converted = convert("vlmevalkit", files, real_references, model="loopmodel")
    assert {r.protocol for r in submission.records} == {"text_cot", "oracle_gta", "direct"}
    assert all("Failed to obtain answer" in failure for failure in converted.failed) and converted.failed
    results = protocol_results(score_submission(submission, real_references.subset(["maze", "sokoban", "onet"])))[2]
    for path in files:
        family, protocol = path.stem.split("_VGAU_")[1].split("_", 1)
        with path.with_name(f"{path.stem}_acc.csv").open(encoding="utf-8") as handle:
            written = {row["split"]: row for row in csv.DictReader(handle)}
        ours = results[protocol]["per_family"][family]
        assert ours["optimal_accuracy"] == pytest.approx(float(written[family]["optimal_accuracy"]))
        assert ours["feasible_accuracy"] == pytest.approx(float(written[family]["feasible_accuracy"]))


def test_vlmevalkit__index_only_files_take_the_family_from_the_name_or_are_refused(
    real_references: ReferenceSet, tmp_path: Path
) -> None:
    rows = read_prediction_table(VLMEVAL / "tsv" / "loopmodel" / "loopmodel_VGAU_maze_text_cot.tsv")
    lines = ["index\tprediction"] + [f"{row['index']}\t{(row['prediction'] or '').splitlines()[-1]}" for row in rows]
    named = tmp_path / "m_VGAU_maze_text_cot.tsv"
    named.write_text("\n".join(lines) + "\n", encoding="utf-8")
    records = records_from_vlmevalkit(named, real_references).records
    assert [r.id for r in records] == [r["id"] for r in rows]
    assert [r.id for r in records if r.failed] == [r["id"] for r in rows if str(r["prediction"]).startswith("Failed")]
    anonymous = tmp_path / "predictions.tsv"
    anonymous.write_text("\n".join(lines) + "\n", encoding="utf-8")
    with pytest.raises(SubmissionError, match=r"predictions.tsv: the file name names no protocol"):
        records_from_vlmevalkit(anonymous, real_references)
    with pytest.raises(SubmissionError, match=r"predictions.tsv row 2: rows are given by position only"):
        records_from_vlmevalkit(anonymous, real_references, protocol="direct")


def test_vlmevalkit__predictions_at_the_xlsx_cell_limit_are_named(real_references: ReferenceSet, tmp_path: Path) -> None:
    row = real_references.rows[0]
    path = tmp_path / "m_VGAU_maze_direct.json"
    path.write_text(json.dumps([{"index": 0, "id": row.id, "prediction": "x" * XLSX_CELL_LIMIT}]), encoding="utf-8")
    converted = records_from_vlmevalkit(path, real_references)
    assert len(converted.warnings) == 1 and row.id in converted.warnings[0] and "32767" in converted.warnings[0]


def test_vlmevalkit__unknown_ids_and_missing_columns_are_refused(real_references: ReferenceSet, tmp_path: Path) -> None:
    path = tmp_path / "m_VGAU_maze_direct.tsv"
    path.write_text("index\tid\tprediction\n0\tmaze-easy-0999\tx\n", encoding="utf-8")
    with pytest.raises(SubmissionError, match=r"row 2: id 'maze-easy-0999' is not a row"):
        records_from_vlmevalkit(path, real_references)
    path.write_text("index\tanswer\n0\tx\n", encoding="utf-8")
    with pytest.raises(SubmissionError, match="no 'prediction' column"):
        records_from_vlmevalkit(path, real_references)


# ---------------------------------------------------------------- hostile harness files (issue 19), bounded


def _workbook_parts() -> dict[str, bytes]:
    """The parts of a one-row VLMEvalKit-like workbook, as openpyxl writes them."""
    import io
    import zipfile

    import openpyxl

    book = openpyxl.Workbook()
    book.active.append(["index", "id", "prediction"])
    book.active.append([0, "maze-easy-0000", "up"])
    buffer = io.BytesIO()
    book.save(buffer)
    with zipfile.ZipFile(buffer) as archive:
        return {name: archive.read(name) for name in archive.namelist()}


ROW = b'<row><c t="n"><v>0</v></c></row>'


def _sheet_bomb(tmp_path: Path, chunk: bytes, repeat: int, cut: bytes) -> Path:
    parts = _workbook_parts()
    sheet = parts.pop("xl/worksheets/sheet1.xml")
    at = sheet.index(cut) + len(cut)
    return zip_bomb(tmp_path / "m_VGAU_maze_direct.xlsx", parts, "xl/worksheets/sheet1.xml", sheet[:at], chunk,
                    repeat, sheet[at:])  # fmt: skip


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda tmp: _sheet_bomb(tmp, b"A" * (1 << 20), 3000, b"<is><t>up"), "declares 3,145,7"),  # a 3 GB cell
        (lambda tmp: _sheet_bomb(tmp, ROW * 40_000, 500, b"</row>"), "unpacked"),  # 20 M rows
        (lambda tmp: _sheet_bomb(tmp, ROW * 25_000, 10, b"</row>"), "more than 200,000 rows"),
    ],
    ids=["3GB-cell", "20M-rows", "250k-rows"],
)
def test_convert__an_xlsx_bomb_is_refused_before_it_inflates(real_dataset: Path, tmp_path: Path, make, message) -> None:
    pytest.importorskip("openpyxl")
    path = make(tmp_path)
    assert path.stat().st_size < 6 << 20
    run_cli_bounded(["convert", "--from", "vlmevalkit", str(path), "--dataset", str(real_dataset), "--model", "m",
                     "--out", str(tmp_path / "o.jsonl")]).assert_one_line_error(message)  # fmt: skip


def _convert_cli(real_dataset: Path, tmp_path: Path, harness: str, path: Path):
    return run_cli_bounded(["convert", "--from", harness, str(path), "--dataset", str(real_dataset), "--model", "m",
                            "--out", str(tmp_path / "o.jsonl")])  # fmt: skip


def test_convert__a_huge_or_special_samples_file_is_refused_unread(real_dataset: Path, tmp_path: Path) -> None:
    path = tmp_path / "x_samples_vgau_maze_direct.jsonl"
    with path.open("wb") as handle:
        handle.truncate(800 << 20)  # 800 MB, sparse
    _convert_cli(real_dataset, tmp_path, "lmms-eval", path).assert_one_line_error("over the limit of 268,435,456")
    path.unlink()
    os.mkfifo(path)
    _convert_cli(real_dataset, tmp_path, "lmms-eval", path).assert_one_line_error("not a regular file (a FIFO)")


def _maze_csv(references: ReferenceSet, tmp_path: Path, prediction: str) -> tuple[list, Path, list[str]]:
    """Six maze rows, a CSV path for them, and its lines (header first) with ``prediction`` in every row."""
    rows = [row for row in references.rows if row.task == "maze"][:6]
    # "id" first, so a byte-order mark sticks to it; the index column is reversed, so rows placed by it are wrong
    lines = ["id,index,prediction", *(f"{row.id},{len(rows) - 1 - i},{prediction}" for i, row in enumerate(rows))]
    return rows, tmp_path / "m_VGAU_maze_direct.csv", lines


def test_convert__a_csv_with_a_byte_order_mark_converts(
    real_dataset: Path, real_references: ReferenceSet, tmp_path: Path
) -> None:
    rows, path, lines = _maze_csv(real_references, tmp_path, '"<ANSWER_JSON>[""up""]</ANSWER_JSON>"')
    path.write_bytes(b"\xef\xbb\xbf" + "\r\n".join(lines).encode() + b"\r\n")
    submission, _ = convert("vlmevalkit", [path], real_references, model="m")
    assert [r.id for r in submission.records] == [row.id for row in rows]
    assert submission.records[0].output == '<ANSWER_JSON>["up"]</ANSWER_JSON>'


def test_convert__a_csv_with_an_unclosed_quote_is_an_error_not_a_short_file(
    real_dataset: Path, real_references: ReferenceSet, tmp_path: Path
) -> None:
    _, path, lines = _maze_csv(real_references, tmp_path, "up")
    lines[1] = lines[1].replace(",up", ',"up')  # the quote never closes: the rest would fold into one cell
    path.write_text("\n".join(lines) + "\n")
    _convert_cli(real_dataset, tmp_path, "vlmevalkit", path).assert_one_line_error(
        "line 2: not a readable table (unexpected end of data; a quote opened in this row never closes?)"
    )
    lines[1] = lines[1] + ",extra"
    path.write_text("\n".join(lines).replace('"', "") + "\n")
    _convert_cli(real_dataset, tmp_path, "vlmevalkit", path).assert_one_line_error("line 2: 4 cells under a header of 3")
