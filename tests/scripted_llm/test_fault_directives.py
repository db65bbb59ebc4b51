"""Directives that make the scripted model misbehave the way real endpoints do."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest

from agentchat.protocol.sse import parse_text
from agentchat.scripted_llm.server import create_app
from tests.scripted_llm.sse import deltas, parse_stream


@pytest.fixture
async def llm() -> AsyncIterator[httpx.AsyncClient]:
    transport = httpx.ASGITransport(app=create_app())
    async with httpx.AsyncClient(transport=transport, base_url="http://llm/v1") as client:
        yield client


def _body(*texts: str, stream: bool = True) -> dict[str, Any]:
    messages = [{"role": "user", "content": text} for text in texts]
    return {"model": "m", "messages": messages, "stream": stream}


async def test_fail_with_a_second_number_sends_retry_after(llm: httpx.AsyncClient) -> None:
    response = await llm.post("/chat/completions", json=_body("#fail 429 30"))
    assert response.status_code == 429
    assert response.headers["retry-after"] == "30"
    plain = await llm.post("/chat/completions", json=_body("#fail 429"))
    assert "retry-after" not in plain.headers


async def test_empty_answers_with_no_content_and_finish_stop(llm: httpx.AsyncClient) -> None:
    chunks, done = parse_stream((await llm.post("/chat/completions", json=_body("#empty"))).text)
    assert done and deltas(chunks, "content") == ""
    assert [c["choices"][0]["finish_reason"] for c in chunks if c["choices"]] == ["stop"]
    thought, _ = parse_stream(
        (await llm.post("/chat/completions", json=_body("#think hm\n#empty"))).text
    )
    assert (deltas(thought, "reasoning_content"), deltas(thought, "content")) == ("hm", "")


async def test_malformed_sends_a_data_line_that_is_not_json(llm: httpx.AsyncClient) -> None:
    body = (await llm.post("/chat/completions", json=_body("#say hi\n#malformed"))).text
    datas = [m.data for m in parse_text(body)]
    broken = [d for d in datas if d != "[DONE]" and not _is_json(d)]
    assert len(broken) == 1
    assert json.loads(datas[0])["choices"][0]["delta"]["content"] == "hi"


async def test_context_refuses_a_longer_prompt_in_openai_words(llm: httpx.AsyncClient) -> None:
    long_history = "x" * 4000  # about 1000 tokens by the scripted model's estimate
    refused = await llm.post("/chat/completions", json=_body(long_history, "#context 500\n#say k"))
    assert refused.status_code == 400
    error = refused.json()["error"]
    assert error["code"] == "context_length_exceeded"
    assert "maximum context length is 500 tokens" in error["message"]
    fits = await llm.post("/chat/completions", json=_body("#context 500\n#say k"))
    assert fits.status_code == 200


def _is_json(text: str) -> bool:
    try:
        json.loads(text)
    except ValueError:
        return False
    return True
