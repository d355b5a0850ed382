"""Fixtures for the runner tests: a small built dataset, tiny models, a loopback OpenAI server."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from vgau_data.puzzles.prompts import REMAINING_QUESTION
from vgau_data.runners.instances import Instance, load_instances, resolve_dataset
from vgau_data.runners.messages import Conversation, Message, TextPart
from vgau_data.runners.protocols import protocol_class, protocol_names
from vgau_data.runners.protocols.interactive import InteractiveEpisode

SMALL_COUNTS = {"easy": 2, "medium": 1, "hard": 0}


@pytest.fixture(scope="session")
def dataset_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Every family the package registers, 2 easy + 1 medium rows each, built once per session. Not the toy family
    the suite registers: these tests start runs in fresh processes too, which know only the package's registry; the
    toy's own test (``tests/toy_family``) runs every protocol it supports on a build of its own."""
    from tests.families import SHIPPED
    from vgau_data.builders import build_dataset

    out = tmp_path_factory.mktemp("dataset")
    build_dataset(out, seed=0, families=SHIPPED, counts=SMALL_COUNTS, workers=1, progress=False)
    return out


@pytest.fixture(scope="session")
def instances(dataset_dir: Path) -> list[Instance]:
    return load_instances(resolve_dataset(str(dataset_dir)))


@pytest.fixture(scope="session")
def tiny_model_dirs(tmp_path_factory: pytest.TempPathFactory) -> Callable[..., Path]:
    """``make(kind, reply=None)`` builds (once) and returns a tiny model folder."""
    from vgau_data.testing.tiny_models import build_tiny_vlm

    built: dict[tuple[str, str | None], Path] = {}

    def make(kind: str, reply: str | None = None) -> Path:
        if (kind, reply) not in built:
            folder = tmp_path_factory.mktemp(f"tiny-{kind}")
            built[(kind, reply)] = build_tiny_vlm(kind, folder, reply=reply)
        return built[(kind, reply)]

    return make


# ---------------------------------------------------------------- a loopback OpenAI-compatible server


@dataclass
class FakeOpenAIServer:
    """A chat-completions server on 127.0.0.1 for tests.

    ``respond(body, headers) -> str`` makes the answer text; ``fail_next`` is a list of
    HTTP statuses returned (in order) before normal answers resume; ``delay_s`` slows
    every answer. ``requests`` logs ``(headers, body)`` of every request received.
    ``fault(handler, headers)``, when set, writes the whole reply itself (any bytes, at
    any pace) instead: the fault injectors below make such functions.
    """

    respond: Callable[[dict[str, Any], dict[str, str]], str]
    fail_next: list[int] = field(default_factory=list)
    delay_s: float = 0.0
    fault: Callable[[BaseHTTPRequestHandler, dict[str, str]], None] | None = None
    status_for: Callable[[dict[str, Any]], int] | None = None
    """When set, the HTTP status of each request from its body (not 200: an error reply)."""
    requests: list[tuple[dict[str, str], dict[str, Any]]] = field(default_factory=list)
    url: str = ""
    paths: list[str] = field(default_factory=list)
    """The request target of every request (path and query string)."""
    lock: threading.Lock = field(default_factory=threading.Lock)

    def handle(self, body: dict[str, Any], headers: dict[str, str]) -> tuple[int, dict[str, Any]]:
        with self.lock:
            self.requests.append((headers, body))
            status = self.fail_next.pop(0) if self.fail_next else 200
        if status == 200 and self.status_for is not None:
            status = self.status_for(body)
        if self.delay_s:
            time.sleep(self.delay_s)
        if status != 200:
            return status, {"error": {"message": f"injected failure {status}"}}
        return 200, completion_payload(self.respond(body, headers))


@pytest.fixture
def fake_server() -> Iterator[Callable[..., FakeOpenAIServer]]:
    """``start(respond, **options)`` starts a loopback server; all are stopped after the test."""
    servers: list[ThreadingHTTPServer] = []

    def start(respond: Callable[[dict[str, Any], dict[str, str]], str], **options: Any) -> FakeOpenAIServer:
        fake = FakeOpenAIServer(respond=respond, **options)

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                with fake.lock:
                    fake.paths.append(self.path)
                if self.path.split("?", 1)[0] != "/v1/chat/completions":
                    self.send_error(404)
                    return
                length = int(self.headers.get("Content-Length", 0))
                body = json.loads(self.rfile.read(length))
                headers = {k.lower(): v for k, v in self.headers.items()}
                if fake.fault is not None:
                    with fake.lock:
                        fake.requests.append((headers, body))
                    try:
                        fake.fault(self, headers)
                    except OSError:  # the client gave up on us: that is the point of most faults
                        self.close_connection = True
                    return
                status, payload = fake.handle(body, headers)
                data = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, format: str, *args: Any) -> None:
                return

        server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        server.daemon_threads = True
        threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
        servers.append(server)
        fake.url = f"http://127.0.0.1:{server.server_address[1]}/v1"
        return fake

    yield start
    for server in servers:
        server.shutdown()
        server.server_close()


