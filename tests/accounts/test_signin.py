"""Signing in with accounts: password, throttles, sessions that can be listed and ended, a
disabled person's open stream ending at once, sign-up and invitations."""

from __future__ import annotations

import time

import httpx

from tests.reliability.helpers import wait_for
from tests.support.team_stack import PASSWORD, Team, sign_in

FULL_WIDTH_BOB = "\uff42\uff4f\uff42"
CYRILLIC_A = "\u0430"


def _login(url: str, name: str, password: str) -> httpx.Response:
    return httpx.post(
        f"{url}/api/auth/login", json={"username": name, "password": password}, timeout=30
    )


def test_without_a_session_every_api_route_answers_401_once_accounts_exist(team: Team) -> None:
    anonymous = httpx.get(f"{team.url}/api/chat/sessions", timeout=10)
    assert anonymous.status_code == 401
    assert anonymous.json()["error"]["code"] == "unauthorized"
    status = httpx.get(f"{team.url}/api/auth/status", timeout=10).json()
    assert status["mode"] == "accounts" and status["authenticated"] is False
    assert team.admin.get("/api/auth/me") == {
        "id": team.admin.id,
        "username": "alice",
        "role": "admin",
        "mode": "accounts",
    }


def test_a_wrong_password_is_refused_alike_for_a_known_and_an_unknown_name(team: Team) -> None:
    team.add("bob")
    known = _login(team.url, "bob", "wrong password")
    unknown = _login(team.url, "nobody", "wrong password")
    assert (known.status_code, unknown.status_code) == (401, 401)
    assert known.json()["error"] == unknown.json()["error"]
    assert known.json()["error"]["code"] == "bad_credentials"
    assert "agentchat_session" not in known.cookies
    log = team.admin.get("/api/admin/audit?action=signin_failed")["items"]
    assert {e["targetName"] for e in log} >= {"bob", "nobody"}
    assert all(e["ip"] == "127.0.0.1" for e in log)


def test_sign_in_finds_the_name_whatever_its_case_or_width(team: Team) -> None:
    team.add("Bob")
    assert _login(team.url, "BOB", PASSWORD).status_code == 200
    assert _login(team.url, FULL_WIDTH_BOB, PASSWORD).status_code == 200


def test_wrong_passwords_make_the_account_wait_whoever_tries(team: Team) -> None:
    team.add("bob")
    for _ in range(team.settings.signin_failures_per_account):
        assert _login(team.url, "bob", "guess").status_code == 401
    refused = _login(team.url, "bob", PASSWORD)  # even the right one, for a while
    assert refused.status_code == 429
    assert refused.json()["error"]["code"] == "signin_throttled"
    assert int(refused.headers["retry-after"]) >= 1


def test_an_address_that_keeps_failing_is_throttled(team: Team) -> None:
    codes: list[int] = []
    while 429 not in codes and len(codes) < 40:  # the bucket refills slowly meanwhile
        codes.append(_login(team.url, f"user{len(codes)}", "guess").status_code)
    assert codes[:10] == [401] * 10
    assert codes[-1] == 429


def test_sessions_are_listed_and_one_ends_without_the_others(team: Team) -> None:
    team.add("bob")
    first, second = sign_in(team.url, "bob"), sign_in(team.url, "bob")
    listed = first.get("/api/auth/sessions")
    assert len(listed) == 3 and sum(s["current"] for s in listed) == 1
    other = next(s for s in listed if not s["current"])
    first.http.delete(f"/api/auth/sessions/{other['id']}")
    ended = [
        p for p in (team.people["bob"], second) if p.http.get("/api/auth/me").status_code == 401
    ]
    assert len(ended) == 1
    assert first.get("/api/auth/me")["username"] == "bob"


def test_sign_out_everywhere_ends_every_session(team: Team) -> None:
    bob = team.add("bob")
    other = sign_in(team.url, "bob")
    assert bob.post("/api/auth/logout-everywhere", expect=200) == {"ended": 2}
    assert bob.http.get("/api/auth/me").status_code == 401
    assert other.http.get("/api/auth/me").status_code == 401


