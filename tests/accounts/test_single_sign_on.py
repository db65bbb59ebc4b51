"""Single sign-on against a real OpenID Connect provider run here (the oidc-provider-mock
package, as a process on a free loopback port): the code flow with PKCE and a nonce through
Authlib, the account made at the first sign-on with its role from a claim, and the state
bound to the browser that started."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit

import httpx
import pytest
from pydantic import SecretStr

from agentchat.local_stack import free_port
from tests.support.team_stack import Team

OSCAR = {"sub": "sub-oscar", "preferred_username": "oscar", "groups": ["agentchat-admin"]}
PEGGY = {"sub": "sub-peggy", "email": "peggy@example.org", "groups": ["staff"]}


@pytest.fixture(scope="module")
def provider(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    port = free_port()
    log = (tmp_path_factory.mktemp("oidc") / "provider.out").open("wb")
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "oidc_provider_mock",
            "--port",
            str(port),
            "--require-nonce",
            "--user-claims",
            json.dumps(OSCAR),
            "--user-claims",
            json.dumps(PEGGY),
        ],
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            if httpx.get(f"{url}/.well-known/openid-configuration", timeout=2).status_code == 200:
                break
        except httpx.HTTPError:
            time.sleep(0.1)
    else:
        process.kill()
        raise AssertionError("the OIDC provider did not start")
    yield url
    process.terminate()
    process.wait(timeout=10)
    log.close()


@pytest.fixture
def sso(team: Team, provider: str) -> Team:
    team.settings.oidc_issuer = provider
    team.settings.oidc_client_id = "agentchat"
    team.settings.oidc_client_secret = SecretStr("client-secret")
    return team


def _sign_on(team: Team, subject: str, *, browser: httpx.Client | None = None) -> httpx.Response:
    """The browser's part: start, the provider's form (choosing `subject`), back to us."""
    client = browser or httpx.Client(base_url=team.url, timeout=30)
    started = client.get("/api/auth/oidc/start", params={"next": "/chat"})
    assert started.status_code == 302, started.text
    authorize = started.headers["location"]
    assert "code_challenge=" in authorize and "nonce=" in authorize
    back = httpx.post(authorize, data={"sub": subject}, timeout=30)
    assert back.status_code == 302, back.text
    callback = back.headers["location"]
    assert urlsplit(callback).path == "/api/auth/oidc/callback"
    return client.get(callback)


def test_the_first_sign_on_makes_the_account_with_its_role_from_the_claim(sso: Team) -> None:
    status = httpx.get(f"{sso.url}/api/auth/status").json()
    assert status["singleSignOn"] == "single sign-on"
    done = _sign_on(sso, "sub-oscar")
    assert done.status_code == 302 and done.headers["location"] == "/chat"
    token = done.cookies["agentchat_session"]
    me = httpx.get(f"{sso.url}/api/auth/me", headers={"Authorization": f"Bearer {token}"})
    assert me.json() == {
        "id": me.json()["id"],
        "username": "oscar",
        "role": "admin",
        "mode": "accounts",
    }
    peggy = _sign_on(sso, "sub-peggy")
    token = peggy.cookies["agentchat_session"]
    me = httpx.get(f"{sso.url}/api/auth/me", headers={"Authorization": f"Bearer {token}"})
    assert (me.json()["username"], me.json()["role"]) == ("peggy", "user")
    again = _sign_on(sso, "sub-peggy")  # the same account, not a second one
    assert again.status_code == 302 and again.headers["location"] == "/chat"
    people = {u["username"]: u for u in sso.admin.get("/api/admin/users")}
    assert set(people) == {"alice", "oscar", "peggy"}
    assert people["peggy"]["singleSignOn"] and not people["peggy"]["hasPassword"]
    signins = sso.admin.get("/api/admin/audit?action=signin")["items"]
    assert [e["detail"]["method"] for e in signins if e["actorName"] == "peggy"] == ["oidc"] * 2


def test_a_callback_signs_in_only_the_browser_that_started_and_only_once(sso: Team) -> None:
    victim = httpx.Client(base_url=sso.url, timeout=30)
    started = victim.get("/api/auth/oidc/start")
    back = httpx.post(started.headers["location"], data={"sub": "sub-peggy"}, timeout=30)
    callback = back.headers["location"]
    attacker = httpx.get(callback, timeout=30)  # no state cookie of the browser that started
    assert attacker.status_code == 302
    assert attacker.headers["location"] == "/signin?error=oidc_state_invalid"
    assert "agentchat_session" not in attacker.cookies
    own = victim.get(callback)
    assert own.headers["location"] == "/" and "agentchat_session" in own.cookies
    replayed = victim.get(callback)
    assert replayed.headers["location"] == "/signin?error=oidc_state_invalid"


def test_a_disabled_account_cannot_sign_on(sso: Team) -> None:
    _sign_on(sso, "sub-peggy")
    peggy = next(u for u in sso.admin.get("/api/admin/users") if u["username"] == "peggy")
    sso.admin.http.patch(f"/api/admin/users/{peggy['id']}", json={"disabled": True})
    refused = _sign_on(sso, "sub-peggy")
    assert refused.headers["location"] == "/signin?error=account_disabled"
    assert "agentchat_session" not in refused.cookies


def test_start_answers_oidc_off_without_a_provider(team: Team, tmp_path: Path) -> None:
    response = httpx.get(f"{team.url}/api/auth/oidc/start")
    assert response.status_code == 404 and response.json()["error"]["code"] == "oidc_off"


def test_with_approval_a_first_sign_on_waits_as_a_pending_account(sso: Team) -> None:
    """Sign-up by approval: the provider's person is kept as `pending` (the refusal must not
    undo the account it made, or no administrator could ever approve it), told so, and signs
    on once approved."""
    sso.settings.signup = "approval"
    waiting = _sign_on(sso, "sub-peggy")
    assert waiting.headers["location"] == "/signin?error=account_pending"
    assert "agentchat_session" not in waiting.cookies
    peggy = next(u for u in sso.admin.get("/api/admin/users") if u["username"] == "peggy")
    assert peggy["role"] == "pending"
    failed = sso.admin.get("/api/admin/audit?action=signin_failed")["items"]
    assert any(e["targetName"] == "peggy" and e["detail"]["reason"] == "pending" for e in failed)
    sso.admin.http.patch(f"/api/admin/users/{peggy['id']}", json={"role": "user"})
    done = _sign_on(sso, "sub-peggy")
    assert done.status_code == 302 and done.headers["location"] == "/chat"
    assert "agentchat_session" in done.cookies


def test_a_refused_sign_on_is_in_the_audit_log(sso: Team) -> None:
    _sign_on(sso, "sub-peggy")
    peggy = next(u for u in sso.admin.get("/api/admin/users") if u["username"] == "peggy")
    sso.admin.http.patch(f"/api/admin/users/{peggy['id']}", json={"disabled": True})
    _sign_on(sso, "sub-peggy")
    failed = sso.admin.get("/api/admin/audit?action=signin_failed")["items"]
    assert any(e["targetName"] == "peggy" and e["detail"]["reason"] == "disabled" for e in failed)
