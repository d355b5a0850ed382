"""`vgau-data diagnose` on run folders someone else made: links out, special files, huge
requests, wrong types, forged caches. Each probe is bounded (tests/bounded.py: 5 s, 1 GB)
and ends in a one-line error or a correct report."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from tests.bounded import run_cli_bounded


@pytest.fixture
def runs(image_runs: Path, tmp_path: Path) -> Path:
    """A private copy of ``image_runs`` to spoil."""
    return Path(shutil.copytree(image_runs, tmp_path / "runs", symlinks=True))


def _folder(runs: Path, prefix: str) -> Path:
    (folder,) = [p for p in runs.iterdir() if p.name.startswith(prefix)]
    return folder


def _images(runs: Path) -> list[Path]:
    return sorted((_folder(runs, "scripted-image-") / "images").glob("*/*.png"))


def _records(runs: Path, prefix: str = "oracle-", variant: str = "text_cot") -> Path:
    return _folder(runs, prefix) / "records" / variant / "run-0.jsonl"


def _diagnose(runs: Path, *extra: str):
    return run_cli_bounded(["diagnose", str(runs), "--no-progress", "--width", "300", *extra])


def test_diagnose__the_unspoiled_folder_reads(runs: Path) -> None:
    done = _diagnose(runs, "--measures", "cells")
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
    assert "1.00" in done.stdout


@pytest.mark.parametrize(
    ("spoil", "message"),
    [
        (lambda p: p.symlink_to("/dev/zero"), "leads outside"),
        (lambda p: os.mkfifo(p), "not a regular file (a FIFO)"),
        (
            lambda p: p.write_bytes(b"%!PS-Adobe-3.0\n" + b"0 0 moveto\n" * 100),
            "not a PNG, WebP or JPEG image (PostScript)",
        ),
    ],
    ids=["dev-zero", "fifo", "postscript"],
)
def test_diagnose__a_special_or_foreign_image_is_named_and_left_unmeasured(runs: Path, spoil, message: str) -> None:
    image = _images(runs)[0]
    image.unlink()
    spoil(image)
    done = _diagnose(runs, "--measures", "cells")
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
    assert "could not be measured" in done.stderr and message in done.stderr


@pytest.mark.parametrize(
    ("spoil", "message"),
    [
        (lambda p: p.unlink() or p.symlink_to("/dev/zero"), "leads outside"),
        (lambda p: p.unlink() or os.mkfifo(p), "not a regular file (a FIFO)"),
        (lambda p: os.truncate(p, 300 << 20), "over the limit of 268,435,456 bytes"),  # sparse: nothing is read
    ],
    ids=["dev-zero", "fifo", "300MB"],
)
def test_diagnose__a_special_or_huge_records_file_is_one_line(runs: Path, spoil, message: str) -> None:
    spoil(_records(runs))
    _diagnose(runs).assert_one_line_error(message)


def _rewrite(path: Path, change) -> None:
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    path.write_text("".join(json.dumps(obj) + "\n" for obj in change(lines)))


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (
            lambda ls: [ls[0], *({k: v for k, v in e.items() if k != "key"} for e in ls[1:])],
            "line 2: the record lacks 'key'",
        ),
        (
            lambda ls: [ls[0], *({k: v for k, v in e.items() if k != "id"} for e in ls[1:])],
            "line 2: the record lacks 'id'",
        ),
        (lambda ls: [{**ls[0], "protocol": ["text_cot"]}, *ls[1:]], "'protocol' must be an object or null, got list"),
        (lambda ls: [{**ls[0], "dataset": {"source": {"a": 1}}}, *ls[1:]], "'dataset.source' must be a string or null"),
        (lambda ls: [ls[0], {**ls[1], "id": ["maze-easy-0000"]}], "'id' must be a string, got list"),
        (lambda ls: [ls[0], {**ls[1], "verdict": "yes"}], "'verdict' must be an object or null, got string"),
        (lambda ls: [ls[0], {**ls[1], "output": {"a": [1]}}], "'output' must be a string or null, got object"),
    ],
    ids=["no-key", "no-id", "protocol-list", "source-object", "id-list", "verdict-string", "output-object"],
)
def test_diagnose__records_of_the_wrong_types_are_one_line(runs: Path, change, message: str) -> None:
    _rewrite(_records(runs), change)
    _diagnose(runs).assert_one_line_error(str(_records(runs)), message)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda r: {**r, "runs": 10**6}, "'runs' must be between 1 and 100, got 1000000"),
        (lambda r: {**r, "rows": [["maze-easy-0000", "maze"]]}, "'rows[0]' has 2 items; it must have 3"),
        (lambda r: {**r, "rows": [[1, 2, 3]]}, "'rows[0][0]' must be a string, got integer 1"),
        (lambda r: {**r, "variants": "text_cot"}, "'variants' must be a list, got string"),
        (lambda r: {**r, "rows": [["x", "maze", "easy"]] * 100_001}, "'rows' has 100,001 items"),
        (lambda r: {**r, "rows": [[f"maze-easy-{i}", "maze", "easy"] for i in range(20_000)], "runs": 100},
         "20,000 rows x 100 runs asks for more than 200,000 episodes"),
    ],
    ids=["million-runs", "short-row", "int-row", "variants-string", "too-many-rows", "rows-times-runs"],
)
def test_diagnose__a_hostile_requests_log_is_one_line(runs: Path, change, message: str) -> None:
    path = _folder(runs, "oracle-") / "records" / "requested.jsonl"
    _rewrite(path, lambda lines: [change(lines[0])])
    _diagnose(runs).assert_one_line_error("requested.jsonl: line 1", message)


def test_diagnose__a_forged_or_mistyped_cache_is_never_printed(runs: Path) -> None:
    first = _diagnose(runs, "--measures", "cells")
    assert first.returncode == 0, first.stderr
    cache = _folder(runs, "scripted-image-") / "fidelity.jsonl"
    lines = [json.loads(line) for line in cache.read_text().splitlines()]
    forged = [{**line, "cell_agreement": 0.123, "ssim": 0.123} for line in lines]
    mistyped = [{**line, "cell_agreement": "high"} for line in lines]
    cache.write_text("".join(json.dumps(line) + "\n" for line in [*forged, *mistyped]))
    again = _diagnose(runs, "--measures", "cells")
    assert again.returncode == 0 and "Traceback" not in again.stderr, again.stderr
    assert again.stdout == first.stdout and "0.12" not in again.stdout
    assert f"{2 * len(lines)} line(s) not sealed by this machine" in again.stderr


def test_diagnose__requests_adding_up_to_too_much_scoring_are_one_line(runs: Path) -> None:
    path = _folder(runs, "oracle-") / "records" / "requested.jsonl"
    rows = [[f"maze-easy-{i}", "maze", "easy"] for i in range(2000)]
    path.write_text("".join(json.dumps({"variants": [f"v{k}"], "runs": 100, "rows": rows}) + "\n" for k in range(3)))
    _diagnose(runs).assert_one_line_error("requests add up to 600,000 episodes, more than 400,000")


def test_diagnose__a_records_file_of_too_many_episode_lines_is_one_line(runs: Path) -> None:
    path = _records(runs)
    header, episode = path.read_text().splitlines()[:2]
    line = json.loads(episode)
    path.write_text(header + "\n" + "".join(json.dumps({**line, "key": f"{i:064x}"}) + "\n" for i in range(20_001)))
    _diagnose(runs).assert_one_line_error("line 20002: more than 20,000 episode lines in one file")