def test_changing_the_password_needs_the_old_one_and_ends_the_other_sessions(team: Team) -> None:
    bob = team.add("bob")
    other = sign_in(team.url, "bob")
    wrong = bob.http.post(
        "/api/auth/password", json={"currentPassword": "nope", "newPassword": "a new password"}
    )
    assert wrong.status_code == 403 and wrong.json()["error"]["code"] == "password_wrong"
    short = bob.http.post(
        "/api/auth/password", json={"currentPassword": PASSWORD, "newPassword": "short"}
    )
    assert short.status_code == 422 and short.json()["error"]["code"] == "password_invalid"
    body = {"currentPassword": PASSWORD, "newPassword": "a new password"}
    assert bob.post("/api/auth/password", body, expect=200) == {"ended": 1}
    assert other.http.get("/api/auth/me").status_code == 401
    assert bob.get("/api/auth/me")["username"] == "bob"
    assert _login(team.url, "bob", PASSWORD).status_code == 401
    assert _login(team.url, "bob", "a new password").status_code == 200


def test_disabling_a_person_ends_their_sessions_and_open_stream_at_once(team: Team) -> None:
    bob = team.add("bob")
    session_id = bob.new_session()
    run_id = bob.start(session_id, "#clarify Which? | a | b")["runId"]
    began = time.monotonic()
    events = []
    with httpx.stream(
        "GET",
        f"{team.url}/api/chat/runs/{run_id}/stream",
        headers={"Authorization": f"Bearer {bob.token}"},
        timeout=30,
    ) as stream:
        lines = stream.iter_lines()
        for line in lines:
            events.append(line)
            if "clarify_request" in line:
                break
        team.admin.http.patch(f"/api/admin/users/{bob.id}", json={"disabled": True})
        rest = list(lines)  # the server ends the response: this returns
    assert time.monotonic() - began < 30
    assert not any("workflow_" in line for line in rest)
    refused = bob.http.get("/api/auth/me")
    assert refused.status_code == 401
    again = _login(team.url, "bob", PASSWORD)
    assert again.status_code == 403 and again.json()["error"]["code"] == "account_disabled"
    log = team.admin.get("/api/admin/audit?action=user_disabled")["items"]
    assert log[0]["actorName"] == "alice" and log[0]["targetName"] == "bob"


def test_an_invitation_works_once_and_grants_its_role(team: Team) -> None:
    invitation = team.admin.post("/api/admin/invitations", {"role": "user"}, expect=201)
    token = invitation["token"]
    assert invitation["path"] == f"/invite/{token}"
    assert httpx.get(f"{team.url}/api/auth/invitations/{token}").json()["role"] == "user"
    body = {"username": "dora", "password": PASSWORD}
    accepted = httpx.post(f"{team.url}/api/auth/invitations/{token}/accept", json=body)
    assert accepted.status_code == 201, accepted.text
    assert accepted.json()["role"] == "user" and "agentchat_session" in accepted.cookies
    again = httpx.post(
        f"{team.url}/api/auth/invitations/{token}/accept",
        json={"username": "eve", "password": PASSWORD},
    )
    assert again.status_code == 404 and again.json()["error"]["code"] == "invitation_invalid"
    assert [u["username"] for u in team.admin.get("/api/admin/users")] == ["alice", "dora"]


def test_sign_up_is_off_unless_the_operator_opens_it(team: Team) -> None:
    body = {"username": "mallory", "password": PASSWORD}
    refused = httpx.post(f"{team.url}/api/auth/signup", json=body)
    assert refused.status_code == 403 and refused.json()["error"]["code"] == "signup_closed"
    team.settings.signup = "approval"
    asked = httpx.post(f"{team.url}/api/auth/signup", json=body)
    assert asked.json() == {"status": "pending", "user": None}
    pending = _login(team.url, "mallory", PASSWORD)
    assert pending.status_code == 403 and pending.json()["error"]["code"] == "account_pending"
    mallory = next(u for u in team.admin.get("/api/admin/users") if u["username"] == "mallory")
    team.admin.http.patch(f"/api/admin/users/{mallory['id']}", json={"role": "user"})
    assert _login(team.url, "mallory", PASSWORD).status_code == 200


