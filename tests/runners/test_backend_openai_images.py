"""OpenAI-compatible image endpoints against a loopback server: edits (multipart), generations,
chat completions that return images; failures recorded, keys scrubbed, links not followed."""

from __future__ import annotations

import base64
import email.parser
import email.policy
import io
import json
import threading
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest
from PIL import Image

from vgau_data.runners.backends import (
    BackendError,
    GenParams,
    ImageRequest,
    capabilities_of,
    load_backend,
    openai_images,
)
from vgau_data.runners.messages import Conversation, user

BOARD = Image.new("RGB", (24, 16), (10, 200, 30))


def _png_b64(image: Image.Image) -> str:
    buffer = io.BytesIO()
    image.save(buffer, "PNG")
    return base64.b64encode(buffer.getvalue()).decode()


Reply = Callable[[str, dict[str, str], bytes], tuple[int, dict[str, Any]]]


@pytest.fixture
def server() -> Iterator[Callable[[Reply], tuple[str, list[tuple[str, dict[str, str], bytes]]]]]:
    """``start(reply) -> (base_url, log)``: a loopback server answering with ``reply(path, headers, body)``."""
    started: list[ThreadingHTTPServer] = []

    def start(reply: Reply) -> tuple[str, list[tuple[str, dict[str, str], bytes]]]:
        log: list[tuple[str, dict[str, str], bytes]] = []

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
                headers = {key.lower(): value for key, value in self.headers.items()}
                log.append((self.path, headers, body))
                status, payload = reply(self.path, headers, body)
                data = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args: Any) -> None:
                pass

        httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=httpd.serve_forever, daemon=True).start()
        started.append(httpd)
        return f"http://127.0.0.1:{httpd.server_address[1]}/v1", log

    yield start
    for httpd in started:
        httpd.shutdown()
        httpd.server_close()


def _form(headers: dict[str, str], body: bytes) -> dict[str, bytes]:
    message = email.parser.BytesParser(policy=email.policy.default).parsebytes(
        f"Content-Type: {headers['content-type']}\r\n\r\n".encode() + body
    )
    return {part.get_param("name", header="content-disposition"): part.get_payload(decode=True) for part in message.iter_parts()}


def _request(conversation: Conversation | None = None) -> ImageRequest:
    return ImageRequest(session_id="maze-easy-0000/self_gta/run0", purpose="aid", instruction="Add a red grid.",
                        images=(BOARD,), conversation=conversation, family="maze")  # fmt: skip


def _gen(**options: Any) -> Any:
    return load_backend("openai-image", model="editor", backoff_s=0.0, **options)


def test_edits__sends_the_board_as_multipart_and_reads_b64_json(server) -> None:
    def reply(path: str, headers: dict[str, str], body: bytes) -> tuple[int, dict[str, Any]]:
        form = _form(headers, body)
        edited = Image.open(io.BytesIO(form["image"])).convert("RGB").transpose(Image.Transpose.FLIP_LEFT_RIGHT)
        return 200, {"data": [{"b64_json": _png_b64(edited)}], "prompt_seen": form["prompt"].decode()}

    url, log = server(reply)
    generator = _gen(base_url=url, size="512x512")
    assert capabilities_of(generator) == {"image_edit"}
    made = generator.generate([_request()], GenParams())[0]
    assert made.ok and made.image.size == (24, 16)
    assert made.image.tobytes() == BOARD.transpose(Image.Transpose.FLIP_LEFT_RIGHT).tobytes()
    path, headers, body = log[0]
    form = _form(headers, body)
    assert path == "/v1/images/edits"
    assert (form["model"], form["prompt"], form["size"], form["response_format"]) == (
        b"editor", b"Add a red grid.", b"512x512", b"b64_json"
    )


def test_generations__posts_json(server) -> None:
    url, log = server(lambda path, headers, body: (200, {"data": [{"b64_json": _png_b64(BOARD)}]}))
    made = _gen(base_url=url, endpoint="generations").generate([_request()], GenParams())[0]
    assert made.ok and made.image.tobytes() == BOARD.tobytes()
    assert log[0][0] == "/v1/images/generations"
    assert json.loads(log[0][2]) == {"model": "editor", "prompt": "Add a red grid.", "n": 1, "response_format": "b64_json"}


def test_generations__extra_body_joins_the_json_body_and_the_fingerprint(server) -> None:
    url, log = server(lambda path, headers, body: (200, {"data": [{"b64_json": _png_b64(BOARD)}]}))
    backend = _gen(base_url=url, endpoint="generations", extra_body={"quality": "high"})
    assert backend.generate([_request()], GenParams())[0].ok
    assert json.loads(log[0][2])["quality"] == "high"
    assert backend.fingerprint() != _gen(base_url=url, endpoint="generations").fingerprint()
    with pytest.raises(BackendError, match="endpoint=chat or generations"):
        _gen(endpoint="edits", extra_body={"quality": "high"})
    with pytest.raises(BackendError, match="may not set prompt"):
        _gen(endpoint="generations", extra_body={"prompt": "other"})


