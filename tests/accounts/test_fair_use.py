"""Issue 28, "fair use" and invitations: answers one person may run at once
(AGENTCHAT_MAX_ACTIVE_RUNS_PER_USER), run starts per person a minute (people behind one
address do not share a bucket), and an invitation link that has expired."""

from __future__ import annotations

from datetime import timedelta

import httpx
import pytest
from sqlalchemy import update

from agentchat.accounts.tables import AccountToken
from agentchat.core.clock import utcnow
from tests.support.team_stack import PASSWORD, Team

CLARIFY = "#clarify Which colour? | red | blue"


def _asks(events: list[object]) -> bool:
    return any(getattr(e, "data", {}).get("kind") == "clarify_request" for e in events)


def test_one_person_runs_at_most_their_share_at_once(team: Team) -> None:
    team.settings.max_active_runs_per_user = 1
    team.settings.max_waiting_runs = 0  # a run waiting for its question counts as at work
    bob, carol = team.add("bob"), team.add("carol")
    first = bob.start(bob.new_session(), CLARIFY)
    bob.events(first["runId"], stop=_asks)

    refused = bob.http.post(f"/api/chat/sessions/{bob.new_session()}/runs", json={"message": "hi"})
    assert refused.status_code == 429, refused.text
    assert refused.json()["error"]["code"] == "too_many_runs"
    other = carol.start(carol.new_session(), "#say hello")  # another person's share is hers
    assert carol.events(other["runId"])[-1].event == "workflow_complete"

    clarify = bob.get(f"/api/chat/runs/{first['runId']}/state")["pendingClarify"]["clarifyId"]
    body = {"clarifyId": clarify, "answer": "red"}
    bob.post(f"/api/chat/runs/{first['runId']}/clarify", body, expect=200)
    assert bob.events(first["runId"])[-1].event == "workflow_complete"
    again = bob.start(bob.new_session(), "#say once more")  # his one run ended: he may again
    assert bob.events(again["runId"])[-1].event == "workflow_complete"


# Three run starts (and three sign-ins, three sign-ups) a minute; everyone comes from 127.0.0.1.
THREE_A_MINUTE = pytest.mark.parametrize(
    "team_settings", [{"run_rate_per_minute": 3}], ids=["3-a-minute"]
)


@THREE_A_MINUTE
def test_run_starts_are_counted_per_person_not_per_address(team: Team) -> None:
    bob, carol = team.add("bob"), team.add("carol")
    chat = bob.new_session()
    for n in range(3):
        run = bob.start(chat, f"#say answer {n}")
        assert bob.events(run["runId"])[-1].event == "workflow_complete"
    refused = bob.http.post(f"/api/chat/sessions/{chat}/runs", json={"message": "#say more"})
    assert refused.status_code == 429, refused.text
    assert refused.json()["error"]["code"] == "too_many_requests"
    assert int(refused.headers["retry-after"]) >= 1
    own = carol.start(carol.new_session(), "#say mine")  # the same address, her own bucket
    assert carol.events(own["runId"])[-1].event == "workflow_complete"


def test_an_expired_invitation_opens_nothing(team: Team) -> None:
    invitation = team.admin.post(
        "/api/admin/invitations", {"role": "user", "expiresInHours": 1}, expect=201
    )
    token = invitation["token"]
    assert httpx.get(f"{team.url}/api/auth/invitations/{token}").status_code == 200
    with team.database.session() as db:  # an hour and a second later
        db.execute(
            update(AccountToken)
            .where(AccountToken.id == invitation["id"])
            .values(expires_at=utcnow() - timedelta(seconds=1))
        )
    shown = httpx.get(f"{team.url}/api/auth/invitations/{token}")
    assert shown.status_code == 404 and shown.json()["error"]["code"] == "invitation_invalid"
    body = {"username": "late", "password": PASSWORD}
    accepted = httpx.post(f"{team.url}/api/auth/invitations/{token}/accept", json=body)
    assert accepted.status_code == 404
    assert accepted.json()["error"]["code"] == "invitation_invalid"
    assert "late" not in [u["username"] for u in team.admin.get("/api/admin/users")]
    listed = team.admin.get("/api/admin/invitations")
    assert invitation["id"] not in [i["id"] for i in listed]  # only the ones still usable


@THREE_A_MINUTE
def test_sign_ups_are_counted_per_address(team: Team) -> None:
    """Each account asked for costs an argon2 hash and a row: one address cannot make them
    by the thousand (sign-ups and invitation acceptances, three a minute here)."""
    team.settings.signup = "open"
    url = team.admin.url
    for n in range(3):
        body = {"username": f"newcomer{n}", "password": PASSWORD}
        assert httpx.post(f"{url}/api/auth/signup", json=body).status_code == 201
    body = {"username": "newcomer3", "password": PASSWORD}
    refused = httpx.post(f"{url}/api/auth/signup", json=body)
    assert refused.status_code == 429, refused.text
    assert refused.json()["error"]["code"] == "too_many_requests"
    invitation = team.admin.post("/api/admin/invitations", {"role": "user"}, expect=201)
    accept = f"{url}/api/auth/invitations/{invitation['token']}/accept"
    assert httpx.post(accept, json=body).status_code == 429  # the same address's bucket
    names = [u["username"] for u in team.admin.get("/api/admin/users")]
    assert "newcomer3" not in names and "newcomer2" in names
