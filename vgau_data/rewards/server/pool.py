"""The event loop's side of the workers: one queue of requests, each worker fed by its own thread.

Each worker has a thread in the server process that takes the next request from one
shared FIFO queue the moment its worker replies, sends it down the pipe and waits for the
reply (``Worker.exchange``: killed and replaced past the deadline). The event loop only
queues a request and awaits its reply, so a worker never waits for the loop between two
requests (it did when the loop handed each request out: at 64 connections a third of a
worker's time went idle). A request waits to be taken at most until its deadline, and
only ``max_queued`` wait at once (503 past either).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import queue
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

from vgau_data.rewards.server.limits import ServerLimits
from vgau_data.rewards.server.workers import Worker, WorkerFailure

logger = logging.getLogger(__name__)


class Busy(Exception):
    """No worker could take the request in time, or too many wait already (503 with ``Retry-After``)."""


@dataclass(eq=False)
class _Job:
    """One request body on its way to a worker; ``taken`` and ``abandoned`` change under ``lock`` only."""

    body: bytes | bytearray
    deadline: float
    loop: asyncio.AbstractEventLoop
    reply: asyncio.Future[tuple[int, bytes]]
    lock: threading.Lock = field(default_factory=threading.Lock)
    taken: bool = False
    abandoned: bool = False

    def take(self) -> bool:
        """Claim the job for a worker, unless its request stopped waiting."""
        with self.lock:
            self.taken = not self.abandoned
            return self.taken

    def abandon(self) -> bool:
        """Stop waiting for a worker, unless one has taken the job (then its reply is on its way)."""
        with self.lock:
            self.abandoned = not self.taken
            if self.abandoned:
                self.body = b""  # the queue may hold the job a while longer; not its body
            return self.abandoned

    def settle(self, status: int, reply: bytes) -> None:
        with contextlib.suppress(RuntimeError):  # the loop is closed: the server is stopping, nobody waits
            self.loop.call_soon_threadsafe(_set_result, self.reply, (status, reply))


def _set_result(future: asyncio.Future[tuple[int, bytes]], result: tuple[int, bytes]) -> None:
    if not future.done():
        future.set_result(result)


class WorkerPool:
    """``n`` workers, started at once (before the server accepts a connection), and a thread feeding each."""

    def __init__(self, n: int, kind: str, limits: ServerLimits) -> None:
        self.limits = limits
        with ThreadPoolExecutor(max_workers=n, thread_name_prefix="vgau-reward-start") as starting:
            started = [starting.submit(Worker, kind, limits) for _ in range(n)]
        failed = [future.exception() for future in started if future.exception() is not None]
        if failed:
            for future in started:
                if future.exception() is None:
                    future.result().stop()
            raise failed[0]
        self.workers = [future.result() for future in started]
        self.jobs: queue.SimpleQueue[_Job | None] = queue.SimpleQueue()
        self.replaced = 0
        self.closing = False
        self._replacing = threading.Lock()
        self.threads = [threading.Thread(target=self._feed, args=(worker,), name="vgau-reward-pipe", daemon=True)
                        for worker in self.workers]  # fmt: skip
        for thread in self.threads:
            thread.start()

    @property
    def queue_full(self) -> bool:
        return self.jobs.qsize() >= self.limits.max_queued

    async def score(self, body: bytes | bytearray, deadline: float) -> tuple[int, bytes]:
        """``(status, reply)`` from the first free worker; ``Busy`` when none takes it before the deadline."""
        if self.queue_full:
            raise Busy(f"{self.jobs.qsize()} requests are waiting for a worker")
        loop = asyncio.get_running_loop()
        job = _Job(body, deadline, loop, loop.create_future())
        self.jobs.put(job)
        try:
            return await asyncio.wait_for(asyncio.shield(job.reply), timeout=max(0.0, deadline - time.monotonic()))
        except TimeoutError:
            if job.abandon():
                raise Busy("no worker was free before the request's deadline") from None
        return await job.reply  # taken just in time: the worker's own deadline bounds the wait

    def _feed(self, worker: Worker) -> None:
        """A worker's thread: the next request, to the worker and back, until ``close``; a worker that
        was killed, died or asked to be replaced is restarted before it takes another."""
        while (job := self.jobs.get()) is not None:
            if time.monotonic() >= job.deadline or not job.take():
                continue  # its request stopped waiting (503)
            try:
                status, reply, replace = worker.exchange(job.body, job.deadline)
            except WorkerFailure:  # stopped by close()
                return
            job.settle(status, reply)
            if replace and (self.closing or not self._replace(worker)):
                return

    def _replace(self, worker: Worker) -> bool:
        try:
            worker.restart()
        except WorkerFailure as error:  # the pool is one worker smaller
            logger.error("a scoring worker could not be replaced: %s", error)
            return False
        with self._replacing:
            self.replaced += 1
        return True

    def close(self) -> None:
        self.closing = True
        for _ in self.threads:
            self.jobs.put(None)
        for worker in self.workers:
            worker.stop()

    def pids(self) -> list[int]:
        return [worker.pid for worker in self.workers if worker.pid is not None]
