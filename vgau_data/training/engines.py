"""Where ``generate``'s tasks run: this process, a local process pool, or Ray Core tasks.

Every engine runs the same pure task functions (``catalog.build_chunk``,
``shards.build_shard``), so what they write does not depend on the engine; an engine
only decides where and in which order tasks run. The interface is ``submit(fn, task)``
and ``next_result()`` (one finished task, in any order), which lets the driver keep a
bounded number of tasks in flight and decide what to submit next from what came back.

Ray: tasks are ``ray.remote(num_cpus=1)`` calls; Ray retries a task whose node is lost
(``RAY_TASK_RETRIES`` times), which is safe because a task writes its file whole or not
at all and the same task writes the same bytes. Every node must see the output folder
(one machine, or a shared filesystem such as NFS), and have this package installed.
"""

from __future__ import annotations

import multiprocessing
import os
import queue
import socket
from collections.abc import Callable
from typing import Any, Final, Protocol

from vgau_data.errors import MissingDependencyError, VgauError

ENGINES: Final = ("local", "ray")
RAY_TASK_RETRIES: Final = 5
RAY_CONNECT_TIMEOUT_S: Final = 10.0
"""How long ``--ray-address`` may take to accept a TCP connection: ``ray.init`` itself retries a
dead address for minutes (5 min 28 s measured with Ray 2.60, then still waiting)."""


def _refuse_unreachable(address: str) -> None:
    """Raise ``VgauError`` unless ``address`` (``host:port``, or ``ray://host:port``) accepts a TCP connection.

    ``auto`` and ``local`` name no socket; Ray resolves them itself, quickly.
    """
    if address in ("auto", "local"):
        return
    host, _, port = address.removeprefix("ray://").rstrip("/").rpartition(":")
    if not host or not port.isdigit():
        raise VgauError(f"--ray-address {address!r:.80}: expected host:port (or ray://host:port, auto)")
    try:
        with socket.create_connection((host.strip("[]"), int(port)), timeout=RAY_CONNECT_TIMEOUT_S):
            pass
    except (OSError, ValueError) as error:
        raise VgauError(f"--engine ray: nothing answers at {address:.80} within {RAY_CONNECT_TIMEOUT_S:g} s "
                        f"({error}); start the cluster with `ray start --head` or check --ray-address") from None  # fmt: skip


class Engine(Protocol):
    workers: int

    def submit(self, fn: Callable[[Any], Any], task: Any) -> None: ...

    def next_result(self) -> tuple[Any, Any]:
        """``(task, result)`` of one finished task; raises what the task raised."""
        ...

    def close(self) -> None: ...


class InlineEngine:
    """Runs each task when it is submitted, in this process (one worker: tests, small runs)."""

    workers = 1

    def __init__(self) -> None:
        self._done: list[tuple[Any, Any]] = []

    def submit(self, fn: Callable[[Any], Any], task: Any) -> None:
        self._done.append((task, fn(task)))

    def next_result(self) -> tuple[Any, Any]:
        return self._done.pop(0)

    def close(self) -> None:
        self._done.clear()


def _call(fn: Callable[[Any], Any], task: Any) -> tuple[Any, Any]:
    return task, fn(task)


class PoolEngine:
    """A ``multiprocessing`` pool of spawned workers (no state forked from the driver)."""

    def __init__(self, workers: int) -> None:
        self.workers = workers
        self._pool = multiprocessing.get_context("spawn").Pool(workers)
        self._done: queue.Queue[tuple[Any, Any] | BaseException] = queue.Queue()

    def submit(self, fn: Callable[[Any], Any], task: Any) -> None:
        self._pool.apply_async(_call, (fn, task), callback=self._done.put, error_callback=self._done.put)

    def next_result(self) -> tuple[Any, Any]:
        item = self._done.get()
        if isinstance(item, BaseException):
            raise item
        return item

    def close(self) -> None:
        self._pool.terminate()
        self._pool.join()


class RayEngine:
    """Ray Core tasks on the cluster at ``address`` (None: start a local one)."""

    def __init__(self, address: str | None, workers: int | None) -> None:
        try:
            import ray
        except ImportError:
            raise MissingDependencyError('--engine ray needs Ray: pip install "vgau-data[ray]"') from None
        self._ray = ray
        self._started = not ray.is_initialized()
        if self._started and address is not None:
            _refuse_unreachable(address)
        try:
            if self._started:
                ray.init(address=address, logging_level="WARNING", log_to_driver=False)
            cpus = int(ray.cluster_resources().get("CPU", 1))
        except Exception as error:  # Ray raises many kinds (ConnectionError, RuntimeError, its own); all mean "no cluster"
            if self._started:
                ray.shutdown()  # stops what ray.init started (its dashboard agent, raylet) before we give up
            reason = (str(error).strip().splitlines() or [type(error).__name__])[0][:200]
            where = f"the Ray cluster at {address}" if address else "a local Ray cluster"
            raise VgauError(f"--engine ray could not start {where}: {reason}") from None
        self.workers = min(workers, cpus) if workers else cpus
        self._remote: dict[Callable[[Any], Any], Any] = {}
        self._pending: dict[Any, Any] = {}

    def submit(self, fn: Callable[[Any], Any], task: Any) -> None:
        if fn not in self._remote:
            self._remote[fn] = self._ray.remote(num_cpus=1, max_retries=RAY_TASK_RETRIES)(fn)
        self._pending[self._remote[fn].remote(task)] = task

    def next_result(self) -> tuple[Any, Any]:
        if not self._pending:
            raise VgauError("no Ray task is pending")
        (ready,), _ = self._ray.wait(list(self._pending), num_returns=1)
        task = self._pending.pop(ready)
        return task, self._ray.get(ready)

    def close(self) -> None:
        for ref in self._pending:
            self._ray.cancel(ref, force=True)
        self._pending.clear()
        if self._started:
            self._ray.shutdown()


def make_engine(name: str, workers: int | None, ray_address: str | None = None) -> Engine:
    """The engine called ``name`` with ``workers`` (None: every core, or every CPU of the Ray cluster);
    ``local`` with one worker runs in this process."""
    if name == "local":
        workers = workers or os.cpu_count() or 1
        return InlineEngine() if workers == 1 else PoolEngine(workers)
    if name == "ray":
        return RayEngine(ray_address, workers)
    raise VgauError(f"unknown engine {name!r}; choose from {', '.join(ENGINES)}")
