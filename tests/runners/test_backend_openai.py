"""The OpenAI-compatible backend against a loopback HTTP server (127.0.0.1 only)."""

from __future__ import annotations

import base64
import hashlib
import json
import time
import tracemalloc
import urllib.parse
from typing import Any

import pytest
from PIL import Image

from tests.runners.conftest import (
    completion_payload,
    echo_headers,
    redirect_to,
    reply_bytes,
    reply_json,
    stream_zeros,
    trickle,
)
from vgau_data.runners.backends.base import BackendError, GenParams
from vgau_data.runners.backends.credentials import basic_authorization
from vgau_data.runners.backends.openai_compat import OpenAIBackend
from vgau_data.runners.driver import drive
from vgau_data.runners.messages import Conversation, assistant, user
from vgau_data.runners.protocols import ProtocolConfig, make_episode


def images_in(body: dict[str, Any]) -> int:
    return sum(
        1
        for message in body["messages"]
        if isinstance(message["content"], list)
        for part in message["content"]
        if part.get("type") == "image_url"
    )


def _backend(url: str, **options: Any) -> OpenAIBackend:
    sleeps: list[float] = []
    backend = OpenAIBackend("tiny-served", base_url=url, sleep=sleeps.append, **options)
    backend.sleeps = sleeps  # type: ignore[attr-defined]
    return backend


def test_openai__sends_model_images_settings_key_and_session_and_reads_usage(fake_server, monkeypatch) -> None:
    server = fake_server(lambda body, headers: '<ANSWER_JSON>["up"]</ANSWER_JSON>')
    monkeypatch.setenv("TEST_VGAU_KEY", "sk-test-123")
    backend = _backend(server.url, api_key_env="TEST_VGAU_KEY")
    board = Image.new("RGB", (8, 8), (255, 0, 0))
    conversation = Conversation(
        (user(board, "go"), assistant("up"), user("now", board)), "maze-easy-0000/oracle_vcot/run0"
    )
    (completion,) = backend.chat([conversation], GenParams(max_new_tokens=32, seed=7))
    assert completion.ok and completion.text == '<ANSWER_JSON>["up"]</ANSWER_JSON>'
    assert (completion.prompt_tokens, completion.completion_tokens, completion.finish_reason) == (11, 3, "stop")
    headers, body = server.requests[0]
    assert headers["authorization"] == "Bearer sk-test-123"
    assert headers["x-session-id"] == "maze-easy-0000/oracle_vcot/run0"
    assert body["model"] == "tiny-served"
    assert (body["max_tokens"], body["temperature"], body["seed"]) == (32, 0.0, 7)
    assert images_in(body) == 2
    assert [m["role"] for m in body["messages"]] == ["user", "assistant", "user"]


def test_openai__without_a_key_sends_no_authorization_header(fake_server, monkeypatch) -> None:
    server = fake_server(lambda body, headers: "ok")
    monkeypatch.delenv("TEST_VGAU_UNSET", raising=False)
    _backend(server.url, api_key_env="TEST_VGAU_UNSET").chat([Conversation((user("hi"),))], GenParams())
    assert "authorization" not in server.requests[0][0]


def test_openai__retries_retryable_failures_with_exponential_backoff(fake_server) -> None:
    server = fake_server(lambda body, headers: "fine", fail_next=[503, 429, 500])
    backend = _backend(server.url, max_retries=5, backoff_s=0.5)
    (completion,) = backend.chat([Conversation((user("hi"),))], GenParams())
    assert completion.ok and completion.text == "fine"
    assert len(server.requests) == 4
    assert backend.sleeps == [0.5, 1.0, 2.0]  # type: ignore[attr-defined]


def test_openai__a_request_that_keeps_failing_comes_back_as_an_error(fake_server) -> None:
    server = fake_server(lambda body, headers: "never", fail_next=[503] * 10)
    backend = _backend(server.url, max_retries=2)
    (completion,) = backend.chat([Conversation((user("hi"),))], GenParams())
    assert not completion.ok
    assert "HTTP 503" in completion.error and completion.text == ""
    assert len(server.requests) == 3


def test_openai__client_errors_are_recorded_without_retrying(fake_server) -> None:
    server = fake_server(lambda body, headers: "never", fail_next=[400])
    (completion,) = _backend(server.url).chat([Conversation((user("hi"),))], GenParams())
    assert "HTTP 400" in completion.error
    assert len(server.requests) == 1


