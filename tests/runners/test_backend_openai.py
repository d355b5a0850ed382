"""The OpenAI-compatible backend against a loopback HTTP server (127.0.0.1 only)."""

from __future__ import annotations

from typing import Any

import pytest
from PIL import Image

from vgau_data.runners.backends.base import BackendError, GenParams
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
    assert not completion.ok and "URLError" in completion.error


def test_openai__checks_its_arguments() -> None:
    with pytest.raises(BackendError, match="base-url"):
        OpenAIBackend("m", base_url="127.0.0.1:8000")
    with pytest.raises(BackendError, match="--model"):
        OpenAIBackend("", base_url="http://x/v1")


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
