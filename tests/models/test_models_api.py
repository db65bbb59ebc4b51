from __future__ import annotations

from pathlib import Path
from typing import Any
from uuid import uuid4

import httpx
import pytest
from sqlalchemy import select

from agentchat.chat.tables import ChatMessage, ChatSession
from agentchat.core.database import Database
from agentchat.models.tables import AiModelConfig

SECRET = "sk-live-TOPSECRET-4242-abcd"


def _body(**overrides: Any) -> dict[str, Any]:
    body = {
        "name": "Local vLLM",
        "provider": "openai-compatible",
        "baseUrl": "http://127.0.0.1:9000/v1/",
        "modelName": "qwen2.5:7b",
        "apiKey": SECRET,
    }
    return {**body, **overrides}


async def _create(client: httpx.AsyncClient, **overrides: Any) -> dict[str, Any]:
    response = await client.post("/api/models", json=_body(**overrides))
    assert response.status_code == 201, response.text
    return dict(response.json())


async def _defaults(client: httpx.AsyncClient) -> list[int]:
    models = (await client.get("/api/models")).json()
    return [m["id"] for m in models if m["isDefault"]]


async def test_create_returns_the_public_shape_without_the_key(client: httpx.AsyncClient) -> None:
    response = await client.post("/api/models", json=_body())

    assert response.status_code == 201
    model = response.json()
    assert set(model) == {
        "id",
        "name",
        "provider",
        "baseUrl",
        "modelName",
        "contextLength",
        "maxOutputTokens",
        "temperature",
        "reasoningEffort",
        "fallbackModelId",
        "isDefault",
        "isBuiltin",
        "canSummarize",
        "vision",
        "seesImages",
        "hasApiKey",
        "apiKeyLast4",
        "shared",
        "createdAt",
    }
    assert model["baseUrl"] == "http://127.0.0.1:9000/v1"
    assert model["contextLength"] == 131072
    assert model["hasApiKey"] is True
    assert model["apiKeyLast4"] == "abcd"
    assert model["isBuiltin"] is False
    assert model["createdAt"].endswith("Z")
    assert SECRET not in response.text


async def test_list_and_get_never_return_the_key(client: httpx.AsyncClient) -> None:
    created = await _create(client)

    listed = await client.get("/api/models")
    one = await client.get(f"/api/models/{created['id']}")

    assert [m["id"] for m in listed.json()] == [created["id"]]
    assert one.json() == created
    assert SECRET not in listed.text + one.text


async def test_short_key_has_no_last4(client: httpx.AsyncClient) -> None:
    model = await _create(client, apiKey="abc12345")
    assert model["hasApiKey"] is True
    assert model["apiKeyLast4"] is None


async def test_model_without_key(client: httpx.AsyncClient) -> None:
    model = await _create(client, apiKey=None)
    assert model["hasApiKey"] is False
    assert model["apiKeyLast4"] is None


@pytest.mark.parametrize(
    "overrides",
    [
        {"provider": "gemini"},
        {"baseUrl": "ftp://example.com"},
        {"baseUrl": "not a url"},
        {"baseUrl": "http://user:pass@example.com/v1"},
        {"baseUrl": "https://example.com/v1?key=1"},
        {"name": "   "},
        {"name": "x" * 129},
        {"modelName": ""},
        {"modelName": "two words"},
        {"contextLength": 63999},
        {"contextLength": "lots"},
        {"apiKey": "sk-\nInjected: header"},
    ],
)
async def test_create_rejects_invalid_fields(
    client: httpx.AsyncClient, overrides: dict[str, Any]
) -> None:
    response = await client.post("/api/models", json=_body(**overrides))
    assert response.status_code == 422
    assert response.json()["error"]["code"] == "invalid"
    assert (await client.get("/api/models")).json() == []


