"""The HTTP reward server under bursts of concurrent and hostile requests: each is answered or refused, bounded."""

from __future__ import annotations

import http.client
import json
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest

from vgau_data.rewards.server import RewardServer, ServerLimits, serve

LIMITS = ServerLimits(max_body_bytes=64 * 1024, request_timeout_s=1.0, max_connections=4, max_samples=50)
PROMPT = "<|im_start|>user\nSolve it.<|im_end|>\n<|im_start|>assistant\n"


@pytest.fixture()
def server() -> Iterator[RewardServer]:
    running = serve("127.0.0.1", 0, limits=LIMITS)
    thread = threading.Thread(target=running.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    yield running
    running.shutdown()
    running.server_close()


def _post(server: RewardServer, body: bytes, headers: dict[str, str] | None = None, path: str = "/get_reward",
          timeout: float = 5.0) -> tuple[int, dict[str, Any]]:  # fmt: skip
    host, port = server.server_address[:2]
    connection = http.client.HTTPConnection(host, port, timeout=timeout)
    try:
        connection.request("POST", path, body=body, headers={"Content-Type": "application/json", **(headers or {})})
        reply = connection.getresponse()
        return reply.status, json.loads(reply.read() or b"{}")
    finally:
        connection.close()


def _payload(rows: list[dict[str, Any]]) -> bytes:
    return json.dumps({"query": [PROMPT + row["answer"] for row in rows], "prompts": [PROMPT] * len(rows),
                       "labels": [row["state"] for row in rows]}).encode()  # fmt: skip


def test_openrlhfs_payload__is_scored(server: RewardServer, reward_rows: list[dict[str, Any]]) -> None:
    status, reply = _post(server, _payload(reward_rows))
    assert status == 200 and reply["rewards"] == [1.0] * len(reward_rows) == reply["scores"]
    assert set(reply["extra_logs"]) == {"vgau_parsed", "vgau_feasible", "vgau_optimal"}
    host, port = server.server_address[:2]
    connection = http.client.HTTPConnection(host, port, timeout=5)
    connection.request("GET", "/health")
    assert json.loads(connection.getresponse().read())["kind"] == "optimal"


@pytest.mark.parametrize(
    ("body", "headers", "status", "message"),
    [
        (b"{not json", {}, 400, "not valid JSON"),
        (b"[" * 60_000, {}, 400, "nested more than 64"),  # nesting far past the recursion limit
        (b'["a list"]', {}, 400, "JSON object"),
        (b'{"query": "x", "prompts": [], "labels": []}', {}, 400, "must each be a list"),
        (b'{"query": ["a"], "prompts": [], "labels": []}', {}, 422, "one each per sample"),
        (json.dumps({"query": ["a"] * 51, "prompts": ["b"] * 51, "labels": ["c"] * 51}).encode(), {}, 413, "samples"),
        (b'{"query": ["a"], "prompts": ["b"], "labels": ["{\\"q\\": 1}"]}', {}, 422, "no vgau_data family"),
    ],
)
def test_hostile_bodies__are_refused_with_a_reason(
    server: RewardServer, body: bytes, headers: dict[str, str], status: int, message: str
) -> None:
    got, reply = _post(server, body, headers)
    assert got == status and message in reply["error"]


def test_oversized_and_unsized_bodies__are_refused_before_they_are_read(server: RewardServer) -> None:
    host, port = server.server_address[:2]
    with socket.create_connection((host, port), timeout=5) as sock:
        sock.sendall(b"POST /get_reward HTTP/1.1\r\nHost: x\r\nContent-Length: 500000000\r\n\r\n")
        start = time.monotonic()
        head = sock.recv(4096)
        assert head.startswith(b"HTTP/1.1 413") and time.monotonic() - start < 1.0
    with socket.create_connection((host, port), timeout=5) as sock:
        sock.sendall(b"POST /get_reward HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n")
        assert sock.recv(4096).startswith(b"HTTP/1.1 411")
    assert _post(server, b"{}", path="/elsewhere")[0] == 404


def _slow_sender(server: RewardServer, header_only: bool) -> float:
    """Trickle a request one byte every 0.2 s; return the seconds until the server hung up."""
    host, port = server.server_address[:2]
    data = b"POST /get_reward HTTP/1.1\r\nHost: x\r\n" if header_only else (
        b"POST /get_reward HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\n" + b"x" * 1000)  # fmt: skip
    start = time.monotonic()
    with socket.create_connection((host, port), timeout=5) as sock:
        try:
            for byte in data:
                sock.sendall(bytes([byte]))
                time.sleep(0.2)
                if time.monotonic() - start > 10:
                    break
            sock.recv(1)
        except OSError:  # reset by the server: it hung up
            pass
    return time.monotonic() - start


def test_slow_senders__are_cut_off_at_the_deadline_and_busy_slots_refuse_with_503(
    server: RewardServer, reward_rows: list[dict[str, Any]]
) -> None:
    with ThreadPoolExecutor(max_workers=LIMITS.max_connections) as pool:
        slow = [pool.submit(_slow_sender, server, header_only=i % 2 == 0) for i in range(LIMITS.max_connections)]
        time.sleep(0.3)  # every slot is now held by a slow sender
        status, reply = _post(server, _payload(reward_rows[:1]))
        assert status == 503 and "connection limit" in reply["error"]
        durations = [future.result() for future in slow]
    assert all(duration < LIMITS.request_timeout_s + 1.0 for duration in durations), durations
    assert _post(server, _payload(reward_rows[:1]))[0] == 200  # the slots came back
    assert server.refused_busy >= 1


def test_a_burst_of_concurrent_requests__each_is_answered_200_or_503(
    server: RewardServer, reward_rows: list[dict[str, Any]]
) -> None:
    body = _payload(reward_rows)

    def one(_: int) -> int:
        try:
            return _post(server, body, timeout=5)[0]
        except (ConnectionError, http.client.HTTPException):
            return 503  # refused while the accept queue was full
    start = time.monotonic()
    with ThreadPoolExecutor(max_workers=32) as pool:
        statuses = list(pool.map(one, range(64)))
    assert set(statuses) <= {200, 503} and statuses.count(200) >= LIMITS.max_connections
    assert time.monotonic() - start < 30


def test_cli__serves_on_loopback_by_default_and_refuses_bad_options(reward_rows: list[dict[str, Any]]) -> None:
    bad = subprocess.run([sys.executable, "-m", "vgau_data", "serve-reward", "--kind", "accuracy"],
                         capture_output=True, text=True, timeout=60)  # fmt: skip
    assert bad.returncode == 2 and "accuracy" in bad.stderr and "Traceback" not in bad.stderr
    process = subprocess.Popen([sys.executable, "-m", "vgau_data", "serve-reward", "--port", "0", "--kind", "format"],
                               stdout=subprocess.PIPE, text=True)  # fmt: skip
    try:
        line = process.stdout.readline() if process.stdout else ""
        assert "http://127.0.0.1:" in line and "(format)" in line
        port = int(line.split("http://127.0.0.1:")[1].split("/")[0])
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        connection.request("POST", "/get_reward", body=_payload(reward_rows[:2]))
        assert json.loads(connection.getresponse().read())["rewards"] == [1.0, 1.0]
    finally:
        process.terminate()
        process.wait(timeout=10)
