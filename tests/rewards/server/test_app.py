"""The reward server as OpenRLHF and a hostile client meet it: each request answered, refused with a reason, or cut off."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from tests.rewards.server.conftest import health, payload, post
from vgau_data.rewards.server.launch import Launched


def test_openrlhfs_payload__is_scored_and_every_log_is_a_number(
    server: Launched, reward_rows: list[dict[str, Any]]
) -> None:
    status, reply, headers = post(server, payload(reward_rows[:8], [row["answer"] for row in reward_rows[:4]]
                                                  + ["I give up."] * 4))  # fmt: skip
    assert status == 200 and headers["content-type"] == "application/json"  # aiohttp's response.json() checks it
    assert reply["rewards"] == [1.0] * 4 + [0.0] * 4 == reply["scores"]
    assert reply["extra_logs"] == {"vgau_parsed": [1.0] * 4 + [0.0] * 4, "vgau_feasible": [1.0] * 4 + [0.0] * 4,
                                   "vgau_optimal": [1.0] * 4 + [0.0] * 4, "vgau_over_budget": [0.0] * 8}  # fmt: skip
    assert health(server)["kind"] == "optimal" and len(health(server)["workers"]) == 2


@pytest.mark.parametrize(
    ("body", "status", "message"),
    [
        (b"{not json", 400, "not valid JSON"),
        (b"[" * 100 + b"]" * 100, 400, "nested more than 64"),
        (b"[" * 60_000, 413, "JSON values"),  # nesting far past the recursion limit: counted first
        (b'["a list"]', 400, "JSON object"),
        (b'{"query": "x", "prompts": [], "labels": []}', 400, "must each be a list"),
        (b'{"query": ["a"], "prompts": [], "labels": []}', 422, "one each per sample"),
        (json.dumps({"query": ["a"] * 51, "prompts": ["b"] * 51, "labels": ["c"] * 51}).encode(), 413, "samples"),
        (b'{"query": ["a"], "prompts": ["b"], "labels": ["{\\"q\\": 1}"]}', 422, "no vgau_data family"),
        (b"[" + b"[]," * 900 + b"[]]", 413, "more than 864 JSON values"),  # 16 per sample (--max-samples 50) + 64
        (b'{"query": ["a"], "prompts": ["b"], "labels": [NaN]}', 400, "not valid JSON"),  # NaN is not JSON
        (b'{"query": ["\xff"], "prompts": ["b"], "labels": ["c"]}', 400, "not valid UTF-8"),
    ],
)
def test_hostile_bodies__are_refused_with_a_reason(server: Launched, body: bytes, status: int, message: str) -> None:
    got, reply, headers = post(server, body)
    assert got == status and message in reply["error"] and headers["connection"] == "close"


def test_oversized_and_unsized_bodies__are_refused_before_they_are_read(server: Launched) -> None:
    with socket.create_connection(("127.0.0.1", server.port), timeout=10) as sock:
        sock.sendall(b"POST /get_reward HTTP/1.1\r\nHost: x\r\nContent-Length: 500000000\r\n\r\n")
        start = time.monotonic()
        assert sock.recv(4096).startswith(b"HTTP/1.1 413") and time.monotonic() - start < 2.0
    with socket.create_connection(("127.0.0.1", server.port), timeout=10) as sock:
        sock.sendall(b"POST /get_reward HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n")
        assert sock.recv(4096).startswith(b"HTTP/1.1 411")
    assert post(server, b"{}", path="/elsewhere")[0] == 404


@pytest.mark.parametrize("part", ["headers", "body"])
def test_a_trickling_request__is_cut_off_at_the_read_deadline(server: Launched, part: str) -> None:
    """--read-timeout 2: a request that has not arrived whole 2 s after its connection is dropped, whatever it sends."""
    data = b"POST /get_reward HTTP/1.1\r\nHost: x\r\n" + (b"Content-Length: 100\r\n\r\n" if part == "body" else b"")
    with socket.create_connection(("127.0.0.1", server.port), timeout=0.2) as sock:
        sock.sendall(data)
        start = time.monotonic()
        while time.monotonic() - start < 8:  # a byte every 0.2 s until the server hangs up
            try:
                sock.sendall(b"x")
                if sock.recv(1) == b"":
                    break
            except TimeoutError:
                continue
            except OSError:  # reset: it hung up
                break
        assert 1.5 < time.monotonic() - start < 4.0


def test_cli__serves_on_loopback_by_default_and_refuses_bad_options(server: Launched) -> None:
    bad = subprocess.run([sys.executable, "-m", "vgau_data", "serve-reward", "--kind", "accuracy"],
                         capture_output=True, text=True, timeout=60, check=False)  # fmt: skip
    assert bad.returncode == 2 and "accuracy" in bad.stderr and "Traceback" not in bad.stderr
    taken = subprocess.run([sys.executable, "-m", "vgau_data", "serve-reward", "--port", str(server.port)],
                           capture_output=True, text=True, timeout=60, check=False)  # fmt: skip
    assert taken.returncode == 2 and "Traceback" not in taken.stderr and taken.stderr.count("\n") == 1
    assert server.url.startswith("http://127.0.0.1:") and server.url.endswith("/get_reward")


def test_a_worker_past_the_deadline__is_killed_and_replaced(server: Launched, reward_rows: list[dict[str, Any]]) -> None:
    """--timeout 5: a worker that does not reply (stopped here with SIGSTOP) is killed at the deadline (+1 s grace)."""
    stuck = health(server)["workers"]
    for pid in stuck:
        os.kill(pid, signal.SIGSTOP)
    try:
        start = time.monotonic()
        status, reply, _ = post(server, payload(reward_rows[:1]))
        took = time.monotonic() - start
    finally:
        for pid in stuck:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGCONT)
    assert status == 504 and "stopped and replaced" in reply["error"] and 5.0 <= took < 8.0
    end = time.monotonic() + 60
    while health(server)["replaced"] < 1 and time.monotonic() < end:
        time.sleep(0.1)
    now = health(server)["workers"]
    assert len(now) == 2 and len(set(now) - set(stuck)) == 1
    killed = (set(stuck) - set(now)).pop()
    assert not Path(f"/proc/{killed}").exists()  # killed and reaped, not left computing
    assert post(server, payload(reward_rows[:1]))[0] == 200