async def test_a_refused_form_names_each_field_with_a_code_and_plain_words(
    client: httpx.AsyncClient,
) -> None:
    body = _body(name="  ", baseUrl="ftp://models.example", contextLength=10, temperature=9)
    response = await client.post("/api/models", json=body)
    assert response.status_code == 422
    error = response.json()["error"]
    assert "Value error" not in error["message"]
    fields = {f["field"]: f for f in error["fields"]}
    assert fields["name"] == {"field": "name", "code": "empty", "message": "must not be empty"}
    assert fields["baseUrl"]["code"] == "url_scheme"
    assert fields["baseUrl"]["message"] == "must be an http:// or https:// URL with a host"
    assert fields["contextLength"]["code"] == "greater_than_equal"
    assert fields["contextLength"]["limit"] == 64000
    assert fields["temperature"]["code"] == "less_than_equal"
    assert fields["temperature"]["limit"] == 2


async def test_a_missing_base_url_and_a_temperature_for_anthropic_are_named_on_their_fields(
    client: httpx.AsyncClient,
) -> None:
    response = await client.post("/api/models", json={"name": "x", "modelName": "m"})
    (field,) = response.json()["error"]["fields"]
    assert (field["field"], field["code"]) == ("baseUrl", "base_url_required")
    body = _body(provider="anthropic", temperature=0.5)
    response = await client.post("/api/models", json=body)
    (field,) = response.json()["error"]["fields"]
    assert (field["field"], field["code"]) == ("temperature", "no_temperature")


async def test_create_rejects_missing_fields(client: httpx.AsyncClient) -> None:
    response = await client.post("/api/models", json={"name": "x"})
    assert response.status_code == 422
    assert "modelName" in response.json()["error"]["message"]
    response = await client.post("/api/models", json={"name": "x", "modelName": "m"})
    assert response.status_code == 422
    assert "baseUrl" in response.json()["error"]["message"]


async def test_minimum_context_length_is_accepted(client: httpx.AsyncClient) -> None:
    model = await _create(client, contextLength=64000, provider="anthropic")
    assert (model["contextLength"], model["provider"]) == (64000, "anthropic")


async def test_first_model_becomes_default_and_later_ones_do_not(
    client: httpx.AsyncClient,
) -> None:
    first = await _create(client, isDefault=False)
    second = await _create(client, name="Second")

    assert first["isDefault"] is True
    assert second["isDefault"] is False
    assert await _defaults(client) == [first["id"]]


async def test_creating_with_is_default_moves_the_default(client: httpx.AsyncClient) -> None:
    await _create(client)
    second = await _create(client, name="Second", isDefault=True)
    assert await _defaults(client) == [second["id"]]


async def test_patch_is_default_clears_the_others(client: httpx.AsyncClient) -> None:
    first = await _create(client)
    second = await _create(client, name="Second")
    third = await _create(client, name="Third")

    response = await client.patch(f"/api/models/{third['id']}", json={"isDefault": True})

    assert response.status_code == 200
    assert response.json()["isDefault"] is True
    assert await _defaults(client) == [third["id"]]
    response = await client.patch(f"/api/models/{second['id']}", json={"isDefault": True})
    assert await _defaults(client) == [second["id"]]
    assert first["id"] not in await _defaults(client)


async def test_unsetting_the_only_default_is_a_conflict(client: httpx.AsyncClient) -> None:
    first = await _create(client)
    await _create(client, name="Second")

    response = await client.patch(f"/api/models/{first['id']}", json={"isDefault": False})

    assert response.status_code == 409
    assert await _defaults(client) == [first["id"]]


async def test_patch_changes_only_the_fields_sent(client: httpx.AsyncClient) -> None:
    model = await _create(client)

    response = await client.patch(
        f"/api/models/{model['id']}", json={"name": "Renamed", "contextLength": 200000}
    )

    updated = response.json()
    assert response.status_code == 200
    assert (updated["name"], updated["contextLength"]) == ("Renamed", 200000)
    assert updated["modelName"] == model["modelName"]
    assert (updated["hasApiKey"], updated["apiKeyLast4"]) == (True, "abcd")


