"""The HTTP layer, driven in-process through httpx's ASGI transport."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest

from agentchat.scripted_llm.server import create_app, serve_in_thread
from tests.scripted_llm.sse import deltas, parse_stream


@pytest.fixture
async def llm() -> AsyncIterator[httpx.AsyncClient]:
    transport = httpx.ASGITransport(app=create_app())
    async with httpx.AsyncClient(transport=transport, base_url="http://llm/v1") as client:
        yield client


def _body(text: str, *, stream: bool = True, **extra: Any) -> dict[str, Any]:
    messages = [{"role": "system", "content": "sys"}, {"role": "user", "content": text}]
    return {"model": "demo-model", "messages": messages, "stream": stream, **extra}


async def test_models_lists_the_scripted_model_with_its_context_length(
    llm: httpx.AsyncClient,
) -> None:
    response = await llm.get("/models")
    assert response.status_code == 200
    (card,) = response.json()["data"]
    assert (card["object"], card["context_length"]) == ("model", 131072)
    one = await llm.get("/models/any-name")
    assert (one.json()["id"], one.json()["context_length"]) == ("any-name", 131072)


async def test_unknown_paths_are_404(llm: httpx.AsyncClient) -> None:
    assert (await llm.get("http://llm/api/tags")).status_code == 404
    assert (await llm.post("http://llm/v1/completions", json={})).status_code == 404


async def test_streaming_sends_reasoning_answer_finish_usage_and_done(
    llm: httpx.AsyncClient,
) -> None:
    response = await llm.post("/chat/completions", json=_body("#think hmm ok\n#say Hi there"))
    assert response.headers["content-type"].startswith("text/event-stream")
    chunks, done = parse_stream(response.text)
    assert done
    assert chunks[0]["choices"][0]["delta"]["role"] == "assistant"
    assert {c["model"] for c in chunks} == {"demo-model"}
    assert {c["object"] for c in chunks} == {"chat.completion.chunk"}
    assert deltas(chunks, "reasoning_content") == "hmm ok"
    assert deltas(chunks, "content") == "Hi there"
    assert chunks[-2]["choices"][0]["finish_reason"] == "stop"
    assert chunks[-1]["choices"] == []
    usage = chunks[-1]["usage"]
    assert usage["completion_tokens"] == 4
    assert usage["total_tokens"] == usage["prompt_tokens"] + 4


async def test_streaming_tool_call_comes_after_the_text_of_its_step(
    llm: httpx.AsyncClient,
) -> None:
    response = await llm.post(
        "/chat/completions", json=_body("#usage 60000\n#say Planning.\n#todo a; b\n#say done")
    )
    chunks, _ = parse_stream(response.text)
    assert deltas(chunks, "content") == "Planning."
    calls = [
        tc for c in chunks if c["choices"] for tc in c["choices"][0]["delta"].get("tool_calls", [])
    ]
    assert calls[0]["id"].startswith("call_")
    assert (calls[0]["type"], calls[0]["function"]["name"]) == ("function", "todo")
    arguments = "".join(tc["function"]["arguments"] for tc in calls)
    assert [t["content"] for t in json.loads(arguments)["todos"]] == ["a", "b"]
    assert {tc["index"] for tc in calls} == {0}
    assert chunks[-2]["choices"][0]["finish_reason"] == "tool_calls"
    assert chunks[-1]["usage"]["prompt_tokens"] == 60000


async def test_non_streaming_returns_one_completion(llm: httpx.AsyncClient) -> None:
    response = await llm.post(
        "/chat/completions", json=_body("#think why\n#say a b\n#clarify Q? | x", stream=False)
    )
    body = response.json()
    assert body["object"] == "chat.completion"
    (choice,) = body["choices"]
    message = choice["message"]
    assert (message["content"], message["reasoning_content"]) == ("a b", "why")
    assert message["tool_calls"][0]["function"] == {
        "name": "clarify",
        "arguments": json.dumps({"question": "Q?", "choices": ["x"]}),
    }
    assert choice["finish_reason"] == "tool_calls"
    assert body["usage"]["completion_tokens"] == 4


async def test_fail_answers_with_the_status_and_an_openai_error_body(
    llm: httpx.AsyncClient,
) -> None:
    response = await llm.post("/chat/completions", json=_body("#fail 429"))
    assert response.status_code == 429
    error = response.json()["error"]
    assert error["type"] == "rate_limit_error"
    assert "429" in error["message"]
    server = await llm.post("/chat/completions", json=_body("#fail 500", stream=False))
    assert (server.status_code, server.json()["error"]["type"]) == (500, "server_error")


async def test_a_request_without_messages_is_rejected(llm: httpx.AsyncClient) -> None:
    assert (await llm.post("/chat/completions", json={"model": "x"})).status_code == 422


async def test_many_tokens_stream_in_order(llm: httpx.AsyncClient) -> None:
    response = await llm.post("/chat/completions", json=_body("#tokens 2000"))
    chunks, done = parse_stream(response.text)
    text = deltas(chunks, "content")
    assert done
    assert text.split() == [f"t{i}" for i in range(1, 2001)]
    assert chunks[-1]["usage"]["completion_tokens"] == 2000


async def test_a_model_name_with_quotes_is_encoded_safely(llm: httpx.AsyncClient) -> None:
    body = _body("#say ok") | {"model": 'odd "name"'}
    chunks, done = parse_stream((await llm.post("/chat/completions", json=body)).text)
    assert done
    assert {c["model"] for c in chunks} == {'odd "name"'}


async def test_usage_zero_is_reported_as_zero(llm: httpx.AsyncClient) -> None:
    chunks, _ = parse_stream((await llm.post("/chat/completions", json=_body("#usage 0"))).text)
    assert chunks[-1]["usage"]["prompt_tokens"] == 0


async def test_hold_waits_for_its_gate_then_plays_the_rest() -> None:
    url, stop = serve_in_thread()  # a real server: the ASGI transport buffers whole responses
    try:
        async with httpx.AsyncClient(base_url=url, timeout=10) as llm:
            body = _body("#say before\n#hold gate-a\n#say after")
            async with llm.stream("POST", "/chat/completions", json=body) as response:
                lines = response.aiter_lines()
                seen = ""
                while "before" not in deltas_text(seen):
                    seen += await anext(lines) + "\n"
                rest = asyncio.ensure_future(_join(lines))
                done, _ = await asyncio.wait({rest}, timeout=0.3)
                assert not done  # held: the stream does not go on by itself
                assert (await llm.post("/_gates/gate-a")).status_code == 204
                text = seen + await asyncio.wait_for(rest, 10)
            assert "[DONE]" in text and deltas_text(text) == "before\nafter"
            body = _body("#hold gate-a\n#say open", stream=False)
            again = await llm.post("/chat/completions", json=body)  # a released gate stays open
            assert again.json()["choices"][0]["message"]["content"] == "open"
    finally:
        stop()


async def _join(lines: AsyncIterator[str]) -> str:
    return "".join([line + "\n" async for line in lines])


def deltas_text(raw: str) -> str:
    chunks, _done = parse_stream(raw)
    return deltas(chunks, "content")
