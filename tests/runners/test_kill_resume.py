"""A run killed with SIGKILL mid-way and rerun loses nothing, duplicates nothing, and scores the same."""

from __future__ import annotations

import hashlib
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from vgau_data.cli import main
from vgau_data.safe_io import TEMP_SUFFIX

ROOT = Path(__file__).resolve().parents[2]
PROTOCOLS = ("text_cot", "oracle_vcot")


def _episode_lines(out: Path) -> list[dict]:
    lines = []
    for path in sorted(out.glob("*/records/*/run-*.jsonl")):
        for raw in path.read_bytes().split(b"\n")[1:]:
            try:
                lines.append(json.loads(raw))
            except ValueError:
                continue  # empty or torn last line
    return lines


def _results(out: Path) -> dict:
    (model_dir,) = [p for p in out.iterdir() if p.is_dir()]
    ((_, body),) = json.loads((model_dir / "results.json").read_text()).items()
    return {p: (r["optimal_accuracy"], r["feasible_accuracy"], r["n"]) for p, r in body.items() if p != "META"}


def _run_args(out: Path, dataset_dir: Path, url: str, *protocols: str) -> list[str]:
    return [
        "run",
        "--dataset",
        str(dataset_dir),
        "--out",
        str(out),
        "--no-progress",
        "--backend",
        "openai",
        "--base-url",
        url,
        "--model",
        "served",
        "--protocol",
        *protocols,
        "--batch-size",
        "2",
        "--concurrency",
        "2",
    ]


def _start(args: list[str]) -> subprocess.Popen:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
    return subprocess.Popen(
        [sys.executable, "-m", "vgau_data", *args], cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )


def _wait_for_lines(process: subprocess.Popen, out: Path, count: int) -> None:
    deadline = time.monotonic() + 90
    while len(_episode_lines(out)) < count:
        assert process.poll() is None, process.stderr.read().decode() if process.stderr else ""
        assert time.monotonic() < deadline, "the run wrote no records in time"
        time.sleep(0.02)


def _kill_after(args: list[str], out: Path, count: int) -> None:
    """Start ``vgau-data`` with ``args`` and SIGKILL it once ``count`` records are written."""
    process = _start(args)
    try:
        _wait_for_lines(process, out, count)
        os.kill(process.pid, signal.SIGKILL)
    finally:
        process.communicate(timeout=30)
    assert process.returncode == -signal.SIGKILL


def test_kill__sigkill_mid_run_then_rerun_loses_and_duplicates_nothing(
    oracle_server, dataset_dir, instances, tmp_path, capsys
) -> None:
    server = oracle_server(delay_s=0.03)
    out = tmp_path / "killed"
    args = _run_args(out, dataset_dir, server.url, *PROTOCOLS)
    _kill_after(args, out, 4)
    total = len(PROTOCOLS) * len(instances)
    before = _episode_lines(out)
    assert 4 <= len(before) < total

    # merge after the kill: the unfinished rows count as missing, exactly as `score` counts them, and it says so
    assert main(["merge", "--out", str(out)]) == 1
    printed = capsys.readouterr()
    assert "incomplete: text_cot:" in printed.out and "--allow-incomplete" in printed.err
    (model_dir,) = [p for p in out.iterdir() if p.is_dir()]
    merged = json.loads((model_dir / "results.json").read_text())
    assert (
        main(
            [
                "score",
                str(model_dir / "submission.jsonl"),
                "--dataset",
                str(dataset_dir),
                "--out",
                str(tmp_path / "scored.json"),
            ]
        )
        == 0
    )
    scored = json.loads((tmp_path / "scored.json").read_text())
    ((_, merged_body),), ((_, scored_body),) = merged.items(), scored.items()
    for protocol, result in scored_body.items():
        if protocol != "META":
            assert merged_body[protocol]["missing"] == result["missing"]
            assert merged_body[protocol]["optimal_accuracy"] == result["optimal_accuracy"]
    assert sum(sum(r["missing"]) for p, r in merged_body.items() if p != "META") == total - len(before)
    assert set(merged_body) - {"META"} == set(PROTOCOLS)  # oracle_vcot had not started: still reported
    assert main(["merge", "--out", str(out), "--allow-incomplete"]) == 0

    assert main(args) == 0
    after = _episode_lines(out)
    keys = [line["key"] for line in after]
    assert len(keys) == len(set(keys)) == total  # nothing lost, nothing written twice
    assert {line["key"] for line in before} <= set(keys)
    assert not any(line["error"] for line in after)

    fresh = tmp_path / "fresh"
    assert main([*args[:4], str(fresh), *args[5:]]) == 0
    assert _results(out) == _results(fresh)
    outputs = {(line["protocol"], line["id"]): line["output"] for line in after}
    assert outputs == {(line["protocol"], line["id"]): line["output"] for line in _episode_lines(fresh)}