async def test_patch_api_key_replaces_or_clears_it(client: httpx.AsyncClient) -> None:
    model = await _create(client)
    url = f"/api/models/{model['id']}"

    replaced = (await client.patch(url, json={"apiKey": "sk-another-key-9999"})).json()
    cleared = (await client.patch(url, json={"apiKey": ""})).json()

    assert (replaced["hasApiKey"], replaced["apiKeyLast4"]) == (True, "9999")
    assert (cleared["hasApiKey"], cleared["apiKeyLast4"]) == (False, None)


@pytest.mark.parametrize(
    "body", [{"name": None}, {"baseUrl": "file:///etc/passwd"}, {"contextLength": 1000}]
)
async def test_patch_rejects_invalid_fields(
    client: httpx.AsyncClient, body: dict[str, Any]
) -> None:
    model = await _create(client)
    response = await client.patch(f"/api/models/{model['id']}", json=body)
    assert response.status_code == 422
    assert (await client.get(f"/api/models/{model['id']}")).json() == model


@pytest.mark.parametrize(
    ("method", "path"),
    [
        ("GET", "/api/models/999999"),
        ("PATCH", "/api/models/999999"),
        ("DELETE", "/api/models/999999"),
        ("POST", "/api/models/999999/test"),
    ],
)
async def test_unknown_model_is_404(client: httpx.AsyncClient, method: str, path: str) -> None:
    response = await client.request(method, path, json={"name": "x"})
    assert response.status_code == 404
    assert response.json()["error"]["code"] == "not_found"


async def test_non_integer_id_is_422(client: httpx.AsyncClient) -> None:
    response = await client.get("/api/models/abc")
    assert response.status_code == 422


async def test_delete_removes_the_model(client: httpx.AsyncClient) -> None:
    await _create(client)
    second = await _create(client, name="Second")

    response = await client.delete(f"/api/models/{second['id']}")

    assert response.status_code == 204
    assert response.content == b""
    assert (await client.get(f"/api/models/{second['id']}")).status_code == 404


async def test_deleting_the_default_promotes_the_oldest(client: httpx.AsyncClient) -> None:
    first = await _create(client)
    second = await _create(client, name="Second")
    third = await _create(client, name="Third", isDefault=True)

    await client.delete(f"/api/models/{third['id']}")
    assert await _defaults(client) == [first["id"]]
    await client.delete(f"/api/models/{first['id']}")
    assert await _defaults(client) == [second["id"]]
    await client.delete(f"/api/models/{second['id']}")
    assert (await client.get("/api/models")).json() == []


async def test_deleting_a_model_keeps_sessions_and_history(
    client: httpx.AsyncClient, database: Database
) -> None:
    await _create(client)
    doomed = await _create(client, name="Doomed")
    with database.session() as session:
        chat = ChatSession(session_uuid=str(uuid4()), model_id=doomed["id"])
        session.add(chat)
        session.flush()
        session.add(
            ChatMessage(
                session_id=chat.id, role="USER", status="SENT", content="hi", model_id=doomed["id"]
            )
        )
        chat_id = chat.id

    assert (await client.delete(f"/api/models/{doomed['id']}")).status_code == 204

    with database.session() as session:
        assert session.get(ChatSession, chat_id).model_id is None  # type: ignore[union-attr]
        message = session.scalars(select(ChatMessage).where(ChatMessage.session_id == chat_id))
        assert [m.model_id for m in message] == [doomed["id"]]


async def test_api_key_is_encrypted_in_the_database_file(
    client: httpx.AsyncClient, database: Database
) -> None:
    model = await _create(client)

    with database.session() as session:
        row = session.get(AiModelConfig, model["id"])
        assert row is not None
        assert row.api_key_encrypted and SECRET not in row.api_key_encrypted
    database_file = Path(database.url.split("///", 1)[1])
    raw = b"".join(
        p.read_bytes() for p in database_file.parent.glob(database_file.name + "*") if p.is_file()
    )
    assert b"TOPSECRET" not in raw
    assert row.api_key_encrypted.encode() in raw  # we looked at the right file