def test_openai__bad_key_or_wrong_model_raises_at_once(fake_server) -> None:
    server = fake_server(lambda body, headers: "never", fail_next=[401])
    with pytest.raises(BackendError, match="401.*OPENAI_API_KEY"):
        _backend(server.url).chat([Conversation((user("hi"),))], GenParams())
    assert len(server.requests) == 1


def test_openai__unreachable_server_is_an_error_after_retries() -> None:
    backend = _backend("http://127.0.0.1:9/v1", max_retries=1, timeout_s=2.0)
    (completion,) = backend.chat([Conversation((user("hi"),))], GenParams())
    assert not completion.ok and "ConnectError" in completion.error


def test_openai__checks_its_arguments() -> None:
    with pytest.raises(BackendError, match="base-url"):
        OpenAIBackend("m", base_url="127.0.0.1:8000")
    with pytest.raises(BackendError, match="--model"):
        OpenAIBackend("", base_url="http://x/v1")


def test_openai__extra_body_sends_a_vendor_switch_and_is_part_of_the_models_identity(fake_server) -> None:
    server = fake_server(lambda body, headers: "ok")
    thinking = _backend(server.url, extra_body={"enable_thinking": True, "thinking": {"type": "enabled"}})
    thinking.chat([Conversation((user("hi"),))], GenParams(max_new_tokens=8))
    _, body = server.requests[0]
    assert body["enable_thinking"] is True and body["thinking"] == {"type": "enabled"} and body["max_tokens"] == 8
    plain = _backend(server.url)
    assert thinking.fingerprint() != plain.fingerprint()
    assert plain.fingerprint() == hashlib.sha256(f"openai:{plain.base_url}:tiny-served".encode()).hexdigest()  # unchanged
    assert thinking.describe()["extra_body"] == {"enable_thinking": True, "thinking": {"type": "enabled"}}
    assert "extra_body" not in plain.describe()


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        ({"temperature": 1.0}, "may not set temperature"),
        ({"max_completion_tokens": 9, "seed": 1}, "may not set max_completion_tokens, seed"),
        (["enable_thinking"], "must be a JSON object"),
        ({"x": float("nan")}, "JSON values only"),
        ({"x": "a" * 20_000}, "at most 16,384"),
    ],
)
def test_openai__extra_body_that_would_override_or_is_not_json_is_refused(extra: Any, message: str) -> None:
    with pytest.raises(BackendError, match=message):
        OpenAIBackend("m", base_url="http://x/v1", extra_body=extra)


def test_openai__a_batch_keeps_its_order_under_concurrency(fake_server) -> None:
    server = fake_server(lambda body, headers: body["messages"][0]["content"][0]["text"], delay_s=0.02)
    conversations = [Conversation((user(f"echo {i}"),)) for i in range(12)]
    completions = _backend(server.url, concurrency=4).chat(conversations, GenParams())
    assert [c.text for c in completions] == [f"echo {i}" for i in range(12)]


def test_openai__interactive_episode_sends_one_more_board_each_turn(oracle_server, instances) -> None:
    server = oracle_server()
    maze = next(i for i in instances if i.task == "maze" and i.optimal_length >= 3)
    episode = make_episode(maze, ProtocolConfig(name="oracle_vcot"), 0)
    drive(_backend(server.url), [episode], GenParams(max_new_tokens=16))
    assert episode.outcome().end == "goal"
    counts = [images_in(body) for _, body in server.requests]
    assert counts == list(range(1, maze.optimal_length + 1))
    assert {headers["x-session-id"] for headers, _ in server.requests} == {episode.session_id}


def test_openai__history_option_caps_the_images_sent(oracle_server, instances) -> None:
    server = oracle_server()
    maze = next(i for i in instances if i.task == "maze" and i.optimal_length >= 3)
    episode = make_episode(maze, ProtocolConfig(name="oracle_aug_vcot", history=2), 0)
    drive(_backend(server.url), [episode], GenParams(max_new_tokens=16))
    counts = [images_in(body) for _, body in server.requests]
    assert counts[0] == 2  # board + aid
    assert all(count == 2 for count in counts)
    assert len(counts) == maze.optimal_length


# ---------------------------------------------------------------- hostile servers (issue 10)

KEY = "sk-test-0123456789abcdef"


def _keyed_backend(url: str, monkeypatch, **options: Any) -> OpenAIBackend:
    monkeypatch.setenv("TEST_VGAU_KEY", KEY)
    return _backend(url, api_key_env="TEST_VGAU_KEY", max_retries=0, **options)


