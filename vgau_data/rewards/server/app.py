"""The HTTP side: a Starlette app under uvicorn, with the read deadlines and caps uvicorn lacks.

uvicorn's h11 protocol closes an idle keep-alive connection, but a request whose headers
or body trickle in holds its connection for ever, and its ``limit_concurrency`` answers
503 without ``Retry-After``. ``_guarded_protocol`` adds both: a request must arrive whole
within ``read_timeout_s`` of its connection (or of the previous reply), else the
connection is closed; a connection past ``max_connections`` is answered 503 with
``Retry-After`` at once. The app reads a body only after its ``Content-Length`` is
checked, counts the bytes all connections hold (``max_buffered_bytes``), and hands the
bytes, unparsed, to a worker (``pool.WorkerPool``).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import resource
import socket
import time
from collections.abc import Callable
from typing import Any

import h11
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import ClientDisconnect, Request
from starlette.responses import Response
from starlette.routing import Route
from uvicorn.protocols.http.h11_impl import H11Protocol

from vgau_data.rewards import REWARD_KINDS
from vgau_data.rewards.server.limits import ServerLimits
from vgau_data.rewards.server.pool import Busy, WorkerPool

PATHS: tuple[str, ...] = ("/", "/get_reward")
"""Paths that score (OpenRLHF posts to whatever URL it is given; its own server uses ``/get_reward``)."""
RETRY_AFTER_S = 1
"""``Retry-After`` of a 503 (OpenRLHF's client retries after 1 s, five times)."""


def _json(status: int, body: dict[str, Any] | bytes, *, close: bool = False, retry: bool = False) -> Response:
    headers = {"Connection": "close"} if close or status >= 400 else {}
    if retry:
        headers["Retry-After"] = str(RETRY_AFTER_S)
    data = body if isinstance(body, bytes) else json.dumps(body).encode()
    return Response(data, status_code=status, headers=headers, media_type="application/json")


def _busy(reason: str) -> Response:
    return _json(503, {"error": f"the reward server is busy ({reason}); retry"}, retry=True)


class _Held:
    """Request bytes held by the server, all connections together, against a cap."""

    def __init__(self, cap: int) -> None:
        self.cap, self.bytes = cap, 0

    def take(self, n: int) -> bool:
        if self.bytes + n > self.cap:
            return False
        self.bytes += n
        return True

    def give(self, n: int) -> None:
        self.bytes -= n


def build_app(pool: WorkerPool, limits: ServerLimits, kind: str) -> Starlette:
    """The ASGI app: ``POST /get_reward`` (or ``/``) scores, ``GET /health`` (or ``/``) says the kind and the workers."""
    held = _Held(limits.max_buffered_bytes)
    served = {"requests": 0}

    async def score(request: Request) -> Response:
        if request.headers.get("transfer-encoding"):
            return _json(411, {"error": "send the body with a Content-Length (no chunked transfer)"})
        length_text = request.headers.get("content-length")
        if length_text is None:
            return _json(411, {"error": "a Content-Length is required"})
        if not length_text.isdigit():
            return _json(400, {"error": "Content-Length is not a number"})
        if int(length_text) > limits.max_body_bytes:  # the body stays unread
            return _json(413, {"error": f"body of {length_text} bytes; at most {limits.max_body_bytes}"})
        if pool.queue_full:
            return _busy("too many requests are waiting for a worker")
        body = bytearray()
        try:
            async for chunk in request.stream():
                if not held.take(len(chunk)):
                    return _busy("too many request bytes are held")
                body += chunk
            deadline = time.monotonic() + limits.request_timeout_s
            status, reply = await pool.score(body, deadline)
        except ClientDisconnect:  # cut off by the read deadline, or gone: nobody reads a reply
            return _json(400, {"error": "the request did not arrive whole"})
        except Busy as busy:
            return _busy(str(busy))
        finally:
            held.give(len(body))
        served["requests"] += status == 200
        return _json(status, reply)

    async def health(request: Request) -> Response:
        return _json(200, {"status": "ok", "kind": kind, "kinds": list(REWARD_KINDS), "workers": pool.pids(),
                           "served": served["requests"], "replaced": pool.replaced})  # fmt: skip

    async def root(request: Request) -> Response:
        return await (score if request.method == "POST" else health)(request)

    async def refuse(request: Request, error: Exception) -> Response:
        status = error.status_code if isinstance(error, HTTPException) else 404
        return _json(status, {"error": f"no such path or method; POST to {' or '.join(PATHS)}, GET /health"})

    routes = [Route("/get_reward", score, methods=["POST"]), Route("/health", health, methods=["GET"]),
              Route("/", root, methods=["GET", "POST"])]  # fmt: skip
    return Starlette(routes=routes, exception_handlers={404: refuse, 405: refuse})


async def _busy_app(scope: dict[str, Any], receive: Callable[..., Any], send: Callable[..., Any]) -> None:
    """The ASGI app of a connection past ``max_connections``: 503 at once."""
    response = _busy("at its connection limit")
    await response(scope, receive, send)


def _guarded_protocol(limits: ServerLimits) -> type[H11Protocol]:
    """uvicorn's h11 protocol with a whole-request read deadline and a connection cap (module docstring)."""

    class GuardedH11Protocol(H11Protocol):
        read_timer: asyncio.TimerHandle | None = None

        def connection_made(self, transport: Any) -> None:
            super().connection_made(transport)
            # headers and body go out in two writes: without this, Nagle's algorithm holds the body until
            # the client's delayed ACK, 40 ms a reply (asyncio sets it only on sockets made with IPPROTO_TCP)
            with contextlib.suppress(OSError, AttributeError):
                transport.get_extra_info("socket").setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            if len(self.connections) > limits.max_connections:
                self.app = _busy_app
            self._arm()

        def on_response_complete(self) -> None:
            super().on_response_complete()
            self._arm()

        def connection_lost(self, exc: Exception | None) -> None:
            self._disarm()
            super().connection_lost(exc)

        def _arm(self) -> None:
            self._disarm()
            if not self.transport.is_closing():
                self.read_timer = self.loop.call_later(limits.read_timeout_s, self._read_overdue)

        def _disarm(self) -> None:
            if self.read_timer is not None:
                self.read_timer.cancel()
                self.read_timer = None

        def _read_overdue(self) -> None:
            """The request has not arrived whole in time (or no request came): drop the connection."""
            self.read_timer = None
            if self.conn.their_state is h11.DONE or self.transport.is_closing():
                return  # being answered: the work has its own deadline
            if self.transport.get_write_buffer_size():
                self.transport.abort()  # a reply the client does not read
            else:
                self.transport.close()

    return GuardedH11Protocol


def listen(host: str, port: int, limits: ServerLimits) -> socket.socket:
    """The listening socket (``port`` 0 picks a free one), with room for ``max_connections`` open files."""
    needed = limits.max_connections + 256
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft != resource.RLIM_INFINITY and soft < needed:
        resource.setrlimit(resource.RLIMIT_NOFILE, (needed if hard == resource.RLIM_INFINITY else min(needed, hard), hard))
    return socket.create_server((host, port), backlog=limits.backlog)


def run(sock: socket.socket, pool: WorkerPool, limits: ServerLimits, kind: str) -> None:
    """Serve on ``sock`` until SIGINT or SIGTERM (then in-flight replies get 5 s to finish)."""
    import uvicorn

    config = uvicorn.Config(
        build_app(pool, limits, kind), http=_guarded_protocol(limits), lifespan="off", log_config=None,
        log_level="warning", access_log=False, timeout_keep_alive=limits.keep_alive_s,  # type: ignore[arg-type]
        backlog=limits.backlog, timeout_graceful_shutdown=5, limit_concurrency=None,
    )  # fmt: skip
    uvicorn.Server(config).run(sockets=[sock])
