"""The issue's attacks on a real server, each with its outcome: slow senders, solver bombs, a list bomb, a crowd.

Each test is bounded in time (every client call has a timeout) and reads the server's
process tree (parent, workers, multiprocessing's tracker) from /proc.
"""

from __future__ import annotations

import asyncio
import json
import resource
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Self

import pytest

from tests.rewards.server.conftest import (
    PROMPT,
    exchange,
    health,
    parking_bomb,
    payload,
    post,
    tree,
    tree_cpu_s,
    tree_rss_mb,
)
from vgau_data.rewards.server.launch import Launched, launched

READ_TIMEOUT_S = 2.0
HONEST_S = 2.0
"""The most an honest one-answer request may take in any of these tests."""


@pytest.fixture(scope="module")
def crowded() -> Iterator[Launched]:
    """Default limits but a short read deadline and fewer connections than the crowd test opens."""
    with launched("--workers", "2", "--read-timeout", str(READ_TIMEOUT_S), "--max-connections", "400") as running:
        yield running


class PeakRss:
    """The process tree's largest RSS while the block runs, sampled every 50 ms."""

    def __init__(self, pids: list[int]) -> None:
        self.pids, self.peak_mb, self._stop = pids, 0.0, threading.Event()
        self._thread = threading.Thread(target=self._sample, daemon=True)

    def _sample(self) -> None:
        while not self._stop.wait(0.05):
            self.peak_mb = max(self.peak_mb, tree_rss_mb(self.pids))

    def __enter__(self) -> Self:
        self.peak_mb = tree_rss_mb(self.pids)
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join(timeout=5)


def _timed_post(server: Launched, body: bytes) -> tuple[int, float, dict[str, Any]]:
    start = time.monotonic()
    status, reply, _ = post(server, body, timeout=60)
    return status, time.monotonic() - start, reply


def test_forty_trickling_connections__do_not_starve_twenty_honest_requests(
    crowded: Launched, reward_rows: list[dict[str, Any]]
) -> None:
    honest = payload(reward_rows[:1])

    async def trickle(stop: asyncio.Event, cuts: list[float]) -> None:
        """One byte a second of an endless header; reconnect when cut off (an attacker would)."""
        while not stop.is_set():
            opened = time.monotonic()
            try:
                reader, writer = await asyncio.open_connection("127.0.0.1", crowded.port)
                writer.write(b"POST /get_reward HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ")
                while not stop.is_set():
                    await asyncio.sleep(1.0)
                    if reader.at_eof() or writer.transport.is_closing():
                        break
                    writer.write(b"a")
                    await writer.drain()
            except OSError:  # the server closed it
                pass
            else:
                writer.close()
            if not stop.is_set():
                cuts.append(time.monotonic() - opened)

    async def scenario() -> tuple[list[tuple[int, float]], list[float]]:
        stop, cuts = asyncio.Event(), []
        attackers = [asyncio.create_task(trickle(stop, cuts)) for _ in range(40)]
        await asyncio.sleep(1.0)  # every attacker holds a connection
        timings = []
        for _ in range(20):  # one every 0.25 s, across more than two read deadlines
            start = time.monotonic()
            status, _ = await exchange(crowded.port, honest, timeout=30)
            timings.append((status, time.monotonic() - start))
            await asyncio.sleep(0.25)
        stop.set()
        await asyncio.wait_for(asyncio.gather(*attackers), timeout=10)
        return timings, cuts

    timings, cuts = asyncio.run(scenario())
    latencies = sorted(took for _, took in timings)
    print(f"honest p50 {latencies[10]:.3f} s, max {latencies[-1]:.3f} s; {len(cuts)} attacker connections cut")
    assert [status for status, _ in timings] == [200] * 20
    assert latencies[-1] < HONEST_S  # the p99 of 20 is their slowest
    assert len(cuts) >= 40 and max(cuts) < READ_TIMEOUT_S + 2.5  # each was cut at the read deadline, then came back


