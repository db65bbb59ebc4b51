"""Issue 13, findings 3, 4 and 7, attacked as reported, through the real app.

3. a stored key never follows a model to another host; /test echoes no raw bodies, tells no
   open from closed ports, is rate-limited; the operator may allow/deny model hosts;
4. failed authentication is throttled per client; short tokens cannot guard a public bind;
   logout revokes the session; sign-ins expire; no token in the access log;
7. unknown modelId → 422, strict booleans, no `testserver` host, Origin scheme, file modes.
"""

from __future__ import annotations

import logging
import os
import stat
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi import FastAPI, Request
from fastapi.responses import HTMLResponse, JSONResponse
from pydantic import SecretStr

from agentchat.accounts.sign_in_sessions import MemorySessions
from agentchat.app import create_app
from agentchat.core.database import Database, make_engine
from agentchat.models.probe import NO_MODEL_ANSWER, NOT_V1_HINT
from agentchat.web.bind_rules import UnsafeBind, check_bind
from agentchat.web.log_redact import AccessLogRedactor
from tests.models.fake_provider import serve, unused_port
from tests.security.conftest import TOKEN, client_for, make_settings

KEY = "sk-stored-key-for-host-a-0123"
REDIS_URL = os.environ.get("AGENTCHAT_TEST_REDIS_URL", "redis://127.0.0.1:6379/0")


def _recording_provider(seen: list[dict[str, Any]]) -> FastAPI:
    app = FastAPI()

    @app.post("/v1/chat/completions")
    async def chat(request: Request) -> JSONResponse:
        seen.append({"authorization": request.headers.get("authorization")})
        error = {"message": "model overloaded " + "z" * 600, "type": "server_error"}
        return JSONResponse({"error": error}, status_code=503)

    @app.post("/internal/chat/completions")
    async def internal() -> HTMLResponse:
        page = "<html><title>Jenkins</title><body>internal build 4711 secret-panel</body></html>"
        return HTMLResponse(page, status_code=500)

    return app


@pytest.fixture
def provider() -> Iterator[tuple[str, list[dict[str, Any]]]]:
    seen: list[dict[str, Any]] = []
    with serve(_recording_provider(seen)) as url:
        yield url, seen


async def _model(client: httpx.AsyncClient, base_url: str, **extra: Any) -> dict[str, Any]:
    body = {"name": "m", "baseUrl": base_url, "modelName": "gpt", "apiKey": KEY, **extra}
    response = await client.post("/api/models", json=body)
    assert response.status_code == 201, response.text
    return dict(response.json())


# --- finding 3 ------------------------------------------------------------------------------


async def test_a_stored_key_is_not_sent_to_a_new_host(
    client: httpx.AsyncClient, provider: tuple[str, list[dict[str, Any]]]
) -> None:
    url, seen = provider
    model = await _model(client, "http://127.0.0.1:9/v1")
    moved = await client.patch(f"/api/models/{model['id']}", json={"baseUrl": f"{url}/v1"})
    assert moved.status_code == 200
    assert moved.json()["hasApiKey"] is False
    await client.post(f"/api/models/{model['id']}/test")
    assert seen and all(KEY not in str(s["authorization"]) for s in seen)


async def test_a_key_sent_with_the_move_is_kept(client: httpx.AsyncClient) -> None:
    model = await _model(client, "http://127.0.0.1:9/v1")
    body = {"baseUrl": "http://127.0.0.2:9/v1", "apiKey": "sk-new-key-0123456789"}
    moved = await client.patch(f"/api/models/{model['id']}", json=body)
    assert moved.json()["hasApiKey"] is True
    assert moved.json()["apiKeyLast4"] == "6789"
    renamed = await client.patch(f"/api/models/{model['id']}", json={"name": "renamed"})
    assert renamed.json()["hasApiKey"] is True
    provider_moved = await client.patch(
        f"/api/models/{model['id']}", json={"provider": "anthropic"}
    )
    assert provider_moved.json()["hasApiKey"] is False