async def test_builtin_endpoint_cannot_be_edited_but_name_can(
    client: httpx.AsyncClient, database: Database
) -> None:
    with database.session() as session:
        session.add(
            AiModelConfig(
                name="Demo",
                base_url="http://127.0.0.1:1/v1",
                model_name="scripted-demo",
                is_builtin=True,
                is_default=True,
            )
        )
    builtin = (await client.get("/api/models")).json()[0]
    url = f"/api/models/{builtin['id']}"

    rejected = await client.patch(url, json={"baseUrl": "http://example.com/v1"})
    renamed = await client.patch(url, json={"name": "Demo 2", "baseUrl": builtin["baseUrl"]})

    assert rejected.status_code == 409
    assert renamed.status_code == 200
    assert renamed.json()["name"] == "Demo 2"


@pytest.mark.parametrize(
    ("provider", "base_url"),
    [
        ("openai", "https://api.openai.com/v1"),
        ("anthropic", "https://api.anthropic.com"),
        ("openrouter", "https://openrouter.ai/api/v1"),
        ("ollama", "http://127.0.0.1:11434/v1"),
    ],
)
async def test_a_named_provider_without_a_base_url_gets_its_public_endpoint(
    client: httpx.AsyncClient, provider: str, base_url: str
) -> None:
    body = {"name": provider, "provider": provider, "modelName": "m"}
    response = await client.post("/api/models", json=body)
    assert response.status_code == 201, response.text
    assert response.json()["baseUrl"] == base_url


async def test_request_options_round_trip_and_null_clears_them(
    client: httpx.AsyncClient,
) -> None:
    options = {"maxOutputTokens": 2048, "temperature": 0.2, "reasoningEffort": "high"}
    model = await _create(client, **options)
    assert {k: model[k] for k in options} == options
    response = await client.patch(
        f"/api/models/{model['id']}", json={"temperature": None, "maxOutputTokens": 100}
    )
    assert response.status_code == 200, response.text
    updated = response.json()
    assert (updated["temperature"], updated["maxOutputTokens"]) == (None, 100)
    assert updated["reasoningEffort"] == "high"


@pytest.mark.parametrize(
    "overrides",
    [
        {"maxOutputTokens": 0},
        {"temperature": 2.5},
        {"reasoningEffort": "extreme"},
        {"provider": "anthropic", "temperature": 0.5},
        {"fallbackModelId": 999},
    ],
)
async def test_invalid_request_options_are_refused(
    client: httpx.AsyncClient, overrides: dict[str, Any]
) -> None:
    response = await client.post("/api/models", json=_body(**overrides))
    assert response.status_code == 422, response.text
    assert response.json()["error"]["code"] == "invalid"


async def test_temperature_is_refused_when_a_model_becomes_anthropic(
    client: httpx.AsyncClient,
) -> None:
    model = await _create(client, temperature=0.7)
    response = await client.patch(f"/api/models/{model['id']}", json={"provider": "anthropic"})
    assert response.status_code == 422
    assert "temperature" in response.json()["error"]["message"]


async def test_fallback_model_is_checked_and_cleared_when_deleted(
    client: httpx.AsyncClient,
) -> None:
    backup = await _create(client, name="backup")
    main = await _create(client, name="main", fallbackModelId=backup["id"])
    assert main["fallbackModelId"] == backup["id"]
    own = await client.patch(f"/api/models/{main['id']}", json={"fallbackModelId": main["id"]})
    assert own.status_code == 422
    assert (await client.delete(f"/api/models/{backup['id']}")).status_code == 204
    assert (await client.get(f"/api/models/{main['id']}")).json()["fallbackModelId"] is None
