"""The HTTP reward server behind ``vgau-data serve-reward``: OpenRLHF's remote reward, bounded.

OpenRLHF POSTs ``{"query": [...], "prompts": [...], "labels": [...]}`` to the URL given
as ``--reward.remote_url`` and reads ``rewards``, ``scores`` and ``extra_logs`` from the
JSON reply (``vgau_data.rewards.openrlhf.reward_payload``). Every request comes from the
network, so every resource it can take is bounded:

- **body size**: a ``Content-Length`` is required and at most ``max_body_bytes``
  (413 past it, 411 without it); the body is never read beyond it;
- **request time**: a watchdog closes a connection ``request_timeout_s`` after it was
  accepted, whatever it is doing (a slow sender trickling headers or body included);
- **concurrency**: at most ``max_connections`` connections are served at once; one more
  is answered 503 at once, without a thread;
- **work**: at most ``max_samples`` samples per request (413 past it); each answer's
  parse is linear in its length (``vgau_data.answers``).

Invalid JSON or a payload of the wrong shape is a 400, a label that is none of ours a 422,
each with ``{"error": message}``. The server binds loopback unless told otherwise.
"""

from __future__ import annotations

import contextlib
import json
import logging
import socket
import threading
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from vgau_data import safe_json
from vgau_data.errors import VgauError
from vgau_data.rewards import REWARD_KINDS, get_kind
from vgau_data.rewards.openrlhf import reward_payload

logger = logging.getLogger(__name__)

PATHS: tuple[str, ...] = ("/", "/get_reward")
"""Paths that score (OpenRLHF posts to whatever URL it is given; its own server uses ``/get_reward``)."""


@dataclass(frozen=True, slots=True)
class ServerLimits:
    """What one request may take; the defaults are far above an honest OpenRLHF batch."""

    max_body_bytes: int = 64 * 1024 * 1024
    request_timeout_s: float = 30.0
    max_connections: int = 32
    max_samples: int = 16_384

    def __post_init__(self) -> None:
        if self.max_body_bytes < 1 or self.request_timeout_s <= 0 or self.max_connections < 1 or self.max_samples < 1:
            raise ValueError(f"server limits must be positive, got {self}")


class _Refusal(Exception):
    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


class RewardServer(ThreadingHTTPServer):
    """A threading HTTP server with a connection cap and a per-connection deadline."""

    daemon_threads = True
    request_queue_size = 64

    def __init__(self, address: tuple[str, int], *, kind: str = "optimal", limits: ServerLimits | None = None) -> None:
        self.kind = get_kind(kind).name
        self.limits = limits or ServerLimits()
        self._slots = threading.BoundedSemaphore(self.limits.max_connections)
        self.served = 0
        self.refused_busy = 0
        super().__init__(address, _Handler)

    def process_request(self, request: Any, client_address: Any) -> None:
        if not self._slots.acquire(blocking=False):
            self.refused_busy += 1
            _answer_busy(request)
            self.shutdown_request(request)
            return
        watchdog = threading.Timer(self.limits.request_timeout_s, _cut, (request,))
        watchdog.daemon = True
        watchdog.start()

        def serve() -> None:
            try:
                self.finish_request(request, client_address)
            except Exception:  # noqa: BLE001  # a broken connection must not kill the server
                logger.debug("request from %s failed", client_address, exc_info=True)
            finally:
                watchdog.cancel()
                self.shutdown_request(request)
                self._slots.release()

        threading.Thread(target=serve, daemon=True).start()


def _cut(connection: socket.socket) -> None:
    """The watchdog: end a connection that overran its deadline (its reads then fail at once)."""
    with contextlib.suppress(OSError):
        connection.shutdown(socket.SHUT_RDWR)


BUSY_DRAIN_S = 0.05
"""How long a refused connection's request is read (and dropped) so the 503 is not lost to a reset."""


