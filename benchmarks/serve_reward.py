"""``vgau-data serve-reward`` on loopback: answers per second and latency, beside the in-process scorer.

Usage:
    python benchmarks/serve_reward.py                         # 1 and 2 workers, 3 s a cell
    python benchmarks/serve_reward.py --workers 1 --seconds 5 --json serve.json

For 1- and 64-answer requests at 8, 64 and 256 keep-alive connections (one asyncio client
in this process; the server is a child process), it prints requests and answers per
second (wall), the latency's p50 and p99, the 503s, and the server's CPU seconds split
into its HTTP process and its workers. Beside it, the in-process rate of
``vgau_data.rewards.openrlhf.reward_payload`` on the same requests' samples, measured
just before each cell (a shared machine's load drifts within a run), wall and CPU time,
and the ratio the issue asks for: answers per second per worker over the
in-process rate (wall), and, less sensitive to what else the machine runs, answers per
worker-CPU-second over in-process answers per CPU-second. First, what bounds both: a
worker's own work on one request body (``scoring.answer``: count, parse, score, reply)
in this process, per CPU second, beside the in-process rate (the best of alternating
slices of each: a ratio the machine's load hardly moves). The answers are the oracle
answers of ``tests/data/harness_outputs/references.jsonl`` (24 rows, every family), each
label with its optimum (``{"ground_truth", "family", "optimal_length"}``), so the server
scores and never solves.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from vgau_data.registry import FAMILIES  # noqa: E402  (after the path insert: run from a checkout)
from vgau_data.rewards.openrlhf import reward_payload  # noqa: E402
from vgau_data.rewards.server.launch import launched  # noqa: E402
from vgau_data.rewards.server.limits import ServerLimits  # noqa: E402
from vgau_data.rewards.server.scoring import answer  # noqa: E402

REFERENCES = ROOT / "tests" / "data" / "harness_outputs" / "references.jsonl"
PROMPT = "<|im_start|>user\nSolve the puzzle.<|im_end|>\n<|im_start|>assistant\n"
BATCHES = (1, 64)
CONNECTIONS = (8, 64, 256)
REQUEST_TIMEOUT_S = 60.0


def samples(n: int) -> dict[str, list[Any]]:
    """OpenRLHF's payload of ``n`` samples, the reference rows' oracle answers in turn."""
    rows = [json.loads(line) for line in REFERENCES.read_text(encoding="utf-8").splitlines()]
    picked = [rows[i % len(rows)] for i in range(n)]
    answers = [FAMILIES[r["task"]].format_answer(FAMILIES[r["task"]].answer_from_payload(r["solution"])) for r in picked]
    return {"query": [PROMPT + answer for answer in answers], "prompts": [PROMPT] * n,
            "labels": [json.dumps({"ground_truth": r["state"], "family": r["task"], "optimal_length": r["optimal_length"]})
                       for r in picked]}  # fmt: skip


def in_process(batch: int, seconds: float) -> dict[str, float]:
    """``reward_payload`` on one request's samples, repeated for ``seconds``: answers per wall and per CPU second."""
    payload = samples(batch)
    reward_payload(payload["query"], payload["prompts"], payload["labels"])  # states parsed, as the server's are
    done, wall, cpu = 0, time.perf_counter(), time.process_time()
    while time.perf_counter() - wall < seconds:
        reward_payload(payload["query"], payload["prompts"], payload["labels"])
        done += batch
    return {"answers_per_s": done / (time.perf_counter() - wall), "answers_per_cpu_s": done / (time.process_time() - cpu)}


def worker_work(batch: int, seconds: float) -> dict[str, float]:
    """Answers per CPU second of ``reward_payload`` on one request's samples and of ``scoring.answer`` on its bytes
    (what a worker runs: count, parse, score, reply), in alternating 50 ms slices of this process for ``seconds``;
    each the best slice (a loaded machine stretches CPU time too: the least disturbed slice is the cost itself)."""
    payload = samples(batch)
    body = json.dumps(payload).encode()
    limits = ServerLimits()
    calls = {"in_process": lambda: reward_payload(payload["query"], payload["prompts"], payload["labels"]),
             "answer": lambda: answer(body, REQUEST_TIMEOUT_S, "optimal", limits)}  # fmt: skip
    best = dict.fromkeys(calls, 0.0)
    for call in calls.values():
        call()  # states parsed, as a serving worker's are
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        for name, call in calls.items():
            done, cpu = 0, time.process_time()
            while time.process_time() - cpu < 0.05:
                call()
                done += batch
            best[name] = max(best[name], done / (time.process_time() - cpu))
    return best