def _one(backend: OpenAIBackend) -> Any:
    (completion,) = backend.chat([Conversation((user("hi"),), "maze-easy-0000/direct/run0")], GenParams())
    return completion


@pytest.mark.parametrize("status", [301, 302, 303, 307, 308])
def test_openai__redirects_are_errors_and_never_carry_the_key_elsewhere(fake_server, monkeypatch, status: int) -> None:
    elsewhere = fake_server(lambda body, headers: '<ANSWER_JSON>["up"]</ANSWER_JSON>')
    server = fake_server(lambda body, headers: "never", fault=redirect_to(elsewhere.url + "/chat/completions", status))
    completion = _one(_keyed_backend(server.url, monkeypatch))
    assert not completion.ok and completion.text == ""
    assert f"HTTP {status} redirect to" in completion.error and "not followed" in completion.error
    assert elsewhere.requests == []
    assert len(server.requests) == 1  # not retried


@pytest.mark.parametrize("status", [400, 422, 500, 503])
def test_openai__error_bodies_that_echo_headers_are_redacted(fake_server, monkeypatch, status: int) -> None:
    server = fake_server(lambda body, headers: "never", fault=echo_headers(status))
    completion = _one(_keyed_backend(server.url, monkeypatch))
    assert f"HTTP {status}" in completion.error and "[redacted]" in completion.error
    assert KEY not in completion.error and KEY[3:15] not in completion.error


def test_openai__a_reply_that_echoes_the_key_is_scrubbed_from_the_output(fake_server, monkeypatch) -> None:
    server = fake_server(lambda body, headers: f"your key is {headers['authorization']}")
    completion = _one(_keyed_backend(server.url, monkeypatch))
    assert completion.ok and completion.text == "your key is Bearer [redacted]"


def _encodings(secret: str) -> dict[str, str]:
    """The key as a hostile server may echo it, each inside other text."""
    data = secret.encode()
    return {
        "raw": secret,
        "base64": base64.b64encode(data).decode(),
        "base64_bearer": base64.b64encode(b"Bearer " + data).decode(),
        "base64_unpadded": base64.b64encode(b"k=" + data).decode().rstrip("="),
        "urlsafe": base64.urlsafe_b64encode(b"\xff" + data + b"\xfe").decode(),
        "url_encoded": urllib.parse.quote("key=" + secret + "&x", safe=""),
        "reversed": secret[::-1],
        "hex": data.hex(),
        "HEX": data.hex().upper(),
    }


def _leaks(text: str, secret: str) -> list[str]:
    """Which encodings of ``secret`` ``text`` still holds (decoding what could be decoded)."""
    found = [name for name, form in _encodings(secret).items() if name != "raw" and form in text]
    return found + (["raw"] if secret in text or secret[::-1] in text or secret.encode().hex() in text.lower() else [])


@pytest.mark.parametrize("where", ["reply", "error"])
def test_openai__a_server_echoing_the_key_in_any_encoding_leaves_none_in_the_records(
    fake_server, monkeypatch, dataset_dir, tmp_path, where: str
) -> None:
    from vgau_data.cli import main

    echoed = " | ".join(f"{name}: {form}" for name, form in _encodings(KEY).items())
    server = fake_server(lambda body, headers: f"echo {echoed}")
    if where == "error":
        server.fault = reply_json({"error": {"message": "bad request " + echoed * 50}}, status=400)
    monkeypatch.setenv("TEST_VGAU_KEY", KEY)
    out = tmp_path / "runs"
    code = main(["run", "--backend", "openai", "--base-url", server.url, "--model", "echo", "--api-key-env",
                 "TEST_VGAU_KEY", "--dataset", str(dataset_dir), "--out", str(out), "--protocol", "direct",
                 "--limit", "1", "--runs", "1", "--no-progress"])  # fmt: skip
    assert code in (0, 1)
    written = [path for path in out.rglob("*") if path.is_file()]
    assert any(path.name == "run-0.jsonl" for path in written)
    for path in written:
        text = path.read_text(encoding="utf-8", errors="replace")
        assert not _leaks(text, KEY), (path.name, _leaks(text, KEY))
    records = "".join(p.read_text() for p in written if p.name == "run-0.jsonl")
    assert "[redacted]" in records
    if where == "error":
        (line,) = [json.loads(line) for line in records.splitlines() if '"episode"' in line][:1]
        assert len(line["error"]) <= 700  # a bounded prefix of what the server said