def _answer_busy(connection: socket.socket) -> None:
    """503 at once, on the accepting thread; then drop what the client already sent, for at most
    ``BUSY_DRAIN_S`` and 64 KiB (closing with unread data would reset the connection and lose the 503)."""
    body = b'{"error": "the reward server is at its connection limit; retry"}'
    head = (f"HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json\r\nRetry-After: 1\r\n"
            f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n").encode()  # fmt: skip
    try:
        connection.settimeout(BUSY_DRAIN_S)
        connection.sendall(head + body)
        connection.shutdown(socket.SHUT_WR)
        dropped = 0
        while dropped < 64 * 1024:
            chunk = connection.recv(16 * 1024)
            if not chunk:
                break
            dropped += len(chunk)
    except OSError:  # a timeout or a client that went away
        pass


class _Handler(BaseHTTPRequestHandler):
    server: RewardServer
    protocol_version = "HTTP/1.1"
    server_version = "vgau-data-reward"

    def setup(self) -> None:
        super().setup()
        # headers and body go out in two writes; without this, Nagle's algorithm holds the body
        # until the client's delayed ACK (~40 ms a request)
        self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002  (the base class's name)
        logger.debug("%s " + format, self.client_address[0], *args)

    def do_GET(self) -> None:  # noqa: N802  (http.server's name)
        if self.path.split("?")[0] in ("/health", "/"):
            self._send(200, {"status": "ok", "kind": self.server.kind, "kinds": list(REWARD_KINDS)})
        else:
            self._send(404, {"error": f"no such path; POST to {' or '.join(PATHS)}"})

    def do_POST(self) -> None:  # noqa: N802
        try:
            payload = self._read_json()  # read first (bounded), so a refusal is not lost to a reset
            if self.path.split("?")[0] not in PATHS:
                raise _Refusal(404, f"no such path; POST to {' or '.join(PATHS)}")
            result = self._score(payload)
        except _Refusal as refusal:
            self._send(refusal.status, {"error": str(refusal)})
            return
        self.server.served += 1
        self._send(200, result)

    def _read_json(self) -> Any:
        if self.headers.get("Transfer-Encoding"):
            raise _Refusal(411, "send the body with a Content-Length (no chunked transfer)")
        length_text = self.headers.get("Content-Length")
        if length_text is None:
            raise _Refusal(411, "a Content-Length is required")
        try:
            length = int(length_text)
        except ValueError:
            raise _Refusal(400, "Content-Length is not a number") from None
        if length < 0:
            raise _Refusal(400, "Content-Length is negative")
        if length > self.server.limits.max_body_bytes:
            self.close_connection = True  # the body stays unread
            raise _Refusal(413, f"body of {length} bytes; at most {self.server.limits.max_body_bytes}")
        body = self.rfile.read(length)
        if len(body) < length:
            raise _Refusal(400, "the body ended before its Content-Length")
        try:
            return safe_json.loads(body, "the body")
        except safe_json.JsonInputError as error:  # not JSON, NaN, too deep
            raise _Refusal(400, str(error)[:200]) from None

    def _score(self, payload: Any) -> dict[str, Any]:
        if not isinstance(payload, dict):
            raise _Refusal(400, 'the body must be a JSON object {"query": [...], "prompts": [...], "labels": [...]}')
        queries, prompts, labels = payload.get("query"), payload.get("prompts"), payload.get("labels")
        if not all(isinstance(value, list) for value in (queries, prompts, labels)):
            raise _Refusal(400, "query, prompts and labels must each be a list")
        if len(queries) > self.server.limits.max_samples:
            raise _Refusal(413, f"{len(queries)} samples; at most {self.server.limits.max_samples} per request")
        try:
            return reward_payload(queries, prompts, labels, self.server.kind)
        except VgauError as error:
            raise _Refusal(422, str(error)[:500]) from None

    def _send(self, status: int, body: dict[str, Any]) -> None:
        data = json.dumps(body).encode()
        try:
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            if self.close_connection or status >= 400:
                self.send_header("Connection", "close")
                self.close_connection = True
            self.end_headers()
            self.wfile.write(data)
        except OSError:  # the client went away (or the watchdog cut it)
            self.close_connection = True


def serve(host: str = "127.0.0.1", port: int = 8000, *, kind: str = "optimal", limits: ServerLimits | None = None) -> RewardServer:
    """A bound ``RewardServer`` (call ``serve_forever``; port 0 picks a free one, see ``server_address``)."""
    return RewardServer((host, port), kind=kind, limits=limits)
