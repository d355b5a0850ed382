"""A real ``vgau-data serve-reward`` process on 127.0.0.1, and clients that talk to it as trainers and attackers do.

Every client call has a timeout; the process tree's memory and CPU are read from /proc.
"""

from __future__ import annotations

import asyncio
import http.client
import json
import os
import resource
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from vgau_data.rewards.server.launch import Launched, launched

PROMPT = "<|im_start|>user\nSolve it.<|im_end|>\n<|im_start|>assistant\n"


def parking_bomb() -> str:
    """A parking state whose red car can never leave, with millions of positions to search before that is known.

    The blocker ``V`` stands in the exit row under a full row 0 and over ``X``, which can
    never leave column 7, so ``V`` never clears the row; the solver's bound does not see
    it, and twelve free cars in the other rows make ~10^7 positions (about 100k a second).
    """
    vehicles = [("R", 3, 0, 2, "h"), ("V", 1, 7, 3, "v"), ("X", 5, 7, 3, "v")]
    names = iter("ABCDEFGHIJKLMNOP")
    vehicles += [(next(names), 0, col, 2, "h") for col in (0, 2, 4, 6)]
    vehicles += [(next(names), row, col, 2, "h") for row in (1, 2, 4, 5, 6, 7) for col in (0, 2)]
    return json.dumps({"size": 8, "exit_row": 3, "vehicles": [
        {"id": vid, "row": row, "col": col, "length": length, "orientation": orientation}
        for vid, row, col, length, orientation in vehicles]})


def payload(rows: list[dict[str, Any]], answers: list[str] | None = None) -> bytes:
    """OpenRLHF's request body for ``rows`` (each row's oracle answer unless ``answers`` are given)."""
    texts = answers if answers is not None else [row["answer"] for row in rows]
    return json.dumps({"query": [PROMPT + text for text in texts], "prompts": [PROMPT] * len(rows),
                       "labels": [row["state"] for row in rows]}).encode()  # fmt: skip


def post(server: Launched, body: bytes, headers: dict[str, str] | None = None, path: str = "/get_reward",
         timeout: float = 30.0) -> tuple[int, dict[str, Any], dict[str, str]]:  # fmt: skip
    """``(status, JSON reply, headers)`` of one POST on a fresh connection."""
    connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=timeout)
    try:
        connection.request("POST", path, body=body, headers={"Content-Type": "application/json", **(headers or {})})
        reply = connection.getresponse()
        return reply.status, json.loads(reply.read() or b"{}"), dict(reply.getheaders())
    finally:
        connection.close()


def health(server: Launched) -> dict[str, Any]:
    connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=30)
    try:
        connection.request("GET", "/health")
        return json.loads(connection.getresponse().read())
    finally:
        connection.close()


async def exchange(port: int, body: bytes, timeout: float) -> tuple[int, dict[str, str]]:
    """``(status, headers)`` of one POST over asyncio (0 when the connection failed or timed out)."""
    writer = None
    try:
        async with asyncio.timeout(timeout):
            reader, writer = await asyncio.open_connection("127.0.0.1", port)
            writer.write(b"POST /get_reward HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                         b"Content-Length: %d\r\n\r\n%s" % (len(body), body))  # fmt: skip
            head = (await reader.readuntil(b"\r\n\r\n")).decode("latin-1").split("\r\n")
            headers = dict(line.lower().split(": ", 1) for line in head[1:] if ": " in line)
            await reader.readexactly(int(headers.get("content-length", "0")))
            return int(head[0].split()[1]), headers
    except (OSError, TimeoutError, asyncio.IncompleteReadError, asyncio.LimitOverrunError, ValueError):
        return 0, {}
    finally:
        if writer is not None:
            writer.close()


def tree(root: int) -> list[int]:
    """``root`` and every process under it (workers, multiprocessing's resource tracker)."""
    parents: dict[int, int] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                parents[int(entry.name)] = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):  # gone meanwhile
                continue
    found, frontier = [root], [root]
    while frontier:
        frontier = [pid for pid, parent in parents.items() if parent in frontier]
        found += frontier
    return found


def tree_rss_mb(pids: list[int]) -> float:
    """The resident memory of ``pids`` together (a process gone counts 0)."""
    total = 0
    for pid in pids:
        try:
            total += int(Path(f"/proc/{pid}/statm").read_text().split()[1])
        except (OSError, IndexError, ValueError):
            continue
    return total * resource.getpagesize() / 2**20


def tree_cpu_s(pids: list[int]) -> float:
    """The CPU seconds ``pids`` have used, user and system."""
    ticks = os.sysconf("SC_CLK_TCK")
    total = 0
    for pid in pids:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += int(fields[11]) + int(fields[12])  # utime, stime
    return total / ticks


@pytest.fixture(scope="module")
def server() -> Iterator[Launched]:
    """Two workers and short deadlines, small limits where a test reaches them."""
    with launched("--workers", "2", "--read-timeout", "2", "--timeout", "5", "--max-samples", "50",
                  "--max-body-mb", "1") as running:  # fmt: skip
        yield running
