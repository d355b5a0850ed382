"""vgau-data score / baseline / publish-metric / convert, called through main([...])."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.bounded import gzip_bomb, run_cli_bounded
from vgau_data.cli import main
from vgau_data.metrics.baselines import oracle_output
from vgau_data.metrics.references import ReferenceSet
from vgau_data.metrics.results import score_submission
from vgau_data.metrics.submission import MIB, read_submission, submission_lines


@pytest.fixture()
def oracle_file(scoring_dataset: Path, tmp_path: Path) -> Path:
    out = tmp_path / "oracle.jsonl"
    assert main(["baseline", "--kind", "oracle", "--dataset", str(scoring_dataset), "--out", str(out),
                 "--protocols", "direct", "text_cot"]) == 0
    return out


def test_score__results_json_equals_the_python_api(
    scoring_dataset: Path,
    references: ReferenceSet,
    oracle_file: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    results = tmp_path / "results.json"
    assert main(["score", str(oracle_file), "--dataset", str(scoring_dataset), "--out", str(results)]) == 0
    written = json.loads(results.read_text(encoding="utf-8"))
    assert written == json.loads(json.dumps(score_submission(read_submission(oracle_file), references)))
    printed = capsys.readouterr().out
    assert "baseline-oracle: optimal accuracy (%)" in printed and "baseline-oracle: feasible accuracy (%)" in printed
    rows = [line for line in printed.splitlines() if line.startswith(("direct ", "text_cot "))]
    assert len(rows) == 4
    assert all(line.count("100.0") == 3 * len(references.families) + 1 for line in rows)


def test_score__missing_rows_lower_the_printed_score(
    scoring_dataset: Path,
    references: ReferenceSet,
    oracle_file: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    lines = oracle_file.read_text(encoding="utf-8").splitlines()
    kept = [lines[0]] + [line for line in lines[1:] if "-hard-" not in line]
    partial = tmp_path / "partial.jsonl"
    partial.write_text("\n".join(kept) + "\n", encoding="utf-8")
    results = tmp_path / "results.json"
    assert main(["score", str(partial), "--dataset", str(scoring_dataset), "--out", str(results)]) == 0
    direct = json.loads(results.read_text())["baseline-oracle"]["direct"]
    n_hard = sum(r.difficulty == "hard" for r in references.rows)
    assert direct["optimal_accuracy"] == pytest.approx(1 - n_hard / len(references.rows))
    assert direct["errors"] == {"missing": n_hard}
    out = capsys.readouterr().out
    assert f"warning: direct: {n_hard} missing row(s)" in out
    assert "| 100.0 100.0   0.0 |" in out


def test_score__duplicates_exit_2_naming_the_lines(
    scoring_dataset: Path, oracle_file: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    lines = oracle_file.read_text(encoding="utf-8").splitlines()
    bad = tmp_path / "dup.jsonl"
    bad.write_text("\n".join(lines + [lines[3]]) + "\n", encoding="utf-8")
    assert main(["score", str(bad), "--dataset", str(scoring_dataset)]) == 2
    assert f"line {len(lines) + 1}: duplicate of line 4" in capsys.readouterr().err


def test_score__unknown_ids_exit_2_naming_them(
    scoring_dataset: Path, oracle_file: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    extra = json.dumps({"id": "maze-hard-0777", "protocol": "direct", "run": 0, "output": ""})
    bad = tmp_path / "unknown.jsonl"
    bad.write_text(oracle_file.read_text(encoding="utf-8") + extra + "\n", encoding="utf-8")
    assert main(["score", str(bad), "--dataset", str(scoring_dataset)]) == 2
    assert "1 id(s) are not rows of the dataset" in (err := capsys.readouterr().err) and "maze-hard-0777" in err


def test_score__wrong_fingerprint_exit_2_unless_allowed(
    scoring_dataset: Path,
    references: ReferenceSet,
    oracle_file: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    submission = read_submission(oracle_file)
    text = "\n".join(submission_lines(submission)).replace(references.fingerprint, "f" * 64, 1)
    bad = tmp_path / "fp.jsonl"
    bad.write_text(text + "\n", encoding="utf-8")
    assert main(["score", str(bad), "--dataset", str(scoring_dataset)]) == 2
    err = capsys.readouterr().err
    assert "f" * 64 in err and references.fingerprint in err and "--allow-fingerprint-mismatch" in err
    assert main(["score", str(bad), "--dataset", str(scoring_dataset), "--allow-fingerprint-mismatch"]) == 0
    assert "warning: submission fingerprint" in capsys.readouterr().out


def test_score__families_subset_and_details(
    scoring_dataset: Path, oracle_file: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    results, details = tmp_path / "r.json", tmp_path / "d.jsonl"
    assert main(["score", str(oracle_file), "--dataset", str(scoring_dataset), "--families", "maze", "path",
                 "--out", str(results), "--details", str(details)]) == 0
    body = json.loads(results.read_text())["baseline-oracle"]
    assert body["META"]["families"] == ["maze", "path"]
    assert list(body["direct"]["per_family"]) == ["maze", "path"]
    verdicts = [json.loads(line) for line in details.read_text().splitlines()]
    assert {v["task"] for v in verdicts} == {"maze", "path"}
    assert len(verdicts) == 2 * body["direct"]["n"]


def test_score__subset_scores_answered_rows_only_and_labels_them(
    scoring_dataset: Path, oracle_file: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    lines = oracle_file.read_text(encoding="utf-8").splitlines()
    kept = [lines[0]] + [line for line in lines[1:] if json.loads(line)["id"].endswith("-0000")]
    partial = tmp_path / "partial.jsonl"
    partial.write_text("\n".join(kept) + "\n", encoding="utf-8")
    outs = {}
    for flag in ([], ["--subset"]):
        out = tmp_path / f"r{len(flag)}.json"
        assert main(["score", str(partial), "--dataset", str(scoring_dataset), "--out", str(out), *flag]) == 0
        outs[bool(flag)] = (json.loads(out.read_text())["baseline-oracle"], capsys.readouterr().out)
    (full, full_text), (subset, subset_text) = outs[False], outs[True]
    answered = full["direct"]["coverage"]["answered"][0]
    rows = full["direct"]["coverage"]["rows"]
    assert 0 < answered < rows
    assert full["direct"]["optimal_accuracy"] == pytest.approx(answered / rows) and not full["META"]["subset"]
    assert subset["direct"]["optimal_accuracy"] == 1.0 and subset["META"]["subset"] is True
    assert f"{answered}/{rows}" in full_text and f"{answered}/{rows}" in subset_text
    assert "subset" not in full_text.splitlines()[0] and "not comparable" in subset_text.splitlines()[0]


def test_score__plot_writes_one_png_per_protocol(scoring_dataset: Path, oracle_file: Path, tmp_path: Path) -> None:
    pytest.importorskip("matplotlib")
    plots = tmp_path / "plots"
    assert main(["score", str(oracle_file), "--dataset", str(scoring_dataset), "--plot", "--plot-dir", str(plots)]) == 0
    pngs = sorted(p.name for p in plots.iterdir())
    assert pngs == ["baseline-oracle_direct.png", "baseline-oracle_text_cot.png"]
    assert (plots / pngs[0]).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_score__bad_dataset_path_exit_2(oracle_file: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["score", str(oracle_file), "--dataset", str(tmp_path)]) == 2
    assert "build the dataset first" in capsys.readouterr().err


def test_baseline__empty_scores_zero_through_the_cli(
    scoring_dataset: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out, results = tmp_path / "empty.jsonl.gz", tmp_path / "r.json"
    dataset = str(scoring_dataset)
    assert main(["baseline", "--kind", "empty", "--dataset", dataset, "--out", str(out), "--runs", "3"]) == 0
    assert main(["score", str(out), "--dataset", str(scoring_dataset), "--out", str(results)]) == 0
    direct = json.loads(results.read_text())["baseline-empty"]["direct"]
    assert (direct["optimal_accuracy"], direct["runs"], direct["optimal_accuracy_std"]) == (0.0, 3, 0.0)


@pytest.mark.parametrize("dataset", ["no/such/thing", "nope.parquet", "vgau/not-a-cached-repo"])
def test_score__unreachable_dataset_exit_2(
    oracle_file: Path, dataset: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    import huggingface_hub.constants

    monkeypatch.setattr(huggingface_hub.constants, "HF_HUB_OFFLINE", True)
    assert main(["score", str(oracle_file), "--dataset", dataset]) == 2
    err = capsys.readouterr().err
    assert dataset in err and ("neither a built folder" in err or "could not get the dataset repo" in err)


# ------------------------------------------------------------------ hostile submissions (issue 10), bounded


def header_line(references: ReferenceSet) -> str:
    return json.dumps({"vgau_submission": 1, "model": "m", "harness": "h",
                       "dataset": {"source": "x", "fingerprint": references.fingerprint}})


def record_line(row_id: str, protocol: str = "direct", run: int = 0, output: str = "") -> str:
    return json.dumps({"id": row_id, "protocol": protocol, "run": run, "output": output})


@pytest.mark.parametrize(
    ("run", "fragments"),
    [
        (999, ["line 2: run 999 of 'p0' means 1000 runs", "--max-runs"]),  # the probe: 300 lines, 22 KB
        (0, ["line 34: protocol 'p32' is protocol number 33, over the limit of 32", "--max-protocols"]),
    ],
)
def test_score__a_new_protocol_per_line_is_refused_at_the_limit_naming_the_line(
    scoring_dataset: Path, references: ReferenceSet, tmp_path: Path, run: int, fragments: list[str]
) -> None:
    row_id = references.rows[0].id
    path = tmp_path / "protocols.jsonl"
    path.write_text("\n".join([header_line(references)] + [record_line(row_id, f"p{i}", run) for i in range(300)]) + "\n")
    run_cli_bounded(["score", str(path), "--dataset", str(scoring_dataset)]).assert_one_line_error(*fragments)


def test_score__every_protocol_and_run_the_limits_allow_scores_in_time(
    scoring_dataset: Path, references: ReferenceSet, tmp_path: Path
) -> None:
    row_id = references.rows[0].id
    lines = [header_line(references)] + [record_line(row_id, f"p{i}", run) for i in range(32) for run in range(10)]
    path, results = tmp_path / "full.jsonl", tmp_path / "results.json"
    path.write_text("\n".join(lines) + "\n")
    done = run_cli_bounded(["score", str(path), "--dataset", str(scoring_dataset), "--out", str(results)])
    assert done.returncode == 0, done.stderr
    body = json.loads(results.read_text())["m"]
    assert len(body) == 33 and body["p31"]["runs"] == 10


@pytest.mark.parametrize(
    ("name", "members", "repeat", "message"),
    [
        ("zeros", [b"\0" * MIB], 4000, "line 1: longer than 8 MiB"),
        ("newlines", [b"\n" * MIB], 4000, "line 500001: more than 500000 lines"),
        ("blank_lines", [b" " * MIB + b"\n"], 4000, "line 257: the submission decompresses to more than 256 MiB"),
        ("long_output", [b'{"id": "maze-easy-0000", "protocol": "direct", "run": 0, "output": "' + b"u" * MIB * 9], 1,
         "line 2: longer than 8 MiB"),
    ],
)
def test_score__gzip_bombs_stop_at_the_limits(
    scoring_dataset: Path, references: ReferenceSet, tmp_path: Path, name: str, members: list, repeat: int, message: str
) -> None:
    header = (header_line(references) + "\n").encode()
    path = tmp_path / f"{name}.jsonl.gz"
    path.write_bytes(gzip.compress(header) if name != "zeros" else b"")
    path.write_bytes(path.read_bytes() + gzip_bomb(tmp_path / "b.gz", *members, repeat=repeat).read_bytes())
    assert path.stat().st_size < 10 * MIB
    run_cli_bounded(["score", str(path), "--dataset", str(scoring_dataset)]).assert_one_line_error(message)


def test_score__a_bomb_of_distinct_big_records_stays_in_memory_bounds(
    scoring_dataset: Path, references: ReferenceSet, tmp_path: Path
) -> None:
    ids = [row.id for row in references.rows]
    members = [(header_line(references) + "\n").encode()] + [
        (record_line(ids[i % len(ids)], f"p{i // len(ids)}", 0, "u" * (4 * MIB - 100)) + "\n").encode() for i in range(70)
    ]
    path = gzip_bomb(tmp_path / "big.jsonl.gz", *members, repeat=1, level=1)
    run_cli_bounded(["score", str(path), "--dataset", str(scoring_dataset)]).assert_one_line_error(
        "decompresses to more than 256 MiB"
    )


@pytest.mark.parametrize(
    ("name", "data", "message"),
    [
        ("fake.jsonl.gz", b'{"vgau_submission": 1}\n', "not a gzip file, though its name ends in .gz"),
        ("cut.jsonl.gz", gzip.compress(b"x" * 100_000)[:50], "the gzip data is corrupt"),
        ("packed.jsonl", gzip.compress(b"{}"), "the file is gzip-compressed"),
    ],
)
def test_score__a_broken_gzip_is_a_one_line_error(
    scoring_dataset: Path, tmp_path: Path, name: str, data: bytes, message: str
) -> None:
    path = tmp_path / name
    path.write_bytes(data)
    run_cli_bounded(["score", str(path), "--dataset", str(scoring_dataset)]).assert_one_line_error(message)


def test_score__limits_can_be_raised_by_flags(scoring_dataset: Path, references: ReferenceSet, tmp_path: Path) -> None:
    row_id = references.rows[0].id
    path = tmp_path / "many.jsonl"
    path.write_text("\n".join([header_line(references)] + [record_line(row_id, f"p{i}", 11) for i in range(40)]) + "\n")
    assert main(["score", str(path), "--dataset", str(scoring_dataset)]) == 2
    assert main(["score", str(path), "--dataset", str(scoring_dataset), "--max-protocols", "40", "--max-runs", "12"]) == 0


def test_score__escape_sequences_in_the_model_name_are_not_printed_raw(
    scoring_dataset: Path, references: ReferenceSet, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "ansi.jsonl"
    header = header_line(references).replace('"model": "m"', '"model": "m\\u001b]0;pwned\\u0007\\u001b[2J\\u202e"')
    path.write_text(header + "\n" + record_line(references.rows[0].id) + "\n")
    assert main(["score", str(path), "--dataset", str(scoring_dataset)]) == 0
    out = capsys.readouterr().out
    assert "\x1b" not in out and "\x07" not in out and "\u202e" not in out
    assert "m\\x1b]0;pwned\\x07\\x1b[2J\\u202e: optimal accuracy (%)" in out


# ------------------------------------------------------------------ fuzz: whole submission files through the CLI

FUZZ_PROTOCOLS = ["direct", "text_cot", "oracle_vcot_fixed", "zz_probe"]


@st.composite
def submission_files(draw: st.DrawFn, references: ReferenceSet) -> bytes:
    """Whole submission files: a valid or broken header, then record lines, junk and blanks.

    Half the files are well formed (outputs still arbitrary), so both scoring and refusal get exercised.
    """
    rows = references.rows
    broken = draw(st.integers(0, 3)) == 2  # not 0: hypothesis favours boundary values

    def mostly(draw: st.DrawFn, usual: st.SearchStrategy, rare: st.SearchStrategy) -> object:
        return draw(rare if broken and draw(st.integers(0, 5)) == 3 else usual)

    junk = st.one_of(st.just(""), st.just("{"), st.just("[1, 2]"), st.text(max_size=30),
                     st.binary(max_size=30).map(lambda b: b.decode("latin-1")), st.just(header_line(references)))
    header = mostly(draw, st.sampled_from([header_line(references), header_line(references).replace('"m"', '"\\u001b[31mm\\u202e"')]),
                    st.one_of(st.just('{"vgau_submission": 2}'), junk))
    lines, keys = [header], set()
    for _ in range(draw(st.integers(0, 12))):
        obj = {
            "id": mostly(draw, st.sampled_from([r.id for r in rows]), st.sampled_from(["maze-hard-9999", 7])),
            "protocol": draw(st.sampled_from(FUZZ_PROTOCOLS)),
            "run": mostly(draw, st.integers(0, 3), st.sampled_from([10, 999, "0", -1])),
            "output": draw(st.one_of(st.none(), st.text(max_size=40), st.sampled_from(rows).map(oracle_output),
                                     st.sampled_from(["", "<ANSWER_JSON>[\"up\"]</ANSWER_JSON>", "\x1b[2J\u202e"]))),
        }
        if broken and draw(st.integers(0, 9)) == 4:
            obj[draw(st.sampled_from(["meta", "extra"]))] = draw(st.sampled_from([{"k": 1}, "x"]))
        key = (obj["id"], obj["protocol"], obj["run"])
        if broken or key not in keys:
            keys.add(key)
            lines.append(mostly(draw, st.just(json.dumps(obj)), junk))
    return ("\n".join(lines) + draw(st.sampled_from(["", "\n"]))).encode("utf-8", "surrogatepass")


def test_score__fuzzed_submission_files_score_or_fail_in_one_error(
    scoring_dataset: Path, references: ReferenceSet, tmp_path_factory: pytest.TempPathFactory
) -> None:
    folder = tmp_path_factory.mktemp("fuzz")

    @settings(max_examples=40, deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow])
    @given(data=submission_files(references), packed=st.booleans())
    def check(data: bytes, packed: bool) -> None:
        path = folder / ("s.jsonl.gz" if packed else "s.jsonl")
        path.write_bytes(gzip.compress(data) if packed else data)
        results = folder / "results.json"
        results.unlink(missing_ok=True)
        code = main(["score", str(path), "--dataset", str(scoring_dataset), "--out", str(results)])
        assert code in (0, 2)
        if code == 0:
            submission = read_submission(path)
            ((model, body),) = json.loads(results.read_text()).items()
            assert model == submission.header.model
            for protocol in submission.protocols():
                result = body[protocol]
                assert result["runs"] == len(submission.runs(protocol))
                assert 0 <= result["optimal_accuracy"] <= result["feasible_accuracy"] <= result["parse_rate"] <= 1
                present = [sum(r.protocol == protocol and r.run == run for r in submission.records)
                           for run in submission.runs(protocol)]
                assert result["missing"] == [len(references.rows) - n for n in present]

    check()


# ------------------------------------------------------------------ failed writes and odd headers (issue 19)


def test_score__a_full_disk_keeps_the_old_results_and_exits_2(
    oracle_file: Path, scoring_dataset: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch
) -> None:
    import errno
    import os

    results = tmp_path / "out" / "results.json"
    assert main(["score", str(oracle_file), "--dataset", str(scoring_dataset), "--out", str(results)]) == 0
    before = results.read_bytes()
    capsys.readouterr()

    def full(fd: int) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(os, "fsync", full)
    assert main(["score", str(oracle_file), "--dataset", str(scoring_dataset), "--out", str(results),
                 "--details", str(tmp_path / "out" / "details.jsonl")]) == 2  # fmt: skip
    (line,) = capsys.readouterr().err.strip().splitlines()
    assert "results.json: could not write it whole (No space left on device)" in line
    assert results.read_bytes() == before and [p.name for p in results.parent.iterdir()] == ["results.json"]


def test_score__non_finite_settings_in_a_header_are_refused_not_written(
    scoring_dataset: Path, references: ReferenceSet, tmp_path: Path
) -> None:
    header = json.loads(header_line(references))
    path = tmp_path / "nan.jsonl"
    for value in ("NaN", "Infinity", "-Infinity"):
        text = json.dumps({**header, "settings": {"temperature": 0.5}}).replace("0.5", value)
        path.write_text(text + "\n" + record_line(references.rows[0].id) + "\n")
        done = run_cli_bounded(["score", str(path), "--dataset", str(scoring_dataset), "--out", str(tmp_path / "r.json")])
        assert done.returncode == 2 and "Traceback" not in done.stderr
        assert done.stderr.count("problem(s)") == 1 and f"  line 1: not valid JSON ({value} is not JSON)" in done.stderr
        assert "line 2" not in done.stderr
    assert not (tmp_path / "r.json").exists()