def test_a_57_mb_body_of_empty_lists__is_refused_in_bounded_memory_and_the_next_request_is_served(
    crowded: Launched, reward_rows: list[dict[str, Any]]
) -> None:
    bomb = b"[" + b"[]," * 19_000_000 + b"[]]"  # 57 MB: 19M values, each a list object once parsed
    pids = tree(crowded.process.pid)
    with PeakRss(pids) as memory:
        start = time.monotonic()
        status, reply, _ = post(crowded, bomb, timeout=15)
        took = time.monotonic() - start
    del bomb
    growth = memory.peak_mb - tree_rss_mb(pids)
    print(f"57 MB list body: {status} in {took:.2f} s, process tree grew {growth:.0f} MB at most")
    assert status == 413 and "JSON values" in reply["error"] and took < 15
    assert growth < 300
    status, honest_took, _ = _timed_post(crowded, payload(reward_rows[:1]))
    assert status == 200 and honest_took < HONEST_S


def test_a_thousand_concurrent_connections__each_get_200_or_503_within_a_minute(
    crowded: Launched, reward_rows: list[dict[str, Any]]
) -> None:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < 1200:
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, 4096), hard))
    body = payload(reward_rows[:1])

    async def crowd() -> list[tuple[int, dict[str, str]]]:
        return await asyncio.gather(*(exchange(crowded.port, body, timeout=60) for _ in range(1000)))

    start = time.monotonic()
    replies = asyncio.run(crowd())
    took = time.monotonic() - start
    statuses = [status for status, _ in replies]
    print(f"1000 connections in {took:.1f} s: {statuses.count(200)} x 200, {statuses.count(503)} x 503")
    assert set(statuses) <= {200, 503} and took < 60, sorted(set(statuses))
    assert all(headers["retry-after"] == "1" for status, headers in replies if status == 503)
    assert statuses.count(200) >= 2


@pytest.mark.parametrize("quiet_from_s", [0.0, pytest.param(30.0, marks=pytest.mark.slow)])
def test_two_solver_bombs__are_answered_within_their_budget_while_honest_requests_flow_then_nothing_burns(
    reward_rows: list[dict[str, Any]], quiet_from_s: float
) -> None:
    """The server's CPU is read over the 3 s after the replies, or (``--run-slow``, the issue's own words) over the
    3 s from 30 s after the bombs were sent."""
    bomb = json.dumps({"query": [PROMPT + '<ANSWER_JSON>[{"car":"R","direction":"right"}]</ANSWER_JSON>'],
                       "prompts": [PROMPT], "labels": [parking_bomb()]}).encode()  # fmt: skip
    with launched("--kind", "progress", "--workers", "3", "--solve-seconds", "3") as server:
        pids = tree(server.process.pid)
        with PeakRss(pids) as memory, ThreadPoolExecutor(max_workers=2) as pool:
            sent = time.monotonic()
            bombs = [pool.submit(_timed_post, server, bomb) for _ in range(2)]
            time.sleep(0.5)  # both bombs are being solved
            honest = [_timed_post(server, payload(reward_rows[i : i + 1])) for i in range(5)]
            answered = [future.result(timeout=60) for future in bombs]
        time.sleep(max(0.0, sent + quiet_from_s - time.monotonic()))
        cpu = tree_cpu_s(pids)
        time.sleep(3.0)
        idle_cpu = tree_cpu_s(pids) - cpu
        print(f"bombs {[round(took, 2) for _, took, _ in answered]} s, honest max {max(t for _, t, _ in honest):.3f} s, "
              f"tree peak {memory.peak_mb:.0f} MB, CPU over 3 s from {time.monotonic() - sent - 3:.1f} s after the "
              f"bombs {idle_cpu:.2f} s")  # fmt: skip
        for status, took, reply in answered:
            assert status == 200 and took < 30
            assert reply["rewards"] == [0.0] and reply["extra_logs"]["vgau_over_budget"] == [1.0]
        assert all(status == 200 and took < HONEST_S for status, took, _ in honest)
        assert idle_cpu < 0.1 and memory.peak_mb < 1500  # 0.01 s measured: idle processes burn nothing
        assert health(server)["served"] == 7