async def test_provider_errors_are_status_and_a_short_json_message(
    client: httpx.AsyncClient, provider: tuple[str, list[dict[str, Any]]]
) -> None:
    url, _ = provider
    json_error = await _model(client, f"{url}/v1")
    result = (await client.post(f"/api/models/{json_error['id']}/test")).json()
    assert result["error"].startswith("HTTP 503: model overloaded zzz")
    assert len(result["error"]) <= 301
    html = await _model(client, f"{url}/internal")
    page = (await client.post(f"/api/models/{html['id']}/test")).json()
    assert "Jenkins" not in page["error"] and "4711" not in page["error"]
    assert page["error"] == NO_MODEL_ANSWER + NOT_V1_HINT


async def test_the_test_does_not_tell_open_from_closed_ports(
    client: httpx.AsyncClient, provider: tuple[str, list[dict[str, Any]]]
) -> None:
    url, _ = provider
    closed = await _model(client, f"http://127.0.0.1:{unused_port()}/internal")
    open_but_not_a_model = await _model(client, f"{url}/internal")  # an HTML error page
    first = (await client.post(f"/api/models/{closed['id']}/test")).json()
    second = (await client.post(f"/api/models/{open_but_not_a_model['id']}/test")).json()
    assert first["error"] == second["error"] == NO_MODEL_ANSWER + NOT_V1_HINT
    assert first["code"] == second["code"]  # the hint depends on the URL alone


async def test_the_model_test_is_rate_limited(tmp_path: Path, database: Database) -> None:
    app = create_app(make_settings(tmp_path, run_rate_per_minute=3), database=database)
    async with client_for(app) as c:
        model = await _model(c, f"http://127.0.0.1:{unused_port()}/v1")
        codes = [(await c.post(f"/api/models/{model['id']}/test")).status_code for _ in range(5)]
    assert codes[:3] == [200, 200, 200]
    assert codes[3:] == [429, 429]


async def test_model_hosts_can_be_allowed_and_denied(tmp_path: Path, database: Database) -> None:
    settings = make_settings(
        tmp_path, model_hosts_allow="api.openai.com,.example.org", model_hosts_deny="10.0.0.0/8"
    )
    async with client_for(create_app(settings, database=database)) as c:
        for url, status in [
            ("https://api.openai.com/v1", 201),
            ("https://llm.example.org/v1", 201),
            ("http://127.0.0.1:8080/v1", 422),
            ("http://10.1.2.3/v1", 422),
        ]:
            body = {"name": "m", "baseUrl": url, "modelName": "gpt"}
            response = await c.post("/api/models", json=body)
            assert response.status_code == status, (url, response.text)
        models = (await c.get("/api/models")).json()
        moved = await c.patch(f"/api/models/{models[0]['id']}", json={"baseUrl": "http://x.io"})
        assert moved.status_code == 422
        assert moved.json()["error"]["code"] == "model_host_refused"


# --- finding 4 ------------------------------------------------------------------------------


@pytest.fixture
def throttled_app(tmp_path: Path, database: Database) -> FastAPI:
    return create_app(make_settings(tmp_path, auth_token=TOKEN), database=database)


@pytest.mark.parametrize(
    "wrong",
    [
        {"Authorization": "Bearer guess"},
        {"Cookie": "agentchat_token=guess"},
    ],
)
async def test_token_guessing_is_throttled_per_client(
    throttled_app: FastAPI, wrong: dict[str, str]
) -> None:
    async with client_for(throttled_app) as attacker:
        codes = [(await attacker.get("/api/models", headers=wrong)).status_code for _ in range(30)]
        assert codes[:10] == [401] * 10
        assert set(codes[10:]) == {429}
        right = await attacker.get("/api/models", headers={"Authorization": f"Bearer {TOKEN}"})
        assert right.status_code == 429  # even a right guess waits now
        assert int(right.headers["retry-after"]) >= 1
        login = await attacker.post("/api/auth/login", json={"token": TOKEN})
        assert login.status_code == 429
    async with client_for(throttled_app, client=("10.9.9.9", 1)) as other:
        ok = await other.get("/api/models", headers={"Authorization": f"Bearer {TOKEN}"})
        assert ok.status_code == 200