def test_merge__refuses_while_a_run_is_writing_and_loses_nothing(
    oracle_server, dataset_dir, instances, tmp_path, capsys
) -> None:
    server = oracle_server(delay_s=0.03)
    out = tmp_path / "live"
    process = _start(_run_args(out, dataset_dir, server.url, "direct", "text_cot"))
    try:
        _wait_for_lines(process, out, 2)
        assert main(["merge", "--out", str(out)]) == 2
        assert "is still writing records here" in capsys.readouterr().err
    finally:
        stdout, stderr = process.communicate(timeout=90)
    assert process.returncode == 0, stderr.decode()
    reported = int(stdout.decode().split(" episodes run")[0].rsplit("\n", 1)[-1])
    assert reported == len(_episode_lines(out)) == 2 * len(instances)
    assert main(["merge", "--out", str(out)]) == 0


def test_kill__a_self_generation_run_killed_and_rerun_generates_no_image_twice(
    oracle_server, dataset_dir, instances, tmp_path
) -> None:
    """A pair (our oracle images, a served model answering) under self_vcot and self_gta, killed with SIGKILL."""
    server = oracle_server(delay_s=0.03)
    out = tmp_path / "killed"
    answerer = json.dumps({"base_url": server.url, "concurrency": 2})
    args = [
        "run", "--dataset", str(dataset_dir), "--out", str(out), "--no-progress", "--backend", "pair",
        "--generator", "scripted-image", "--generator-model", "oracle", "--backend-arg", "answerer=openai",
        "--backend-arg", f"answerer_options={answerer}", "--model", "served", "--protocol", "self_vcot", "self_gta",
        "--runs", "1", "--batch-size", "2",
    ]  # fmt: skip
    _kill_after(args, out, 3)
    before = _episode_lines(out)
    (model_dir,) = [p for p in out.iterdir() if p.is_dir()]
    index = model_dir / "images" / "generated.jsonl"
    generated_before = [json.loads(line) for line in index.read_text().splitlines() if line.endswith("}")]
    assert 3 <= len(before) < 2 * len(instances) and generated_before
    finished = {f"{line['id']}/{line['protocol']}/run0" for line in before}
    interrupted = {entry["session"] for entry in generated_before} - finished
    assert interrupted, "the kill caught an episode after it had images and before its record"
    torn = model_dir / "images" / "ab" / f".{'ab' * 32}.png.x1y2{TEMP_SUFFIX}"  # as a kill mid-write leaves it
    torn.parent.mkdir(exist_ok=True)
    torn.write_bytes(b"\x89PNG half")

    assert main(args) == 0
    assert not list((model_dir / "images").rglob(f"*{TEMP_SUFFIX}")), "the rerun removed the killed run's temporary files"
    after = _episode_lines(out)
    keys = [line["key"] for line in after]
    assert len(keys) == len(set(keys)) == 2 * len(instances)  # nothing lost, nothing written twice
    assert all(line["verdict"]["optimal"] for line in after)
    generated = [json.loads(line)["key"] for line in index.read_text().splitlines()]
    assert generated[: len(generated_before)] == [entry["key"] for entry in generated_before]
    images = [image for line in after for image in line["images"]]
    assert len(generated) == len(set(generated)) == len(images), "each image the records hold was made exactly once"
    reused = {entry["sha256"] for entry in generated_before if entry["session"] in interrupted}
    replayed = {
        i["sha256"] for line in after if f"{line['id']}/{line['protocol']}/run0" in interrupted for i in line["images"]
    }
    assert reused <= replayed, "the interrupted episodes were replayed from the stored images"
    for image in images:
        path = model_dir / "images" / image["sha256"][:2] / f"{image['sha256']}.png"
        assert hashlib.sha256(path.read_bytes()).hexdigest() == image["sha256"]