def test_names_that_look_alike_cannot_both_exist(team: Team) -> None:
    team.add("paypal")
    for lookalike, code in [
        ("PayPal", "username_taken"),
        ("paypa1", "username_lookalike"),
        (f"p{CYRILLIC_A}ypal", "username_invalid"),  # scripts mixed
    ]:
        body = {"username": lookalike, "password": PASSWORD}
        response = team.admin.http.post("/api/admin/users", json=body)
        assert response.json()["error"]["code"] == code, lookalike


def test_the_last_administrator_stays_one(team: Team) -> None:
    demoted = team.admin.http.patch(f"/api/admin/users/{team.admin.id}", json={"role": "user"})
    assert demoted.status_code == 409 and demoted.json()["error"]["code"] == "last_admin"
    itself = team.admin.http.delete(f"/api/admin/users/{team.admin.id}")
    assert itself.json()["error"]["code"] == "own_account"
    bob = team.add("bob")
    refused = bob.http.get("/api/admin/users")
    assert refused.status_code == 403 and refused.json()["error"]["code"] == "admin_only"


def test_pending_and_disabled_are_told_apart_only_after_the_right_password(team: Team) -> None:
    """A person waiting for approval is told so, a disabled one that the account is disabled;
    a wrong password gets the same answer as an unknown name (no one learns the account)."""
    team.settings.signup = "approval"
    asked = httpx.post(
        f"{team.url}/api/auth/signup", json={"username": "penny", "password": PASSWORD}
    )
    assert asked.status_code == 201, asked.text
    team.add("dan")
    dan = next(u for u in team.admin.get("/api/admin/users") if u["username"] == "dan")
    team.admin.http.patch(f"/api/admin/users/{dan['id']}", json={"disabled": True})

    unknown = _login(team.url, "nobody", "wrong password").json()["error"]
    for name in ("penny", "dan"):
        wrong = _login(team.url, name, "wrong password")
        assert wrong.status_code == 401 and wrong.json()["error"] == unknown, name
    pending = _login(team.url, "penny", PASSWORD)
    assert pending.status_code == 403
    assert pending.json()["error"]["code"] == "account_pending"
    assert "approved" in pending.json()["error"]["message"]
    disabled = _login(team.url, "dan", PASSWORD)
    assert disabled.status_code == 403
    assert disabled.json()["error"]["code"] == "account_disabled"
    assert "disabled" in disabled.json()["error"]["message"]
    assert (
        "agentchat_session" not in pending.cookies and "agentchat_session" not in disabled.cookies
    )
    log = team.admin.get("/api/admin/audit?action=signin_failed")["items"]
    reasons = {(e["targetName"], e["detail"].get("reason")) for e in log}
    assert {("penny", "pending"), ("dan", "disabled")} <= reasons


def test_administrators_changes_to_shared_models_and_tools_are_in_the_audit_log(
    team: Team,
) -> None:
    model = {"name": "audited", "baseUrl": "http://127.0.0.1:9/v1", "modelName": "m"}
    created = team.admin.post("/api/models", model, expect=201)
    renamed = team.admin.http.patch(f"/api/models/{created['id']}", json={"name": "renamed"})
    assert renamed.status_code == 200, renamed.text
    assert team.admin.http.post(f"/api/models/{created['id']}/test").status_code < 500
    assert team.admin.http.delete(f"/api/models/{created['id']}").status_code == 204
    bob = team.add("bob")
    own = bob.post("/api/models", {**model, "name": "bob's own"}, expect=201)  # not an admin's

    # an entry is written once its answer has gone (accounts/admin_audit.py): the last one
    # can land just after the client read that answer
    log = wait_for(
        lambda: team.admin.get("/api/admin/audit?action=admin_change")["items"],
        lambda items: len(items) >= 3,
        what="the three audit entries",
    )
    seen = [(e["actorName"], e["detail"]["method"], e["detail"]["object"]) for e in log]
    assert seen == [
        ("alice", "DELETE", "model"),
        ("alice", "PATCH", "model"),
        ("alice", "POST", "model"),
    ]
    assert log[0]["detail"]["objectId"] == str(created["id"]) and log[0]["ip"] == "127.0.0.1"
    assert all(e["detail"]["objectId"] != str(own["id"]) for e in log)