def test_openai__credentials_in_the_base_url_are_sent_as_basic_auth_and_never_kept(fake_server, monkeypatch) -> None:
    server = fake_server(lambda body, headers: "ok", fail_next=[500])
    monkeypatch.delenv("TEST_VGAU_UNSET", raising=False)
    url = server.url.replace("http://", "http://alice:pa55word-secret@")
    backend = _backend(url, api_key_env="TEST_VGAU_UNSET", max_retries=0)
    assert "alice" not in json.dumps(backend.describe()) and backend.base_url == server.url
    assert backend.fingerprint() == _backend(server.url).fingerprint()
    server.respond = lambda body, headers: f"echo {headers['authorization']}"
    failed = _one(backend)
    assert "pa55word" not in failed.error
    completion = _one(backend)
    assert server.requests[-1][0]["authorization"] == basic_authorization(("alice", "pa55word-secret"))
    assert completion.text == "echo Basic [redacted]"


ODD_REPLIES = {
    "message_is_a_string": json.dumps({"choices": [{"message": "str"}]}).encode(),
    "usage_is_a_number": json.dumps({**completion_payload("hi"), "usage": 5}).encode(),
    "content_is_a_dict": json.dumps(completion_payload({"text": "hi"})).encode(),
    "content_is_a_number": json.dumps(completion_payload(7)).encode(),
    "content_parts_are_not_objects": json.dumps(completion_payload(["a", 1])).encode(),
    "choices_empty": json.dumps({**completion_payload("hi"), "choices": []}).encode(),
    "choices_not_a_list": json.dumps({**completion_payload("hi"), "choices": {"0": 1}}).encode(),
    "choice_not_an_object": json.dumps({**completion_payload("hi"), "choices": ["hi"]}).encode(),
    "no_choices": b"{}",
    "a_list": b"[1, 2]",
    "not_json": b"<html>gateway</html>",
    "invalid_utf8": b'{"choices": "\xff\xfe"}',
    "huge_integer": b'{"usage": {"prompt_tokens": ' + b"9" * 10_000 + b"}}",
    "deep_nesting": b"[" * 100_000 + b"]" * 100_000,
    "tokens_are_booleans": json.dumps({**completion_payload("hi"), "usage": {"prompt_tokens": True}}).encode(),
    "finish_reason_is_a_number": json.dumps(
        {"choices": [{"message": {"content": "hi"}, "finish_reason": 3}]}
    ).encode(),
    "error_object_with_200": json.dumps({"error": {"message": f"bad key {KEY}"}}).encode(),
    "empty_body": b"",
}


@pytest.mark.parametrize("name", list(ODD_REPLIES))
def test_openai__every_unexpected_reply_shape_is_an_error_on_that_episode(fake_server, monkeypatch, name: str) -> None:
    server = fake_server(lambda body, headers: "never", fault=reply_bytes(ODD_REPLIES[name]))
    completion = _one(_keyed_backend(server.url, monkeypatch))
    assert not completion.ok and completion.text == "" and isinstance(completion.text, str)
    assert completion.error.startswith("malformed reply:") and KEY not in completion.error


def test_openai__a_malformed_status_line_is_an_error_not_a_crash(fake_server, monkeypatch) -> None:
    def garbage(handler, headers) -> None:
        handler.wfile.write(b"NOT-HTTP garbage\r\n\r\n")

    completion = _one(_keyed_backend(fake_server(lambda b, h: "never", fault=garbage).url, monkeypatch))
    assert not completion.ok and "RemoteProtocolError" in completion.error


@pytest.mark.parametrize("declare_length", [True, False])
def test_openai__a_200_mb_reply_is_refused_at_the_cap_in_bounded_memory(fake_server, monkeypatch, declare_length) -> None:
    server = fake_server(lambda b, h: "never", fault=stream_zeros(200 * 1024 * 1024, declare_length=declare_length))
    tracemalloc.start()
    try:
        start = time.perf_counter()
        completion = _one(_keyed_backend(server.url, monkeypatch, max_reply_mb=4))
        elapsed = time.perf_counter() - start
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert not completion.ok and "over the 4194304-byte cap" in completion.error
    assert peak < 64 * 1024 * 1024 and elapsed < 5
    assert len(completion.error) < 1000


@pytest.mark.parametrize("from_status_line", [False, True])
def test_openai__a_one_byte_per_second_server_cannot_hold_a_request_past_the_deadline(
    fake_server, monkeypatch, from_status_line: bool
) -> None:
    data = json.dumps(completion_payload("slow")).encode()
    server = fake_server(lambda b, h: "never", fault=trickle(data, 0.05, from_status_line=from_status_line))
    start = time.perf_counter()
    completion = _one(_keyed_backend(server.url, monkeypatch, timeout_s=1.0))
    elapsed = time.perf_counter() - start
    assert not completion.ok and "no complete reply within 1 s" in completion.error
    assert elapsed < 2.0