async def test_sign_in_failures_count_too(throttled_app: FastAPI) -> None:
    async with client_for(throttled_app) as c:
        codes = [
            (await c.post("/api/auth/login", json={"token": f"guess-{i}"})).status_code
            for i in range(12)
        ]
    assert codes[:10] == [401] * 10 and codes[10:] == [429, 429]


@pytest.mark.parametrize(
    "wrong", [{"Authorization": "Bearer guess"}, {"Cookie": "agentchat_token=guess"}]
)
async def test_the_status_route_is_no_free_place_to_guess(
    throttled_app: FastAPI, wrong: dict[str, str]
) -> None:
    """GET /api/auth/status says whether a request carries the token: a wrong one counts as a
    failed sign-in there too, and a throttled client learns nothing more."""
    async with client_for(throttled_app) as attacker:
        answers = [(await attacker.get("/api/auth/status", headers=wrong)) for _ in range(12)]
        assert [r.status_code for r in answers] == [200] * 10 + [429, 429]
        assert answers[0].json() == SIGNED_OUT
        assert all(r.json() == SIGNED_OUT for r in answers[:10])  # no guess tells another apart
        right = await attacker.get("/api/auth/status", headers={"Authorization": f"Bearer {TOKEN}"})
        assert right.status_code == 429
        plain = await attacker.get("/api/auth/status")  # no credentials: no guess, still told
        assert plain.json() == SIGNED_OUT
    async with client_for(throttled_app, client=("10.9.9.9", 1)) as other:
        ok = await other.get("/api/auth/status", headers={"Authorization": f"Bearer {TOKEN}"})
        assert ok.json() == {**SIGNED_OUT, "authenticated": True}


# Without accounts the body's other fields are constants (no one is anyone, no sign-up, no
# single sign-on): a guess learns only `authenticated`, and the same for every wrong guess.
SIGNED_OUT = {
    "authRequired": True,
    "authenticated": False,
    "mode": "single",
    "user": None,
    "signup": "off",
    "singleSignOn": None,
}


async def test_requests_without_credentials_are_not_guesses(throttled_app: FastAPI) -> None:
    async with client_for(throttled_app) as c:
        codes = {(await c.get("/api/models")).status_code for _ in range(30)}
    assert codes == {401}


@pytest.mark.parametrize("token", ["x", " ", "short-token-15ch"[:15]])
def test_short_tokens_cannot_guard_a_public_bind(tmp_path: Path, token: str) -> None:
    with pytest.raises(UnsafeBind):
        check_bind("0.0.0.0", make_settings(tmp_path, auth_token=token))
    check_bind("127.0.0.1", make_settings(tmp_path, auth_token=token))
    check_bind("0.0.0.0", make_settings(tmp_path, auth_token=TOKEN))


async def test_logout_revokes_the_session(throttled_app: FastAPI) -> None:
    async with client_for(throttled_app) as browser:
        await browser.post("/api/auth/login", json={"token": TOKEN})
        stolen = browser.cookies["agentchat_token"]
        assert (await browser.get("/api/models")).status_code == 200
        assert (await browser.post("/api/auth/logout")).status_code == 204
    async with client_for(throttled_app, cookies={"agentchat_token": stolen}) as replay:
        assert (await replay.get("/api/models")).status_code == 401


async def test_sessions_expire() -> None:
    now = [1000.0]
    sessions = MemorySessions(ttl_s=60, clock=lambda: now[0])
    session_id = await sessions.create()
    assert await sessions.valid(session_id)
    now[0] += 61
    assert not await sessions.valid(session_id)


def test_a_query_string_token_never_reaches_the_access_log() -> None:
    record = logging.LogRecord(
        "uvicorn.access",
        logging.INFO,
        __file__,
        1,
        '%s - "%s %s HTTP/%s" %d',
        ("127.0.0.1:5", "GET", f"/api/models?token={TOKEN}&access_token={TOKEN}&x=1", "1.1", 200),
        None,
    )
    assert AccessLogRedactor().filter(record)
    line = record.getMessage()
    assert TOKEN not in line and "x=1" in line


async def test_the_access_log_filter_is_installed(throttled_app: FastAPI) -> None:
    assert any(
        isinstance(f, AccessLogRedactor) for f in logging.getLogger("uvicorn.access").filters
    )


