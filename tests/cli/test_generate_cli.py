"""``vgau-data generate`` on the command line: a table of what it made, one-line errors."""

from __future__ import annotations

import socket
import time
from pathlib import Path

import pytest

from vgau_data.cli import main


def test_generate_prints_each_band_and_writes_the_folder(tmp_path: Path, capsys) -> None:
    out = tmp_path / "out"
    assert main(["generate", "--families", "onet", "--n", "3", "--lengths", "4-5", "--shard-rows", "2",
                 "--workers", "1", "--no-progress", "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "onet/train        4-5            3" in printed
    assert sorted(p.name for p in (out / "onet").iterdir()) == ["train-00000-of-00002.parquet",
                                                                 "train-00001-of-00002.parquet"]


@pytest.mark.parametrize(("arguments", "message"), [
    (["--lengths", "9-3"], "1 <= LO <= HI"),
    (["--lengths", "11-11"], "onet generates no optimal length in 11-11"),
    (["--split", "test"], "--split must be one of train, validation, validation_ood"),
    (["--prompt", "self_vr"], "--prompt must be one of text_cot, direct, oracle_gta"),
    (["--traces", "nope"], "unknown trace kind"),
    (["--families", "chess"], "unknown family"),
    (["--benchmark-style"], "--benchmark-style needs --render-variety"),
    (["--split", "validation_ood", "--render-variety"], "drop --render-variety"),
])
def test_bad_arguments_are_one_line_errors(tmp_path: Path, capsys, arguments: list[str], message: str) -> None:
    base = ["generate", "--families", "onet", "--n", "3", "--no-progress", "--out", str(tmp_path / "o")]
    assert main(base + arguments) == 2
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1


def test_the_total_is_printed_first_and_an_absurd_total_is_refused(tmp_path: Path, capsys) -> None:
    huge = ["generate", "--families", "maze", "parking", "--n", str(10**12), "--out", str(tmp_path / "huge")]
    assert main(huge) == 2
    err = capsys.readouterr().err
    assert "6,000,000,000,000 rows in all (maze 3 bands, parking 3 bands)" in err and len(err.splitlines()) == 1
    assert not (tmp_path / "huge").exists()
    small = ["generate", "--families", "maze", "--n", "1", "--lengths", "2-3", "--out", str(tmp_path / "small"),
             "--no-progress", "--workers", "1"]
    assert main(small) == 0
    assert capsys.readouterr().out.startswith("1 rows in all: --n 1 per family and band (maze 1 band)")


def test_a_ray_that_cannot_start_is_one_line_with_ray_shut_down_and_the_manifest_untouched(
    tmp_path: Path, capsys, monkeypatch
) -> None:
    ray = pytest.importorskip("ray")
    out = tmp_path / "made"
    base = ["generate", "--families", "maze", "--n", "1", "--lengths", "2-3", "--out", str(out), "--no-progress"]
    assert main([*base, "--workers", "1"]) == 0
    manifest = (out / "manifest.json").read_bytes()
    calls = []

    def failing_init(**kwargs) -> None:
        calls.append("init")
        raise RuntimeError("Failed to start the dashboard\nTraceback (most recent call last): ...")

    monkeypatch.setattr(ray, "is_initialized", lambda: False)
    monkeypatch.setattr(ray, "init", failing_init)
    monkeypatch.setattr(ray, "shutdown", lambda: calls.append("shutdown"))
    more = ["generate", "--families", "sokoban", "--n", "1", "--lengths", "2-3", "--out", str(out), "--no-progress"]
    assert main([*more, "--engine", "ray"]) == 2
    err = capsys.readouterr().err
    assert err.strip().splitlines() == [
        "vgau-data generate: error: --engine ray could not start a local Ray cluster: Failed to start the dashboard"]
    assert calls == ["init", "shutdown"]
    assert (out / "manifest.json").read_bytes() == manifest


@pytest.mark.parametrize("address", ["closed", "ray://closed", "no-port-here"])
def test_a_ray_address_nothing_answers_at_is_one_line_in_seconds(tmp_path: Path, capsys, address: str) -> None:
    """``ray.init`` retries a dead address for minutes; a TCP probe first makes it one line within seconds."""
    pytest.importorskip("ray")
    with socket.socket() as probe:  # a port nothing listens on: bound, then released
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    address = address.replace("closed", f"127.0.0.1:{port}")
    out = tmp_path / "made"
    started = time.monotonic()
    assert main(["generate", "--families", "maze", "--n", "1", "--lengths", "2-3", "--out", str(out), "--no-progress",
                 "--engine", "ray", "--ray-address", address]) == 2  # fmt: skip
    assert time.monotonic() - started < 20
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and ("nothing answers at" in err[0] or "expected host:port" in err[0])
    assert not list(out.rglob("*.parquet"))
