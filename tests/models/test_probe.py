"""POST /api/models/{id}/test against a fake provider on a loopback port."""

from __future__ import annotations

from typing import Any

import httpx

from agentchat.models.probe import NO_MODEL_ANSWER, NOT_V1_HINT, probe
from agentchat.models.service import ResolvedModel
from tests.models.conftest import FakeProvider
from tests.models.fake_provider import GOOD_KEY, unused_port

WRONG_KEY = "sk-wrong-key-987654321"


async def _test(client: httpx.AsyncClient, **model: Any) -> dict[str, Any]:
    body = {"name": "m", "modelName": "tiny", "apiKey": GOOD_KEY, **model}
    created = await client.post("/api/models", json=body)
    assert created.status_code == 201, created.text
    response = await client.post(f"/api/models/{created.json()['id']}/test")
    assert response.status_code == 200
    return dict(response.json())


async def test_openai_compatible_endpoint_answers_ok(
    client: httpx.AsyncClient, fake_provider: FakeProvider
) -> None:
    result = await _test(client, baseUrl=f"{fake_provider.url}/v1")

    assert result["ok"] is True
    assert set(result) == {"ok", "latencyMs"}  # no error, no code
    assert isinstance(result["latencyMs"], int) and result["latencyMs"] >= 0
    request = fake_provider.seen[-1]
    assert request["body"]["max_tokens"] == 1
    assert request["headers"]["authorization"] == f"Bearer {GOOD_KEY}"


async def test_wrong_key_reports_the_providers_words_without_the_key(
    client: httpx.AsyncClient, fake_provider: FakeProvider
) -> None:
    result = await _test(client, baseUrl=f"{fake_provider.url}/v1", apiKey=WRONG_KEY)

    assert result["ok"] is False
    assert result["error"].startswith("HTTP 401: Incorrect API key provided")
    assert WRONG_KEY not in result["error"]
    assert fake_provider.seen[-1]["headers"]["authorization"] == f"Bearer {WRONG_KEY}"


async def test_unknown_model_reports_the_providers_words(
    client: httpx.AsyncClient, fake_provider: FakeProvider
) -> None:
    result = await _test(client, baseUrl=f"{fake_provider.url}/v1", modelName="nope")
    assert result == {
        "ok": False,
        "latencyMs": result["latencyMs"],
        "error": "HTTP 404: The model `nope` does not exist",
        "code": "provider_error",
    }


async def test_reasoning_model_is_retried_with_max_completion_tokens(
    client: httpx.AsyncClient, fake_provider: FakeProvider
) -> None:
    result = await _test(client, baseUrl=f"{fake_provider.url}/v1", modelName="reasoning")

    assert result["ok"] is True
    assert fake_provider.seen[-1]["body"]["max_completion_tokens"] == 1


async def test_anthropic_endpoint_uses_x_api_key(
    client: httpx.AsyncClient, fake_provider: FakeProvider
) -> None:
    ok = await _test(client, provider="anthropic", baseUrl=fake_provider.url)
    request = fake_provider.seen[-1]
    bad = await _test(client, provider="anthropic", baseUrl=fake_provider.url, apiKey=WRONG_KEY)

    assert ok["ok"] is True
    assert request["path"] == "/v1/messages"
    assert request["headers"]["x-api-key"] == GOOD_KEY
    assert request["headers"]["anthropic-version"]
    assert request["body"]["max_tokens"] == 1
    assert bad["ok"] is False
    assert bad["error"] == "HTTP 401: invalid x-api-key"


async def test_plain_text_error_is_reported(
    client: httpx.AsyncClient, fake_provider: FakeProvider
) -> None:
    result = await _test(client, baseUrl=f"{fake_provider.url}/broken")
    assert result["error"] == NO_MODEL_ANSWER + NOT_V1_HINT  # a plain-text body is not echoed
    assert result["code"] == "no_answer_without_v1"


async def test_non_json_success_is_not_ok(
    client: httpx.AsyncClient, fake_provider: FakeProvider
) -> None:
    result = await _test(client, baseUrl=f"{fake_provider.url}/html")
    assert result["ok"] is False
    assert result["error"] == NO_MODEL_ANSWER + NOT_V1_HINT


async def test_unreachable_endpoint_is_reported(client: httpx.AsyncClient) -> None:
    url = f"http://127.0.0.1:{unused_port()}/v1"
    result = await _test(client, baseUrl=url)

    assert result["ok"] is False
    assert result["error"] == NO_MODEL_ANSWER  # closed port: the same words as a timeout
    assert result["code"] == "no_answer"
    assert "/v1" not in result["error"]  # it ends in /v1 already: no advice to end it so


async def test_slow_endpoint_times_out(fake_provider: FakeProvider) -> None:
    target = ResolvedModel(
        id=1,
        name="m",
        base_url=f"{fake_provider.url}/slow",
        api_key="k",
        model_name="tiny",
        provider="openai",
        context_length=131072,
    )
    result = await probe(target, timeout=0.3)

    assert result.ok is False
    assert result.error == NO_MODEL_ANSWER + NOT_V1_HINT
    assert result.latency_ms >= 300


async def test_key_is_masked_even_when_echoed_in_a_long_message(
    client: httpx.AsyncClient, fake_provider: FakeProvider
) -> None:
    result = await _test(client, baseUrl=f"{fake_provider.url}/echo", apiKey=WRONG_KEY)

    assert WRONG_KEY not in result["error"]
    assert result["error"].startswith("HTTP 401: bad key *** x x")
    assert len(result["error"]) == 301  # shortened to 300, with an ellipsis