# --- finding 7 ------------------------------------------------------------------------------


async def test_a_run_with_an_unknown_model_is_refused(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    async with app.router.lifespan_context(app):
        await _model(client, "http://127.0.0.1:9/v1")
        session = (await client.post("/api/chat/sessions", json={})).json()["session"]
        body = {"message": "hi", "modelId": 987654}
        response = await client.post(f"/api/chat/sessions/{session['id']}/runs", json=body)
        assert response.status_code == 422, response.text
        assert response.json()["error"]["code"] == "unknown_model"
        messages = await client.get(f"/api/chat/sessions/{session['id']}/messages")
        assert "987654" not in messages.text


@pytest.mark.parametrize("value", ["no", "false", 0, "0"])
async def test_booleans_are_strict(app: FastAPI, client: httpx.AsyncClient, value: object) -> None:
    async with app.router.lifespan_context(app):
        session = (await client.post("/api/chat/sessions", json={})).json()["session"]
        reset = await client.post(
            f"/api/chat/sessions/{session['id']}/reset", json={"keepHistory": value}
        )
        assert reset.status_code == 422
    body = {"name": "m", "baseUrl": "http://127.0.0.1:9/v1", "modelName": "g", "isDefault": value}
    assert (await client.post("/api/models", json=body)).status_code == 422


async def test_testserver_is_not_an_allowed_host(client: httpx.AsyncClient) -> None:
    response = await client.get("/api/health", headers={"Host": "testserver"})
    assert response.status_code == 403


async def test_an_origin_with_another_scheme_is_another_site(client: httpx.AsyncClient) -> None:
    headers = {"Host": "127.0.0.1:8000", "Origin": "https://127.0.0.1:8000"}
    assert (await client.get("/api/models", headers=headers)).status_code == 403


def test_the_database_and_its_folder_are_private(tmp_path: Path) -> None:
    path = tmp_path / "data" / "agentchat.db"
    engine = make_engine(f"sqlite:///{path}")
    try:
        with engine.connect() as conn:
            conn.exec_driver_sql("create table t (x int)")
    finally:
        engine.dispose()
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700


async def test_with_redis_a_logout_holds_on_every_api_process(
    tmp_path: Path, database: Database
) -> None:
    """Two API processes sharing Redis (as `serve --workers` runs them): a session signed in
    on one works on the other, and a logout on one revokes it on both."""
    prefix = f"agentchat-test-{uuid.uuid4().hex}:"
    settings = make_settings(tmp_path, auth_token=TOKEN, redis_url=REDIS_URL, redis_prefix=prefix)
    first, second = (create_app(settings, database=database) for _ in range(2))
    async with client_for(first) as a:
        await a.post("/api/auth/login", json={"token": TOKEN})
        session_id = a.cookies["agentchat_token"]
        async with client_for(second, cookies={"agentchat_token": session_id}) as b:
            assert (await b.get("/api/models")).status_code == 200
            assert (await a.post("/api/auth/logout")).status_code == 204
            assert (await b.get("/api/models")).status_code == 401


async def test_with_redis_a_new_token_ends_the_sessions_of_the_old_one(
    tmp_path: Path, database: Database
) -> None:
    """The operator rotates a leaked token and restarts: a cookie signed in with the old one
    must not open the server any more (Redis keeps sessions across the restart)."""
    prefix = f"agentchat-test-{uuid.uuid4().hex}:"
    old = make_settings(tmp_path, auth_token=TOKEN, redis_url=REDIS_URL, redis_prefix=prefix)
    new_token = "rotated-token-5e8b2a9c4d7f1036"
    rotated = old.model_copy(update={"auth_token": SecretStr(new_token)})
    async with client_for(create_app(old, database=database)) as before:
        await before.post("/api/auth/login", json={"token": TOKEN})
        session_id = before.cookies["agentchat_token"]
        assert (await before.get("/api/models")).status_code == 200
    cookies = {"agentchat_token": session_id}
    async with client_for(create_app(rotated, database=database), cookies=cookies) as after:
        assert (await after.get("/api/models")).status_code == 401
        await after.post("/api/auth/login", json={"token": new_token})
        assert (await after.get("/api/models")).status_code == 200