def test_chat__a_unified_model_answers_and_draws_in_one_object(server) -> None:
    def reply(path: str, headers: dict[str, str], body: bytes) -> tuple[int, dict[str, Any]]:
        request = json.loads(body)
        if "modalities" in request:
            image = {"type": "image_url", "image_url": {"url": "data:image/png;base64," + _png_b64(BOARD)}}
            return 200, {"choices": [{"message": {"role": "assistant", "content": "Here is the grid.", "images": [image]}}]}
        return 200, {"choices": [{"message": {"role": "assistant", "content": "up"}, "finish_reason": "stop"}]}

    url, log = server(reply)
    model = _gen(base_url=url, endpoint="chat")
    assert capabilities_of(model) == {"chat", "image_edit"}
    conversation = Conversation((user(BOARD, "Solve the maze."),), "maze-easy-0000/self_gta/run0")
    made = model.generate([_request(conversation)], GenParams())[0]
    assert made.ok and made.text == "Here is the grid." and made.image.tobytes() == BOARD.tobytes()
    sent = json.loads(log[0][2])
    assert sent["modalities"] == ["image", "text"]
    assert [m["role"] for m in sent["messages"]] == ["user", "user"]
    assert sent["messages"][-1]["content"][-1] == {"type": "text", "text": "Add a red grid."}
    assert model.chat([conversation], GenParams())[0].text == "up"


def test_failures__links_are_not_followed_errors_are_retried_then_recorded(server) -> None:
    replies = [(500, {"error": "busy"}), (200, {"data": [{"url": "http://elsewhere.example/x.png"}]})]
    url, log = server(lambda path, headers, body: replies.pop(0) if replies else (200, {"data": []}))
    made = _gen(base_url=url, max_retries=2).generate([_request()], GenParams())[0]
    assert not made.ok and len(log) == 3
    assert "no data[0]" in made.error
    url, _ = server(lambda path, headers, body: (200, {"data": [{"url": "http://elsewhere.example/x.png"}]}))
    made = _gen(base_url=url, max_retries=0).generate([_request()], GenParams())[0]
    assert "not followed" in made.error
    url, _ = server(lambda path, headers, body: (200, {"data": [{"b64_json": "not base64!"}]}))
    assert "bad base64" in _gen(base_url=url, max_retries=0).generate([_request()], GenParams())[0].error


def test_failures__oversized_images_are_refused(server, monkeypatch) -> None:
    monkeypatch.setattr(openai_images, "MAX_PIXELS", 100)
    url, _ = server(lambda path, headers, body: (200, {"data": [{"b64_json": _png_b64(BOARD)}]}))
    made = _gen(base_url=url, max_retries=0).generate([_request()], GenParams())[0]
    assert "24x16 pixels; at most 8192 a side and 100 pixels are decoded" in made.error


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode()


def _bomb_png(side: int) -> bytes:
    buffer = io.BytesIO()
    Image.new("L", (side, side)).save(buffer, "PNG", optimize=True)
    return buffer.getvalue()


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (_bomb_png(8192), "is 8192x8192 pixels; at most 8192 a side and 16,777,216 pixels are decoded"),
        (b"%!PS-Adobe-3.0 EPSF-3.0\n%%BoundingBox: 0 0 100 100\nnewpath 0 0 moveto showpage\n", "(PostScript)"),
        (b"II*\x00\x08\x00\x00\x00" + b"\x00" * 64, "(TIFF)"),
        (b"GIF89a" + b"\x00" * 64, "(GIF)"),
        (b"\x89PNG\r\n\x1a\n" + b"\x00" * 64, "not a readable PNG image"),
    ],
    ids=["bomb-under-pillows-limit", "postscript", "tiff", "gif", "broken-png"],
)
def test_failures__only_png_webp_jpeg_within_the_pixel_cap_are_decoded(server, data: bytes, message: str) -> None:
    """A reply of a few hundred kilobytes must not cost gigabytes, nor run Ghostscript."""
    assert len(_b64(data)) < 400_000
    url, _ = server(lambda path, headers, body: (200, {"data": [{"b64_json": _b64(data)}]}))
    made = _gen(base_url=url, max_retries=0).generate([_request()] * 6, GenParams())
    assert all(not image.ok and message in image.error for image in made), made[0].error


def test_failures__webp_and_jpeg_replies_are_read(server) -> None:
    for kind in ("WEBP", "JPEG"):
        buffer = io.BytesIO()
        BOARD.save(buffer, kind)
        reply = {"data": [{"b64_json": _b64(buffer.getvalue())}]}
        url, _ = server(lambda path, headers, body, reply=reply: (200, reply))
        made = _gen(base_url=url, max_retries=0).generate([_request()], GenParams())[0]
        assert made.ok and made.image.size == BOARD.size, made.error


def test_failures__keys_are_scrubbed_and_bad_keys_stop_the_run(server, monkeypatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-secret-123456")
    url, log = server(lambda path, headers, body: (400, {"error": f"bad request from {headers.get('authorization')}"}))
    made = _gen(base_url=url, max_retries=0).generate([_request()], GenParams())[0]
    assert log[0][1]["authorization"] == "Bearer sk-test-secret-123456"
    assert "HTTP 400" in made.error and "sk-test-secret-123456" not in made.error
    url, _ = server(lambda path, headers, body: (401, {"error": "no"}))
    with pytest.raises(BackendError, match="HTTP 401"):
        _gen(base_url=url).generate([_request()], GenParams())


def test_settings__endpoint_is_checked_and_fingerprinted() -> None:
    with pytest.raises(BackendError, match="endpoint must be one of"):
        _gen(endpoint="variations")
    assert _gen(endpoint="edits").fingerprint() != _gen(endpoint="generations").fingerprint()
    assert _gen(endpoint="chat").describe()["capabilities"] == ["chat", "image_edit"]
    missing = ImageRequest(session_id="x/y/run0", purpose="aid", instruction="draw")
    assert "needs the board" in _gen().generate([missing], GenParams())[0].error