# ---------------------------------------------------------------- fault injectors for ``fault=``

Fault = Callable[[BaseHTTPRequestHandler, dict[str, str]], None]


def completion_payload(content: Any) -> dict[str, Any]:
    """A well-formed chat completion around ``content`` (faults replace parts of it)."""
    return {
        "id": "cmpl-test",
        "object": "chat.completion",
        "choices": [{"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 11, "completion_tokens": 3, "total_tokens": 14},
    }


def reply_bytes(data: bytes | Callable[[dict[str, str]], bytes], status: int = 200, **headers: str) -> Fault:
    """Answer ``status`` with ``data`` (or ``data(request_headers)``) and the given headers."""

    def fault(handler: BaseHTTPRequestHandler, request_headers: dict[str, str]) -> None:
        body = data(request_headers) if callable(data) else data
        handler.send_response(status)
        for name, value in {"Content-Type": "application/json", "Content-Length": str(len(body)), **headers}.items():
            handler.send_header(name.replace("_", "-"), value)
        handler.end_headers()
        handler.wfile.write(body)

    return fault


def reply_json(payload: Any, status: int = 200) -> Fault:
    return reply_bytes(json.dumps(payload).encode(), status)


def redirect_to(url: str, status: int = 302) -> Fault:
    return reply_bytes(b"", status, Location=url)


def echo_headers(status: int) -> Fault:
    """Answer ``status`` with a body that repeats every request header (keys included)."""
    return reply_bytes(lambda headers: json.dumps({"error": {"message": f"you sent {headers}"}}).encode(), status)


def trickle(data: bytes, seconds_per_byte: float, *, from_status_line: bool = False) -> Fault:
    """Send the reply one byte at a time (from the status line on, or after quick headers)."""

    def fault(handler: BaseHTTPRequestHandler, request_headers: dict[str, str]) -> None:
        head = b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n" % len(data)
        if not from_status_line:
            handler.wfile.write(head)
            handler.wfile.flush()
        for byte in (head if from_status_line else b"") + data:
            handler.wfile.write(bytes([byte]))
            handler.wfile.flush()
            time.sleep(seconds_per_byte)

    return fault


def stream_zeros(total_bytes: int, *, declare_length: bool) -> Fault:
    """A 200 reply of ``total_bytes`` spaces, sent in 1 MiB chunks (with or without Content-Length)."""

    def fault(handler: BaseHTTPRequestHandler, request_headers: dict[str, str]) -> None:
        handler.send_response(200)
        handler.send_header("Content-Type", "application/json")
        if declare_length:
            handler.send_header("Content-Length", str(total_bytes))
        handler.send_header("Connection", "close")
        handler.end_headers()
        chunk = b" " * (1 << 20)
        for _ in range(total_bytes // len(chunk)):
            handler.wfile.write(chunk)
        handler.close_connection = True

    return fault


def _protocol_of(variant: str) -> str:
    """The registered protocol a variant name belongs to (``oracle_aug_vcot_fixed_last2`` -> ``oracle_aug_vcot``)."""
    names = sorted(protocol_names(), key=len, reverse=True)
    return next((n for n in names if variant == n or variant.startswith(n + "_")), "direct")


def conversation_from_request(body: dict[str, Any], headers: dict[str, str]) -> Conversation:
    """Rebuild enough of a ``Conversation`` (roles, texts, session id, what it asks) for a scripted policy.

    A server is not told what a request asks; it is read back from the text, as a model would.
    """
    messages = []
    for message in body["messages"]:
        content = message["content"]
        text = content if isinstance(content, str) else "".join(p.get("text", "") for p in content)
        messages.append(Message(message["role"], (TextPart(text),)))
    session_id = headers.get("x-session-id", "")
    variant = session_id.split("/")[1] if session_id.count("/") == 2 else ""
    if messages[-1].text.endswith(REMAINING_QUESTION):
        asks = "remaining"
    elif issubclass(protocol_class(_protocol_of(variant)), InteractiveEpisode):
        asks = "step"
    else:
        asks = "answer"
    return Conversation(tuple(messages), session_id, asks)  # type: ignore[arg-type]


@pytest.fixture
def oracle_server(
    fake_server: Callable[..., FakeOpenAIServer], instances: list[Instance]
) -> Callable[..., FakeOpenAIServer]:
    """``start(**options)``: a loopback server answering like the scripted oracle (by ``X-Session-ID``)."""
    from vgau_data.runners.policies import make_policy

    policy = make_policy("oracle", instances)

    def start(**options: Any) -> FakeOpenAIServer:
        return fake_server(lambda body, headers: policy(conversation_from_request(body, headers)), **options)

    return start
