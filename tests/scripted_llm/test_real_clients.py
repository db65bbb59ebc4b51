"""The scripted model on a real socket: `serve_in_thread`, the openai client, and timing."""

from __future__ import annotations

import json
import socket
import time
from collections.abc import Iterator
from urllib.parse import urlsplit

import httpx
import pytest
from openai import OpenAI
from openai.types.chat import ChatCompletionMessageParam

from agentchat.scripted_llm.server import serve_in_thread


@pytest.fixture(scope="module")
def base_url() -> Iterator[str]:
    url, stop = serve_in_thread()
    yield url
    stop()


@pytest.fixture
def client(base_url: str) -> OpenAI:
    return OpenAI(base_url=base_url, api_key="unused", max_retries=0, timeout=10)


def _user(text: str) -> list[ChatCompletionMessageParam]:
    return [{"role": "user", "content": text}]


def test_openai_client_streams_reasoning_text_and_a_tool_call(client: OpenAI) -> None:
    stream = client.chat.completions.create(
        model="scripted",
        messages=_user("#think plan\n#say Working on it\n#todo one; two"),
        stream=True,
        stream_options={"include_usage": True},
    )
    reasoning, content, names, arguments, finish, usage = "", "", [], "", None, None
    for chunk in stream:
        if chunk.usage:
            usage = chunk.usage
        if not chunk.choices:
            continue
        delta = chunk.choices[0].delta
        reasoning += getattr(delta, "reasoning_content", None) or ""
        content += delta.content or ""
        for call in delta.tool_calls or []:
            names += [call.function.name] if call.function and call.function.name else []
            arguments += (call.function.arguments or "") if call.function else ""
        finish = chunk.choices[0].finish_reason or finish
    assert (reasoning, content, names, finish) == ("plan", "Working on it", ["todo"], "tool_calls")
    assert json.loads(arguments)["todos"][0] == {
        "id": "1",
        "content": "one",
        "status": "in_progress",
    }
    assert usage is not None and usage.completion_tokens == 5


def test_openai_client_non_streaming_completion(client: OpenAI) -> None:
    completion = client.chat.completions.create(
        model="scripted",
        messages=_user("#think a\n#say Hello there"),
    )
    message = completion.choices[0].message
    assert message.content == "Hello there"
    assert getattr(message, "reasoning_content", None) == "a"
    assert completion.choices[0].finish_reason == "stop"
    assert completion.usage is not None and completion.usage.total_tokens > 0


def test_openai_client_sees_fail_as_an_api_error(client: OpenAI) -> None:
    from openai import InternalServerError

    with pytest.raises(InternalServerError) as raised:
        client.chat.completions.create(model="scripted", messages=_user("#fail 500"))
    assert raised.value.status_code == 500


def test_openai_client_lists_models(client: OpenAI) -> None:
    (model,) = client.models.list().data
    assert model.id == "scripted"
    assert model.model_extra is not None and model.model_extra["context_length"] == 131072


def test_delay_spaces_out_streamed_chunks(base_url: str) -> None:
    body = {"model": "m", "messages": _user("#delay 200\n#tokens 3"), "stream": True}
    asked = time.monotonic()
    with (
        httpx.Client(timeout=10) as http,
        http.stream("POST", f"{base_url}/chat/completions", json=body) as response,
    ):
        arrivals = [time.monotonic() for line in response.iter_lines() if '"content"' in line]
    assert len(arrivals) == 3
    assert arrivals[2] - asked >= 0.6  # a wait before each chunk
    # Spread out, not sent together: 400 ms apart on the server; a starved client may read
    # the first one late (a CI run measured 66 ms for 80 with #delay 40), hence half.
    assert arrivals[2] - arrivals[0] >= 0.2


def test_serve_in_thread_picks_a_free_port_and_releases_it_on_stop() -> None:
    url, stop = serve_in_thread()
    parts = urlsplit(url)
    assert (parts.hostname, parts.path) == ("127.0.0.1", "/v1")
    assert httpx.get(f"{url}/models", timeout=5).status_code == 200
    other_url, other_stop = serve_in_thread()
    assert other_url != url
    other_stop()
    stop()
    with socket.socket() as probe:
        assert probe.connect_ex(("127.0.0.1", parts.port or 0)) != 0


def test_stop_ends_an_open_stream_promptly() -> None:
    url, stop = serve_in_thread()
    body = {"model": "m", "messages": _user("#delay 200\n#tokens 1000"), "stream": True}
    with (
        httpx.Client(timeout=10) as http,
        http.stream("POST", f"{url}/chat/completions", json=body) as response,
    ):
        lines = response.iter_lines()
        assert next(lines).startswith("data: ")
        started = time.monotonic()
        stop()
        assert time.monotonic() - started < 3
        with pytest.raises(httpx.RemoteProtocolError):
            list(lines)
