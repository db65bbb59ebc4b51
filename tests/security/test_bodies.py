"""Bodies: over 1 MiB → 413 (by Content-Length and while streaming a chunked upload);
invalid UTF-8 and deeply nested JSON → 422, never a 500."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator

import httpx
import pytest

from agentchat.web.body_guard import MAX_JSON_DEPTH, too_deep

MIB = 1024 * 1024
JSON = {"Content-Type": "application/json"}


def model_body(name_length: int) -> bytes:
    body = {"name": "n" * name_length, "baseUrl": "http://127.0.0.1:9/v1", "modelName": "m"}
    return json.dumps(body).encode()


async def chunks(body: bytes, size: int = 64 * 1024) -> AsyncIterator[bytes]:
    for start in range(0, len(body), size):
        yield body[start : start + size]


async def assert_no_model(client: httpx.AsyncClient) -> None:
    assert (await client.get("/api/models")).json() == []


async def test_a_body_over_one_mib_by_content_length_gets_413(client: httpx.AsyncClient) -> None:
    body = model_body(MIB)
    response = await client.post("/api/models", content=body, headers=JSON)
    assert response.status_code == 413
    assert response.json()["error"]["code"] == "payload_too_large"
    await assert_no_model(client)


async def test_a_chunked_body_over_one_mib_gets_413(client: httpx.AsyncClient) -> None:
    request = client.build_request("POST", "/api/models", content=chunks(model_body(MIB)))
    request.headers["Content-Type"] = "application/json"
    assert "content-length" not in request.headers
    assert request.headers["transfer-encoding"] == "chunked"
    response = await client.send(request)
    assert response.status_code == 413
    await assert_no_model(client)


async def test_a_lying_content_length_is_caught_while_reading(client: httpx.AsyncClient) -> None:
    body = model_body(MIB)
    request = client.build_request("POST", "/api/models", content=chunks(body))
    request.headers["Content-Type"] = "application/json"
    request.headers["Content-Length"] = "100"
    response = await client.send(request)
    assert response.status_code == 413


async def test_a_chunked_body_under_the_limit_reaches_the_route(
    client: httpx.AsyncClient,
) -> None:
    body = json.dumps({"name": "chunky", "baseUrl": "http://127.0.0.1:9/v1", "modelName": "m"})
    request = client.build_request("POST", "/api/models", content=chunks(body.encode(), 7))
    request.headers["Content-Type"] = "application/json"
    response = await client.send(request)
    assert response.status_code == 201, response.text
    assert response.json()["name"] == "chunky"


async def test_a_body_just_under_the_limit_is_read(client: httpx.AsyncClient) -> None:
    body = model_body(MIB - 200)
    assert len(body) <= MIB
    response = await client.post("/api/models", content=body, headers=JSON)
    assert response.status_code == 422  # the name is too long: the route saw the body
    assert "name" in response.json()["error"]["message"]


@pytest.mark.parametrize(
    "body",
    [
        b'{"name": "\xff\xfe", "baseUrl": "http://127.0.0.1:9/v1", "modelName": "m"}',
        b'{"name": "\xc3\x28"}',
        b"\xed\xa0\x80",  # an encoded surrogate
        "{}".encode("utf-16"),
    ],
)
async def test_invalid_utf8_gets_422(client: httpx.AsyncClient, body: bytes) -> None:
    response = await client.post("/api/models", content=body, headers=JSON)
    assert response.status_code == 422
    assert response.json()["error"] == {
        "code": "invalid",
        "message": "The body is not valid UTF-8.",
    }


async def test_invalid_json_gets_422(client: httpx.AsyncClient) -> None:
    for body in (b"{bad", b'{"name": }', b"", b"[1,]"):
        response = await client.post("/api/chat/sessions", content=body, headers=JSON)
        assert response.status_code == 422, (body, response.text)


@pytest.mark.parametrize(
    "body",
    [
        b"[" * 10_000 + b"]" * 10_000,
        b'{"a":' * 10_000 + b"1" + b"}" * 10_000,
        b"[" * 100_000,  # not even closed
        b'{"title": ' + b"[" * (MAX_JSON_DEPTH + 1) + b"]" * (MAX_JSON_DEPTH + 1) + b"}",
    ],
)
async def test_deeply_nested_json_gets_422(client: httpx.AsyncClient, body: bytes) -> None:
    for path in ("/api/chat/sessions", "/api/models"):
        response = await client.post(path, content=body, headers=JSON)
        assert response.status_code == 422, path
        assert "nested" in response.json()["error"]["message"]


async def test_brackets_inside_strings_do_not_count(client: httpx.AsyncClient) -> None:
    title = "[" * 500 + '\\"{' * 50
    body = '{"title": "' + title + '"}'
    response = await client.post("/api/chat/sessions", content=body.encode(), headers=JSON)
    assert response.status_code in (201, 422)
    assert "nested" not in response.text


def test_too_deep_counts_only_structure() -> None:
    assert not too_deep("[" * 10 + "]" * 10, limit=10)
    assert too_deep("[" * 11 + "]" * 11, limit=10)
    assert not too_deep('["' + "[" * 50 + '"]', limit=10)
    assert not too_deep('["\\"' + "[" * 50 + '"]', limit=10)
    assert not too_deep("[" + "[[]]," * 300 + "[]]", limit=10)


async def test_get_streams_pass_the_guard_untouched(client: httpx.AsyncClient) -> None:
    response = await client.get("/api/health")
    assert response.status_code == 200


@pytest.mark.parametrize(
    "title",
    ['"a\\u0000b"', '"a\\ud800b"', '"a\\udc00"', '"\\ud83d"'],
    ids=["nul", "hi", "lo", "end"],
)
async def test_text_no_database_can_store_gets_422_on_every_database(
    any_client: httpx.AsyncClient, title: str
) -> None:
    """PostgreSQL refused a NUL with a 422 that blamed "a number or value out of range";
    SQLite stored it; a lone surrogate reached a 500. Now every database answers the same."""
    body = ('{"title": ' + title + "}").encode()
    response = await any_client.post("/api/chat/sessions", content=body, headers=JSON)
    assert response.status_code == 422, response.text
    assert "cannot be stored" in response.json()["error"]["message"]
    assert (await any_client.get("/api/chat/sessions")).json()["items"] == []


async def test_escapes_that_are_text_pass(any_client: httpx.AsyncClient) -> None:
    for title, shown in [('"\\\\u0000"', "\\u0000"), ('"\\ud83d\\ude00"', "\U0001f600")]:
        body = ('{"title": ' + title + "}").encode()
        response = await any_client.post("/api/chat/sessions", content=body, headers=JSON)
        assert response.status_code == 201, response.text
        assert response.json()["session"]["title"] == shown