def test_openai__the_deadline_is_per_attempt_and_a_slow_reply_is_retried(fake_server, monkeypatch) -> None:
    data = json.dumps(completion_payload("slow")).encode()
    server = fake_server(lambda b, h: "never", fault=trickle(data, 0.05))
    monkeypatch.setenv("TEST_VGAU_KEY", KEY)
    backend = _backend(server.url, api_key_env="TEST_VGAU_KEY", max_retries=2, timeout_s=0.5)
    completion = _one(backend)
    assert not completion.ok and len(server.requests) == 3 and "within 0.5 s" in completion.error


@pytest.mark.parametrize("temperature", [float("nan"), float("inf"), -0.5])
def test_gen_params__a_temperature_that_is_not_a_finite_number_never_reaches_a_server(temperature: float) -> None:
    with pytest.raises(ValueError, match="finite number >= 0"):
        GenParams(temperature=temperature, greedy=False)


def test_run__temperature_nan_is_refused_before_anything_is_sent(fake_server, dataset_dir, tmp_path, capsys) -> None:
    from vgau_data.cli import main

    server = fake_server(lambda body, headers: "never")
    args = ["run", "--dataset", str(dataset_dir), "--out", str(tmp_path), "--backend", "openai", "--base-url",
            server.url, "--model", "m", "--protocol", "direct", "--temperature", "nan", "--no-progress"]
    assert main(args) == 2
    assert server.requests == [] and not list(tmp_path.iterdir())
    assert "--temperature: expected a finite number" in capsys.readouterr().err


def test_run__extra_body_from_the_command_line_reaches_every_request_and_the_record_header(
    fake_server, dataset_dir, tmp_path
) -> None:
    from vgau_data.cli import main

    server = fake_server(lambda body, headers: '<ANSWER_JSON>["up"]</ANSWER_JSON>')
    args = ["run", "--dataset", str(dataset_dir), "--out", str(tmp_path), "--backend", "openai", "--base-url",
            server.url, "--model", "m", "--protocol", "direct", "--limit", "2", "--no-progress",
            "--backend-arg", 'extra_body={"reasoning_effort": "high"}']  # fmt: skip
    assert main(args) == 0
    assert server.requests and all(body["reasoning_effort"] == "high" for _, body in server.requests)
    (records,) = tmp_path.rglob("run-0.jsonl")
    (submission,) = tmp_path.rglob("submission.jsonl")
    assert json.loads(records.read_text().splitlines()[0])["backend"]["extra_body"] == {"reasoning_effort": "high"}
    header = json.loads(submission.read_text().splitlines()[0])
    assert header["settings"]["backend"]["extra_body"] == {"reasoning_effort": "high"}


def _replies(*replies: tuple[bytes, bytes]):
    """A fault writing ``(head, body)`` replies in turn, one per request (the last one repeats)."""
    queue = list(replies)

    def fault(handler, headers) -> None:
        head, body = queue.pop(0) if len(queue) > 1 else queue[0]
        handler.wfile.write(head + b"Content-Length: %d\r\n\r\n" % len(body) + body)
        handler.wfile.flush()

    return fault


def test_openai__retry_after_is_honoured(fake_server) -> None:
    good = json.dumps(completion_payload("fine")).encode()
    busy = (b"HTTP/1.1 429 Too Many Requests\r\nRetry-After: 7\r\n", b'{"error": "busy"}')
    server = fake_server(lambda b, h: "never", fault=_replies(busy, (b"HTTP/1.1 200 OK\r\n", good)))
    backend = _backend(server.url, max_retries=2, backoff_s=0.25)
    completion = _one(backend)
    assert completion.ok and completion.text == "fine" and backend.sleeps == [7.0]  # not the 0.25 s backoff


def test_openai__a_compressed_reply_is_never_inflated(fake_server) -> None:
    import gzip

    bomb = gzip.compress(b"\0" * (64 << 20))  # 64 MB of zeros in ~64 KB
    server = fake_server(lambda b, h: "never", fault=_replies((b"HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\n", bomb)))
    tracemalloc.start()
    try:
        completion = _one(_backend(server.url, max_reply_mb=4))
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert not completion.ok and completion.error.startswith("malformed reply") and peak < 16 << 20
    assert server.requests[0][0]["accept-encoding"] == "identity"
