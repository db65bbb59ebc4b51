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
from collections.abc import Iterator
from pathlib import Path

import pytest

from agentchat.app import create_app
from agentchat.core.database import Database
from agentchat.core.settings import Settings
from tests.support.servers import BridgeProcess, serve_app, start_bridge
from tests.support.sse import read_events
from tests.support.team_stack import PASSWORD, Person, first_admin, sign_in


@pytest.fixture(scope="module")
def terminal_bridge(tmp_path_factory: pytest.TempPathFactory) -> Iterator[BridgeProcess]:
    toolsets = "clarify,todo,terminal"
    process = start_bridge(tmp_path_factory.mktemp("bridge"), AGENTCHAT_AGENT_TOOLSETS=toolsets)
    yield process
    process.stop()


@pytest.fixture
def people(
    tmp_path: Path,
    database: Database,
    terminal_bridge: BridgeProcess,
    scripted_url: str,
) -> Iterator[tuple[Person, Person]]:
    settings = Settings(
        data_dir=tmp_path / "data",
        bridge_url=terminal_bridge.url,
        bridge_secret=terminal_bridge.secret,
        start_bridge=False,
        start_scripted_llm=False,
        run_rate_per_minute=0,
        agent_toolsets="clarify,todo,terminal",
    )
    url, stop = serve_app(create_app(settings, database=database))
    admin = first_admin(url, scripted_url)
    for name in ("alice2", "bob"):
        admin.post("/api/admin/users", {"username": name, "password": PASSWORD}, expect=201)
    alice, bob = sign_in(url, "alice2"), sign_in(url, "bob")
    try:
        yield alice, bob
    finally:
        for person in (admin, alice, bob):
            person.http.close()
        stop()


def _asks(events: list[object]) -> bool:
    return any(getattr(e, "data", {}).get("kind") == "clarify_request" for e in events)


def test_another_person_cannot_allow_steer_answer_or_stop_a_run(
    people: tuple[Person, Person], tmp_path: Path
) -> None:
    alice, bob = people
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
