"""The scoring workers: processes with a memory limit, each killed and replaced when its request overruns.

The server's event loop only moves bytes; a request's body goes whole to an idle worker
over a pipe (sent by the worker's feeding thread, ``pool``), and the worker's reply
comes back whole (``scoring.answer``). Each worker caps its address space
(``RLIMIT_AS``: what it holds once started plus ``worker_memory_mb``) and asks to be
replaced after a request that ran it out of memory.
The parent waits for a reply until the request's deadline (plus ``GRACE_S``); past it
the worker is killed (SIGKILL: whatever it computes stops) and a fresh one started, so
no work outlives its request. Workers are started with ``spawn``: nothing of the
server's threads or sockets is inherited.
"""

from __future__ import annotations

import logging
import multiprocessing
import os
import resource
import signal
import struct
import threading
import time
from dataclasses import asdict
from multiprocessing.connection import Connection
from typing import Any

from vgau_data.errors import VgauError
from vgau_data.rewards.server.limits import ServerLimits

logger = logging.getLogger(__name__)

GRACE_S = 1.0
"""How long past a request's deadline the parent waits before it kills the worker (the worker stops itself first)."""
START_TIMEOUT_S = 120.0
"""How long a new worker may take to import and say it is ready (a loaded machine)."""
_READY = b"ready"
_HEAD = struct.Struct("<HB")  # status, recycle
_SINGLE_THREADED = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")


class WorkerFailure(VgauError, RuntimeError):
    """A worker that could not be started."""


class Worker:
    """One scoring process and the parent's end of its pipe; used by one request at a time."""

    def __init__(self, kind: str, limits: ServerLimits) -> None:
        self.kind = kind
        self.limits = limits
        self.process: Any = None
        self.connection: Connection | None = None
        self._stopping = threading.Lock()
        self.start()

    def start(self) -> None:
        """Start the process and wait until it has imported the scorer (``WorkerFailure`` if it cannot)."""
        context = multiprocessing.get_context("spawn")
        parent_end, child_end = context.Pipe()
        for name in _SINGLE_THREADED:  # numpy's thread pools would take address space the limit is for
            os.environ.setdefault(name, "1")
        self.process = context.Process(target=_worker_main, args=(child_end, self.kind, asdict(self.limits)),
                                       name="vgau-reward-worker", daemon=True)  # fmt: skip
        self.process.start()
        child_end.close()
        self.connection = parent_end
        try:
            ready = parent_end.poll(START_TIMEOUT_S) and parent_end.recv_bytes() == _READY
        except (EOFError, OSError):  # it died starting
            ready = False
        if not ready:
            code = self.process.exitcode
            self.stop()
            raise WorkerFailure(f"a scoring worker did not start within {START_TIMEOUT_S:g} s (exit status {code})")

    def exchange(self, body: bytes | bytearray, deadline: float) -> tuple[int, bytes, bool]:
        """``(status, reply, replace)`` for one body; blocks (call it from a thread).

        ``replace`` is True when the worker was killed, died or asked to be replaced: call
        ``restart`` before it serves again.
        """
        from vgau_data.rewards.server.scoring import error_body

        connection = self.connection  # stop() may clear it meanwhile (the server closing): then OSError below
        if connection is None:
            raise WorkerFailure("the worker is stopped: restart it first")
        try:
            connection.send_bytes(struct.pack("<d", deadline - time.monotonic()))
            connection.send_bytes(body)
            if not connection.poll(max(0.0, deadline - time.monotonic()) + GRACE_S):
                self.stop()
                return 504, error_body("the request's work ran past its deadline; its worker was stopped and replaced"), True
            reply = connection.recv_bytes()
        except (EOFError, OSError) as error:
            logger.warning("a scoring worker died: %s", error)
            self.stop()
            return 500, error_body("the worker scoring this request died; it was replaced"), True
        status, recycle = _HEAD.unpack_from(reply)
        return status, reply[_HEAD.size :], bool(recycle)

    def restart(self) -> None:
        self.stop()
        self.start()

    def stop(self) -> None:
        """Kill the process (it holds nothing worth keeping) and close the pipe; safe from two threads at once
        (its feeding thread after a deadline, the server closing)."""
        with self._stopping:
            if self.process is not None and self.process.is_alive():
                self.process.kill()
            if self.process is not None:
                self.process.join(timeout=10)
            if self.connection is not None:
                self.connection.close()
            self.process = self.connection = None

    @property
    def pid(self) -> int | None:
        return None if self.process is None else self.process.pid


def _worker_main(connection: Connection, kind: str, limits_fields: dict[str, Any]) -> None:
    """A worker's life: import the scorer, cap memory, then answer bodies until the pipe closes."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C stops the server, which stops us
    from vgau_data.rewards.server.scoring import answer

    limits = ServerLimits(**limits_fields)
    _cap_memory(limits.worker_memory_mb)
    connection.send_bytes(_READY)
    while True:
        try:
            (seconds_left,) = struct.unpack("<d", connection.recv_bytes())
            body = connection.recv_bytes()
        except (EOFError, OSError):  # the server is gone
            return
        reply = answer(body, seconds_left, kind, limits)
        del body
        connection.send_bytes(_HEAD.pack(reply.status, reply.recycle) + reply.body)
        if reply.recycle:
            return


def _cap_memory(extra_mb: int) -> None:
    """Limit the address space to what the process maps now plus ``extra_mb``."""
    with open("/proc/self/statm", encoding="ascii") as statm:
        mapped = int(statm.read().split()[0]) * resource.getpagesize()
    _, hard = resource.getrlimit(resource.RLIMIT_AS)
    soft = mapped + extra_mb * 2**20
    if hard != resource.RLIM_INFINITY:
        soft = min(soft, hard)
    resource.setrlimit(resource.RLIMIT_AS, (soft, hard))
