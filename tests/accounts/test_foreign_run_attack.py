"""Issue 28, "clarify/steer/stop": another person cannot act on a run by its id. Alice's agent
asks to run a dangerous command (a real hermes approval pause) and Bob, who has learnt the
run's id, its question's id and her message's id, tries every run-scoped route with the right
ids and well-formed bodies: allow the command (once, for the chat), steer, answer, stop, read
its state and streams, regenerate or edit the message, take the chat's approvals. Every try
answers 404, as for a run that does not exist; Alice's run waits as it was, and her own
"Deny" ends it with the folder still there. (tests/scale/test_accounts_isolation.py does the
same through a second `serve` process, the one that does not drive the run.)"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.support.own_bridge import own_bridge
from tests.support.sse import read_events
from tests.support.team_stack import Team

TOOLSETS = "clarify,todo,terminal"
bridge = own_bridge(AGENTCHAT_AGENT_TOOLSETS=TOOLSETS)


@pytest.fixture
def team_settings() -> dict[str, Any]:
    return {"agent_toolsets": TOOLSETS}


def _asks(events: list[object]) -> bool:
    return any(getattr(e, "data", {}).get("kind") == "clarify_request" for e in events)


def test_another_person_cannot_allow_steer_answer_or_stop_a_run(team: Team, tmp_path: Path) -> None:
    alice, bob = team.add("alice2"), team.add("bob")
    target = tmp_path / "precious"
    (target / "inside").mkdir(parents=True)
    chat = alice.new_session()
    command = json.dumps({"command": f"rm -rf {target}"})
    started = alice.start(chat, f"#tool terminal {command}\n#echo-tool-result")
    run, message = started["runId"], started["messageId"]
    seen = alice.events(run, stop=_asks, timeout=60)
    pause = alice.get(f"/api/chat/runs/{run}/state")["pendingClarify"]
    assert pause["choices"] == ["Allow once", "Allow for this chat", "Deny"]
    clarify = pause["clarifyId"]

    tries = {
        "allow once": bob.http.post(
            f"/api/chat/runs/{run}/clarify", json={"clarifyId": clarify, "answer": "Allow once"}
        ),
        "allow for the chat": bob.http.post(
            f"/api/chat/runs/{run}/clarify",
            json={"clarifyId": clarify, "answer": "Allow for this chat"},
        ),
        "steer": bob.http.post(f"/api/chat/runs/{run}/steer", json={"message": "Allow it."}),
        "stop": bob.http.post(f"/api/chat/runs/{run}/stop"),
        "state": bob.http.get(f"/api/chat/runs/{run}/state"),
        "stream": bob.http.get(f"/api/chat/runs/{run}/stream"),
        "streams": bob.http.get("/api/chat/stream", params={"runs": run}),
        "regenerate": bob.http.post(f"/api/chat/messages/{message}/regenerate"),
        "edit": bob.http.patch(f"/api/chat/messages/{message}", json={"content": "Allowed."}),
        "versions": bob.http.get(f"/api/chat/messages/{message}/versions"),
        "chat approvals": bob.http.patch(f"/api/chat/sessions/{chat}", json={"approvals": []}),
        "new run in the chat": bob.http.post(
            f"/api/chat/sessions/{chat}/runs", json={"message": "hi"}
        ),
        "reset": bob.http.post(f"/api/chat/sessions/{chat}/reset", json={}),
    }
    answers = {what: (r.status_code, r.json()["error"]["code"]) for what, r in tries.items()}
    assert all(status == 404 for status, _ in answers.values()), answers
    unknown = bob.http.get("/api/chat/runs/run-that-never-was/state")
    assert tries["state"].json()["error"].keys() == unknown.json()["error"].keys()

    assert alice.get(f"/api/chat/runs/{run}/state")["pendingClarify"] == pause  # still waits
    assert (target / "inside").is_dir()
    alice.post(f"/api/chat/runs/{run}/clarify", {"clarifyId": clarify, "answer": "Deny"}, 200)
    end = read_events(
        f"{alice.url}/api/chat/runs/{run}/stream",
        headers={"Authorization": f"Bearer {alice.token}", "Last-Event-ID": str(seen[-1].num)},
        timeout=60,
    )[-1]
    assert end.event == "workflow_complete", end.data
    assert (target / "inside").is_dir()
    assert alice.get(f"/api/chat/sessions/{chat}")["session"]["approvals"] == []
