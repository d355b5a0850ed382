"""The event loop's side of the workers: a bounded queue of requests waiting for an idle worker.

A request waits for a worker at most until its deadline, and only ``max_queued`` wait at
once (503 past either). The blocking pipe exchange runs on a thread per worker, so the
loop keeps serving other connections; a worker that was killed or asked to be replaced
is restarted on its thread before it takes another request.
"""

from __future__ import annotations

import asyncio
import logging
import time
from concurrent.futures import ThreadPoolExecutor

from vgau_data.rewards.server.limits import ServerLimits
from vgau_data.rewards.server.workers import Worker, WorkerFailure

logger = logging.getLogger(__name__)


class Busy(Exception):
    """No worker could take the request in time, or too many wait already (503 with ``Retry-After``)."""


class WorkerPool:
    """``n`` workers, started at once (before the server accepts a connection)."""

    def __init__(self, n: int, kind: str, limits: ServerLimits) -> None:
        self.limits = limits
        self.threads = ThreadPoolExecutor(max_workers=n, thread_name_prefix="vgau-reward-pipe")
        try:
            self.workers = list(self.threads.map(lambda _: Worker(kind, limits), range(n)))
        except WorkerFailure:
            self.threads.shutdown()
            raise
        self.idle: asyncio.Queue[Worker] | None = None
        self.waiting = 0
        self.replaced = 0

    @property
    def queue_full(self) -> bool:
        return self.waiting >= self.limits.max_queued

    async def score(self, body: bytes | bytearray, deadline: float) -> tuple[int, bytes]:
        """``(status, reply)`` from the first idle worker; ``Busy`` when none comes before the deadline."""
        if self.idle is None:  # made on the serving loop
            self.idle = asyncio.Queue()
            for worker in self.workers:
                self.idle.put_nowait(worker)
        if self.queue_full:
            raise Busy(f"{self.waiting} requests are waiting for a worker")
        self.waiting += 1
        try:
            worker = await asyncio.wait_for(self.idle.get(), timeout=max(0.0, deadline - time.monotonic()))
        except TimeoutError:
            raise Busy("no worker was free before the request's deadline") from None
        finally:
            self.waiting -= 1
        loop = asyncio.get_running_loop()
        replace = True
        try:
            status, reply, replace = await loop.run_in_executor(self.threads, worker.exchange, body, deadline)
        finally:
            if replace:
                loop.run_in_executor(self.threads, self._restart, worker, self.idle, loop)
            else:
                self.idle.put_nowait(worker)
        return status, reply

    def _restart(self, worker: Worker, idle: asyncio.Queue[Worker], loop: asyncio.AbstractEventLoop) -> None:
        try:
            worker.restart()
        except WorkerFailure as error:  # the pool is one worker smaller
            logger.error("a scoring worker could not be replaced: %s", error)
            return
        self.replaced += 1
        loop.call_soon_threadsafe(idle.put_nowait, worker)

    def close(self) -> None:
        for worker in self.workers:
            worker.stop()
        self.threads.shutdown(wait=False, cancel_futures=True)

    def pids(self) -> list[int]:
        return [worker.pid for worker in self.workers if worker.pid is not None]
