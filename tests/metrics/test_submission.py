"""The submission format: reader, writer, and agreement with the shipped JSON Schema."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import jsonschema
import pytest

from tests.bounded import gzip_bomb
from vgau_data.errors import SubmissionError
from vgau_data.metrics import submission_schema_path
from vgau_data.metrics.submission import (
    MIB,
    Submission,
    SubmissionHeader,
    SubmissionLimits,
    SubmissionRecord,
    base_protocol,
    header_problems,
    order_protocols,
    read_submission,
    record_problems,
    write_submission,
)

FINGERPRINT = "ab" * 32
HEADER = {
    "vgau_submission": 1,
    "model": "m",
    "harness": "h 1.0",
    "dataset": {"source": "vgau/puzzles", "revision": None, "fingerprint": FINGERPRINT},
    "settings": {"temperature": 0.0},
}
RECORD = {"id": "maze-easy-0000", "protocol": "direct", "run": 0, "output": "<ANSWER_JSON>[]</ANSWER_JSON>"}


def lines(*objs: object) -> list[str]:
    return [json.dumps(obj) for obj in objs]


@pytest.fixture(scope="module")
def validator() -> jsonschema.Draft202012Validator:
    schema = json.loads(Path(submission_schema_path()).read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


GOOD_HEADERS = [
    HEADER,
    {**HEADER, "created": "2026-11-29T12:00:00Z", "notes": "n"},
    {k: v for k, v in HEADER.items() if k != "settings"},
    {**HEADER, "dataset": {"source": "./local", "fingerprint": FINGERPRINT}},
]
BAD_HEADERS = [
    {**HEADER, "vgau_submission": 2},
    {**HEADER, "vgau_submission": True},
    {**HEADER, "model": ""},
    {**HEADER, "harness": 3},
    {**HEADER, "extra": 1},
    {**HEADER, "settings": []},
    {**HEADER, "dataset": {"source": "x", "fingerprint": "AB" * 32}},
    {**HEADER, "dataset": {"source": "x", "fingerprint": "ab" * 31}},
    {**HEADER, "dataset": {"source": "x"}},
    {**HEADER, "dataset": {"source": "", "fingerprint": FINGERPRINT}},
    {**HEADER, "dataset": {"source": "x", "fingerprint": FINGERPRINT, "revision": 5}},
    {**HEADER, "dataset": {"source": "x", "fingerprint": FINGERPRINT, "branch": "main"}},
    {k: v for k, v in HEADER.items() if k != "model"},
    [HEADER],
]
GOOD_RECORDS = [
    RECORD,
    {**RECORD, "output": None},
    {**RECORD, "output": ""},
    {**RECORD, "run": 2, "protocol": "oracle_vcot_fixed", "id": "klotski-hard-0049"},
    {**RECORD, "meta": {"tokens": 12}},
    {**RECORD, "protocol": "my_probe2"},
    {**RECORD, "id": "sokoban_000"},  # the authors' ids, kept by build --from-paper
    {**RECORD, "id": "maze_0007"},
]
BAD_RECORDS = [
    {**RECORD, "id": ""},
    {**RECORD, "id": "../maze-easy-0001"},
    {**RECORD, "id": "maze easy 1"},
    {**RECORD, "id": "m" * 101},
    {**RECORD, "id": 7},
    {**RECORD, "protocol": "Direct"},
    {**RECORD, "protocol": "text-cot"},
    {**RECORD, "run": -1},
    {**RECORD, "run": 1000},
    {**RECORD, "run": "0"},
    {**RECORD, "run": True},
    {**RECORD, "run": 0.5},
    {**RECORD, "output": 3},
    {**RECORD, "output": ["a"]},
    {**RECORD, "meta": "x"},
    {**RECORD, "outptu": "typo"},
    {k: v for k, v in RECORD.items() if k != "output"},
    "just a string",
]


@pytest.mark.parametrize("obj", GOOD_HEADERS)
def test_header__valid_ones_pass_both_checks(obj: dict, validator: jsonschema.Draft202012Validator) -> None:
    assert header_problems(obj) == []
    assert validator.is_valid(obj)


@pytest.mark.parametrize("obj", BAD_HEADERS)
def test_header__invalid_ones_fail_both_checks(obj: object, validator: jsonschema.Draft202012Validator) -> None:
    assert header_problems(obj)
    assert not validator.is_valid(obj)


@pytest.mark.parametrize("obj", GOOD_RECORDS)
def test_record__valid_ones_pass_both_checks(obj: dict, validator: jsonschema.Draft202012Validator) -> None:
    assert record_problems(obj) == []
    assert validator.is_valid(obj)


@pytest.mark.parametrize("obj", BAD_RECORDS)
def test_record__invalid_ones_fail_both_checks(obj: object, validator: jsonschema.Draft202012Validator) -> None:
    assert record_problems(obj)
    assert not validator.is_valid(obj)


def test_read__round_trips_through_write(tmp_path: Path) -> None:
    records = (
        SubmissionRecord("maze-easy-0000", "direct", 0, 'text "quoted"\n\u00e9\udc80 lone surrogate'),
        SubmissionRecord("maze-easy-0001", "text_cot", 1, None, {"tokens": 3}),
    )
    header = SubmissionHeader("m", "h", "vgau/puzzles", FINGERPRINT, "deadbeef", {"t": 1})
    for name in ("sub.jsonl", "sub.jsonl.gz"):
        path = write_submission(tmp_path / name, Submission(header, records))
        back = read_submission(path)
        assert back.header == header
        assert back.records == records
    with gzip.open(tmp_path / "sub.jsonl.gz") as written:
        assert written.readline().startswith(b'{"vgau_submission": 1')


def test_read__names_the_duplicate_lines() -> None:
    message = r"line 4: duplicate of line 2 \(id=maze-easy-0000, protocol=direct, run=0\)"
    with pytest.raises(SubmissionError, match=message):
        read_submission(lines(HEADER, RECORD, {**RECORD, "run": 1}, {**RECORD, "output": "other"}))


def test_read__same_id_in_other_protocol_or_run_is_no_duplicate() -> None:
    sub = read_submission(lines(HEADER, RECORD, {**RECORD, "run": 1}, {**RECORD, "protocol": "text_cot"}))
    assert len(sub.records) == 3
    assert sub.protocols() == ["direct", "text_cot"]
    assert sub.runs("direct") == [0, 1]


def test_read__runs_are_zero_to_the_highest_present() -> None:
    sub = read_submission(lines(HEADER, {**RECORD, "run": 2}))
    assert sub.runs("direct") == [0, 1, 2]


@pytest.mark.parametrize(
    ("text_lines", "message"),
    [
        ([], "empty file"),
        (lines(RECORD), r"line 1 \(header\): header lacks 'vgau_submission'"),
        (lines(HEADER, HEADER), "line 2: a second header"),
        ([json.dumps(HEADER), "{not json"], "line 2: not valid JSON"),
        ([json.dumps(HEADER), b"\xff\xfe"], "line 2: not UTF-8"),
        (lines(HEADER, {**RECORD, "run": -3}), "line 2: run must be an integer"),
        ([json.dumps(HEADER), "[" * 100_000 + "]" * 100_000], "line 2: nested more than 64 levels deep"),
        ([json.dumps(HEADER), "[" * 500 + "]" * 500], "line 2: nested more than 64 levels deep"),
        ([json.dumps({**HEADER, "settings": {"temperature": float("nan")}}), json.dumps(RECORD)],
         r"line 1: not valid JSON \(NaN is not JSON\)"),
        ([json.dumps(HEADER), json.dumps({**RECORD, "meta": {"t": float("-inf")}})], "-Infinity is not JSON"),
        ([json.dumps(HEADER), '{"run": ' + "9" * 5000 + "}"], "line 2: not valid JSON"),
    ],
)
def test_read__rejects_with_the_line_number(text_lines: list, message: str) -> None:
    with pytest.raises(SubmissionError, match=message):
        read_submission(text_lines)


def test_read__lists_many_problems_but_caps_the_message() -> None:
    bad = [json.dumps(HEADER)] + [json.dumps({**RECORD, "id": f"bad {i}"}) for i in range(50)]
    with pytest.raises(SubmissionError) as info:
        read_submission(bad)
    text = str(info.value)
    assert "50 problem(s)" in text
    assert "line 2:" in text
    assert "... and 30 more" in text


def test_read__missing_file_is_a_submission_error(tmp_path: Path) -> None:
    with pytest.raises(SubmissionError, match="does not exist"):
        read_submission(tmp_path / "nope.jsonl")


def test_order_protocols__known_first_in_table_order_variants_after_their_base() -> None:
    names = ["self_vr", "b_probe", "oracle_vcot_fixed", "direct", "a_probe", "oracle_vcot_x2", "oracle_gta"]
    names += ["oracle_vcot", "noise_gta", "self_gta_decontextualized"]
    assert order_protocols(names) == [
        "direct",
        "self_gta_decontextualized",
        "self_vr",
        "oracle_gta",
        "oracle_vcot",
        "oracle_vcot_x2",
        "oracle_vcot_fixed",
        "a_probe",
        "b_probe",
        "noise_gta",  # the diagnostics are pairs under the self_* names, not protocols of their own
    ]


def test_base_protocol__longest_known_prefix() -> None:
    assert base_protocol("oracle_vcot_fixed_cap40") == "oracle_vcot_fixed"
    assert base_protocol("oracle_vcotx") is None
    assert base_protocol("text_cot") == "text_cot"


# ------------------------------------------------------------------ limits (issue 10)


@pytest.mark.parametrize(
    ("limits", "text_lines", "message"),
    [
        (SubmissionLimits(max_protocols=2), lines(HEADER, RECORD, {**RECORD, "protocol": "a"}, {**RECORD, "protocol": "b"}),
         "line 4: protocol 'b' is protocol number 3, over the limit of 2 (raise it with --max-protocols)"),
        (SubmissionLimits(max_runs=3), lines(HEADER, RECORD, {**RECORD, "run": 999}),
         "line 3: run 999 of 'direct' means 1000 runs (runs are 0..k-1), over the limit of 3 (raise it with --max-runs)"),
        (SubmissionLimits(max_lines=3), lines(HEADER, RECORD) + ["", ""], "line 4: more than 3 lines (raise the limit with --max-lines)"),
        (SubmissionLimits(max_line_mb=1), lines(HEADER, {**RECORD, "output": "x" * MIB}),
         "line 2: longer than 1 MiB (raise the limit with --max-line-mb)"),
    ],
)
def test_read__refuses_past_a_limit_naming_the_line(limits: SubmissionLimits, text_lines: list, message: str) -> None:
    with pytest.raises(SubmissionError, match="^submission: " + message.replace("(", r"\(").replace(")", r"\)").replace(".", r"\.")):
        read_submission(text_lines, limits=limits)


def test_read__at_the_limits_is_accepted() -> None:
    limits = SubmissionLimits(max_protocols=2, max_runs=3, max_lines=4, max_line_mb=1)
    sub = read_submission(lines(HEADER, {**RECORD, "run": 2}, {**RECORD, "protocol": "a", "output": "x" * (MIB - 80)}), limits=limits)
    assert sub.protocols() == ["direct", "a"] and sub.runs("direct") == [0, 1, 2]


def test_limits__must_be_positive_integers() -> None:
    with pytest.raises(ValueError, match="max_runs must be a positive integer"):
        SubmissionLimits(max_runs=0)


def test_read__file_size_is_checked_before_reading(tmp_path: Path) -> None:
    path = tmp_path / "big.jsonl"
    path.write_bytes(b"\n" * (MIB + 1))
    with pytest.raises(SubmissionError, match=r"the file is 1\.0 MiB, over the limit of 1 MiB \(raise it with --max-file-mb\)"):
        read_submission(path, limits=SubmissionLimits(max_file_mb=1))


def test_read__decompression_stops_at_the_data_limit(tmp_path: Path) -> None:
    header = (json.dumps(HEADER) + "\n").encode()
    bomb = gzip_bomb(tmp_path / "bomb.jsonl.gz", header, b" " * MIB + b"\n", repeat=3)
    with pytest.raises(SubmissionError, match=r"line 4: the submission decompresses to more than 2 MiB \(raise the limit with --max-data-mb\)"):
        read_submission(bomb, limits=SubmissionLimits(max_data_mb=2))


@pytest.mark.parametrize(
    ("name", "data", "message"),
    [
        ("plain.jsonl.gz", json.dumps(HEADER).encode() + b"\n", "not a gzip file, though its name ends in .gz"),
        ("packed.jsonl", gzip.compress(json.dumps(HEADER).encode()), "the file is gzip-compressed; name it .jsonl.gz"),
        ("cut.jsonl.gz", gzip.compress((json.dumps(HEADER) + "\n").encode() * 50)[:-30], r"line 31: the gzip data is corrupt \(Compressed file ended"),
        ("noise.jsonl.gz", b"\x1f\x8b" + bytes(range(256)) * 4, "line 1: the gzip data is corrupt"),
    ],
)
def test_read__broken_gzip_is_a_submission_error(tmp_path: Path, name: str, data: bytes, message: str) -> None:
    path = tmp_path / name
    path.write_bytes(data)
    with pytest.raises(SubmissionError, match=message):
        read_submission(path)


def test_read__problems_past_the_shown_ones_are_counted_not_kept() -> None:
    with pytest.raises(SubmissionError) as caught:
        read_submission(lines(HEADER) + ["{"] * 100_000)
    message = str(caught.value)
    assert "100000 problem(s)" in message and "... and 99980 more" in message and len(message) < 5000
