"""Argument checking shared by every subcommand, and text that reaches the terminal (issue 10)."""

from __future__ import annotations

import argparse
import logging
from pathlib import Path

import pytest

from vgau_data.cli import main
from vgau_data.cli.args import fraction, non_negative_float, non_negative_int, output_dir, output_file, positive_int
from vgau_data.terminal import terminal_safe


@pytest.mark.parametrize(
    ("check", "text", "expected"),
    [(positive_int, "3", 3), (non_negative_int, "0", 0), (non_negative_float, "0.7", 0.7), (fraction, "1", 1.0)],
)
def test_types__accept_good_values(check, text: str, expected: object) -> None:
    assert check(text) == expected


@pytest.mark.parametrize(
    ("check", "text", "message"),
    [
        (positive_int, "0", "must be at least 1, got 0"),
        (positive_int, "-5", "must be at least 1, got -5"),
        (positive_int, "2.5", "expected an integer, got '2.5'"),
        (non_negative_int, "-1", "must be 0 or more, got -1"),
        (non_negative_float, "nan", "expected a finite number, got 'nan'"),
        (non_negative_float, "-inf", "expected a finite number"),
        (non_negative_float, "-0.1", "must be 0 or more"),
        (fraction, "0", "more than 0 and at most 1"),
        (fraction, "1.5", "more than 0 and at most 1"),
    ],
)
def test_types__refuse_bad_values_with_the_reason(check, text: str, message: str) -> None:
    with pytest.raises(argparse.ArgumentTypeError, match=message):
        check(text)


def test_paths__a_folder_is_not_a_file_and_a_file_is_not_a_folder(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("x")
    assert output_dir(str(tmp_path / "new" / "deeper")) == str(tmp_path / "new" / "deeper")
    with pytest.raises(argparse.ArgumentTypeError, match="is a file, not a folder"):
        output_dir(str(tmp_path / "file"))
    with pytest.raises(argparse.ArgumentTypeError, match="lies under .* which is a file"):
        output_dir(str(tmp_path / "file" / "sub"))
    with pytest.raises(argparse.ArgumentTypeError, match="is a folder; give a file name"):
        output_file(str(tmp_path))


def test_terminal_safe__escapes_controls_bidi_and_surrogates_but_keeps_layout() -> None:
    assert terminal_safe("a\x1b]0;pwned\x07b\r\u202ec\ud800\td\n") == "a\\x1b]0;pwned\\x07b\\x0d\\u202ec\\ud800\td\n"
    assert terminal_safe(terminal_safe("\x1b[31m")) == "\\x1b[31m"


def _one_line_error(capsys: pytest.CaptureFixture[str], *fragments: str) -> None:
    captured = capsys.readouterr()
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1 and ": error: " in lines[0] and "Traceback" not in captured.err, captured.err
    for fragment in fragments:
        assert fragment in lines[0]


@pytest.mark.parametrize(
    ("args", "fragment"),
    [
        (["build", "--out", "{file}"], "argument --out: '{file}' is a file, not a folder"),
        (["build", "--out", "{tmp}/x", "--counts", "-1", "0", "5"], "argument --counts: must be 0 or more, got -1"),
        (["build", "--out", "{tmp}/x", "--seed", "-5"], "argument --seed: must be 0 or more, got -5"),
        (["build", "--out", "{tmp}/x", "--workers", "0"], "argument --workers: must be at least 1, got 0"),
        (["run", "--model", "m", "--protocol", "direct", "--out", "{tmp}/r", "--runs", "0"], "argument --runs"),
        (["run", "--model", "m", "--protocol", "direct", "--out", "{tmp}/r", "--max-new-tokens", "-5"],
         "argument --max-new-tokens: must be at least 1, got -5"),
        (["run", "--model", "m", "--protocol", "direct", "--out", "{tmp}/r", "--temperature", "nan"],
         "argument --temperature: expected a finite number, got 'nan'"),
        (["run", "--model", "m", "--protocol", "direct", "--out", "{tmp}/r", "--top-p", "0"], "argument --top-p"),
        (["run", "--model", "m", "--protocol", "direct", "--out", "{file}"], "is a file, not a folder"),
        (["score", "s.jsonl", "--dataset", "d", "--max-runs", "0"], "argument --max-runs: must be at least 1"),
        (["score", "s.jsonl", "--dataset", "d", "--out", "{tmp}"], "is a folder; give a file name"),
        (["baseline", "--kind", "oracle", "--dataset", "d", "--out", "o.jsonl", "--runs", "0"], "argument --runs"),
        (["merge", "--out", "{file}"], "is a file, not a folder"),
    ],
)
def test_cli__bad_arguments_are_one_line_errors_with_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], args: list[str], fragment: str
) -> None:
    file = tmp_path / "a-file"
    file.write_text("x")
    fill = {"{file}": str(file), "{tmp}": str(tmp_path)}
    for key, value in fill.items():
        args = [arg.replace(key, value) for arg in args]
        fragment = fragment.replace(key, value)
    assert main(args) == 2
    _one_line_error(capsys, fragment, f"vgau-data {args[0]}: error:", "--help")


def test_cli__log_lines_are_escaped() -> None:
    from vgau_data.cli import _TerminalSafeFormatter

    record = logging.makeLogRecord({"msg": "dataset %s", "args": ("x\x1b[2Jy",), "levelname": "WARNING"})
    assert _TerminalSafeFormatter("%(levelname)s %(message)s").format(record) == "WARNING dataset x\\x1b[2Jy"