async def _client(port: int, request: bytes, stop_at: float, latencies: list[float], busy: list[int]) -> None:
    """Keep-alive requests until ``stop_at``; a 503 (which closes the connection) reconnects."""
    writer = None
    try:
        while time.perf_counter() < stop_at:
            if writer is None:
                reader, writer = await asyncio.open_connection("127.0.0.1", port)
            start = time.perf_counter()
            async with asyncio.timeout(REQUEST_TIMEOUT_S):
                writer.write(request)
                head = (await reader.readuntil(b"\r\n\r\n")).split(b"\r\n")
                length = next(int(line.split(b":")[1]) for line in head if line.lower().startswith(b"content-length:"))
                await reader.readexactly(length)
            status = int(head[0].split()[1])
            if status == 503:
                busy.append(1)
                writer.close()
                writer = None
                await asyncio.sleep(0.05)
                continue
            if status != 200:
                raise RuntimeError(f"the server answered {status}")
            latencies.append(time.perf_counter() - start)
    finally:
        if writer is not None:
            writer.close()


def _cpu_s(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _children(pid: int) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1]) == pid:
                    found.append(int(entry.name))
            except (OSError, ValueError, IndexError):
                continue
    return found


def served(port: int, server_pid: int, batch: int, connections: int, seconds: float) -> dict[str, float]:
    body = json.dumps(samples(batch)).encode()
    request = (b"POST /get_reward HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
               b"Content-Length: %d\r\n\r\n%s" % (len(body), body))  # fmt: skip
    latencies: list[float] = []
    busy: list[int] = []
    workers = _children(server_pid)
    parent_cpu, workers_cpu = _cpu_s(server_pid), sum(_cpu_s(pid) for pid in workers)

    async def run() -> float:
        start = time.perf_counter()
        stop_at = start + seconds
        await asyncio.gather(*(_client(port, request, stop_at, latencies, busy) for _ in range(connections)))
        return time.perf_counter() - start

    elapsed = asyncio.run(run())
    ordered = sorted(latencies)
    return {"batch": batch, "connections": connections, "requests_per_s": len(ordered) / elapsed,
            "answers_per_s": len(ordered) * batch / elapsed, "p50_ms": 1000 * statistics.median(ordered),
            "p99_ms": 1000 * ordered[min(len(ordered) - 1, int(0.99 * len(ordered)))], "busy_503": len(busy),
            "parent_cpu_s": _cpu_s(server_pid) - parent_cpu,
            "workers_cpu_s": sum(_cpu_s(pid) for pid in workers) - workers_cpu, "answers": len(ordered) * batch}  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2], help="worker counts to serve with")
    parser.add_argument("--seconds", type=float, default=3.0, help="seconds of load per cell (default 3)")
    parser.add_argument("--json", help="also write the figures here")
    args = parser.parse_args(argv)
    print(f"{os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f} at start")
    figures: dict[str, Any] = {"served": [], "worker_work": {}}
    for batch in BATCHES:  # a worker's own cost per request, without the HTTP, the pipe and the scheduler
        work = figures["worker_work"][batch] = worker_work(batch, args.seconds)
        work["x_cpu"] = work["answer"] / work["in_process"]
        print(f"{batch:>2} answers a request, in this process: reward_payload {work['in_process']:,.0f} answers per CPU "
              f"second, a worker's scoring.answer on the body {work['answer']:,.0f} ({work['x_cpu']:.2f}x)")  # fmt: skip
    print(f"{'workers':>7} {'answers':>7} {'conns':>5} {'req/s':>8} {'answers/s':>10} {'p50 ms':>8} {'p99 ms':>8} "
          f"{'503s':>5} {'http CPU':>8} {'wrk CPU':>8} {'in-proc/s':>9} {'x in-proc':>9} {'x CPU':>6}")  # fmt: skip
    for n in args.workers:
        with launched("--workers", str(n)) as server:
            for batch in BATCHES:
                for connections in CONNECTIONS:
                    reference = in_process(batch, args.seconds)  # just before the cell: the load it meets
                    cell = served(server.port, server.process.pid, batch, connections, args.seconds)
                    cell["workers"] = n
                    cell["in_process"] = reference
                    cell["x_in_process"] = cell["answers_per_s"] / n / reference["answers_per_s"]
                    cell["x_cpu"] = cell["answers"] / max(cell["workers_cpu_s"], 1e-9) / reference["answers_per_cpu_s"]
                    figures["served"].append(cell)
                    print(f"{n:>7} {batch:>7} {connections:>5} {cell['requests_per_s']:>8,.0f} {cell['answers_per_s']:>10,.0f} "
                          f"{cell['p50_ms']:>8.1f} {cell['p99_ms']:>8.1f} {cell['busy_503']:>5} {cell['parent_cpu_s']:>8.2f} "
                          f"{cell['workers_cpu_s']:>8.2f} {reference['answers_per_s']:>9,.0f} {cell['x_in_process']:>9.2f} "
                          f"{cell['x_cpu']:>6.2f}")  # fmt: skip
    print(f"load average {os.getloadavg()[0]:.1f} at the end")
    if args.json:
        Path(args.json).write_text(json.dumps(figures, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
