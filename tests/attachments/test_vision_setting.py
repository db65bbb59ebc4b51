"""A model's `vision`: set on the Models page, else its provider's default."""

from __future__ import annotations

import httpx


async def _model(client: httpx.AsyncClient, provider: str, **extra: object) -> dict:
    body = {"name": provider, "provider": provider, "modelName": "m", **extra}
    if provider == "openai-compatible":
        body["baseUrl"] = "http://127.0.0.1:9/v1"
    response = await client.post("/api/models", json=body)
    assert response.status_code == 201, response.text
    return dict(response.json())


async def test_each_provider_has_a_default_and_a_model_may_say_otherwise(
    client: httpx.AsyncClient,
) -> None:
    hosted = await _model(client, "openai")
    local = await _model(client, "openai-compatible")
    assert (hosted["vision"], hosted["seesImages"]) == (None, True)
    assert (local["vision"], local["seesImages"]) == (None, False)

    turned_on = await client.patch(f"/api/models/{local['id']}", json={"vision": True})
    turned_off = await client.patch(f"/api/models/{hosted['id']}", json={"vision": False})
    back = await client.patch(f"/api/models/{hosted['id']}", json={"vision": None})

    assert turned_on.json()["seesImages"] is True
    assert turned_off.json()["seesImages"] is False
    assert back.json()["seesImages"] is True
