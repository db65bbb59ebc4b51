"""Issue 28 with two `serve` processes on one PostgreSQL and one Redis: every process
enforces the same ownership (Carol through process B cannot touch Bob's run on process A,
while Bob's own steering through B travels over the bus to A), and disabling a person
through A ends their open stream on B."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from agentchat.events.control_bus import ControlBus
from agentchat.runs.cluster.owners import RunOwners
from tests.scale.conftest import Cluster, new_cluster
from tests.support.sse import Sse, read_events

PASSWORD = "correct horse battery"
CLARIFY = "#clarify Which colour? | red | blue\n#echo-tool-result"


@pytest.fixture(scope="module")
def two(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cluster]:
    with new_cluster(tmp_path_factory) as cluster:
        cluster.start_bridge("bridge-1")
        cluster.start_api("a")
        cluster.start_api("b")
        first = {"username": "alice", "password": PASSWORD}
        cluster.a.post("/api/admin/users", first, expect=201)  # without accounts: the one person
        yield cluster


def _login(url: str, name: str) -> httpx.Client:
    response = httpx.post(f"{url}/api/auth/login", json={"username": name, "password": PASSWORD})
    assert response.status_code == 200, response.text
    token = response.cookies["agentchat_session"]
    return httpx.Client(base_url=url, headers={"Authorization": f"Bearer {token}"}, timeout=30)


def _events(client: httpx.Client, run_id: str, last: int = 0, **kw: Any) -> list[Sse]:
    url = f"{client.base_url}/api/chat/runs/{run_id}/stream"
    headers = {**dict(client.headers), "Last-Event-ID": str(last)}
    return read_events(url, headers=headers, **kw)


def _asked(events: list[Sse]) -> bool:
    return any(e.data.get("kind") == "clarify_request" for e in events)


def test_another_person_on_the_other_process_cannot_touch_a_run(two: Cluster) -> None:
    admin = _login(two.a.url, "alice")
    for name in ("bob", "carol"):
        body = {"username": name, "password": PASSWORD}
        assert admin.post("/api/admin/users", json=body).status_code == 201
    bob_a, bob_b = _login(two.a.url, "bob"), _login(two.b.url, "bob")
    carol_b = _login(two.b.url, "carol")
    chat = bob_a.post("/api/chat/sessions", json={}).json()["sessionId"]
    run = bob_a.post(f"/api/chat/sessions/{chat}/runs", json={"message": CLARIFY}).json()["runId"]
    seen = _events(bob_a, run, stop=_asked, timeout=60)
    clarify_id = next(e for e in seen if _asked([e])).data["meta"]["clarifyId"]

    tries = [
        carol_b.post(f"/api/chat/runs/{run}/stop"),
        carol_b.post(f"/api/chat/runs/{run}/steer", json={"message": "Say purple."}),
        carol_b.post(
            f"/api/chat/runs/{run}/clarify", json={"clarifyId": clarify_id, "answer": "blue"}
        ),
        carol_b.get(f"/api/chat/runs/{run}/state"),
        carol_b.get(f"/api/chat/runs/{run}/stream"),
        carol_b.get(f"/api/chat/sessions/{chat}"),
        carol_b.post(f"/api/chat/sessions/{chat}/reset", json={}),
    ]
    assert [r.status_code for r in tries] == [404] * len(tries), [r.text for r in tries]
    assert bob_a.get(f"/api/chat/runs/{run}/state").json()["pendingClarify"] is not None

    steer = bob_b.post(f"/api/chat/runs/{run}/steer", json={"message": "Prefer the blue one."})
    assert steer.status_code == 200, steer.text  # over the bus to the process that drives it
    answer = {"clarifyId": clarify_id, "answer": "red"}
    assert bob_b.post(f"/api/chat/runs/{run}/clarify", json=answer).status_code == 200
    end = _events(bob_a, run, last=seen[-1].num, timeout=60)[-1]
    assert end.event == "workflow_complete" and "Prefer the blue one." in end.data["finalText"]


def test_disabling_through_one_process_ends_the_stream_on_the_other(two: Cluster) -> None:
    admin = _login(two.a.url, "alice")
    body = {"username": "dave", "password": PASSWORD}
    created = admin.post("/api/admin/users", json=body)
    assert created.status_code == 201, created.text
    dave_b = _login(two.b.url, "dave")
    chat = dave_b.post("/api/chat/sessions", json={}).json()["sessionId"]
    run = dave_b.post(f"/api/chat/sessions/{chat}/runs", json={"message": CLARIFY}).json()["runId"]
    lines: list[str] = []
    with httpx.stream(
        "GET",
        f"{two.b.url}/api/chat/runs/{run}/stream",
        headers=dict(dave_b.headers),
        timeout=60,
    ) as stream:
        for line in stream.iter_lines():
            lines.append(line)
            if "clarify_request" in line:
                admin.patch(f"/api/admin/users/{created.json()['id']}", json={"disabled": True})
        # the loop ends when process B ends the response
    assert not any("workflow_" in line for line in lines)
    assert dave_b.get("/api/auth/me").status_code == 401


def _me(client: httpx.Client) -> int:
    return int(client.get("/api/auth/me").json()["id"])


async def _forged(two: Cluster, run_id: str, body: dict[str, Any]) -> dict[str, Any]:
    """What a process that forgot its own check would send to the run's process."""
    owners = RunOwners.from_url(two.redis_url, two.redis_prefix)
    bus = ControlBus.from_url(two.redis_url, two.redis_prefix, "forging-process")
    try:
        owner = await owners.owner_of(run_id)
        assert owner is not None
        return await bus.request(owner, {**body, "runId": run_id}, timeout=30)
    finally:
        await owners.aclose()
        await bus.aclose()


def test_the_process_that_drives_a_run_checks_its_owner_again(two: Cluster) -> None:
    """Steering forwarded over the control bus names the person asking; the run's process
    answers 404 unless the run is theirs, whatever the asking process checked."""
    admin = _login(two.a.url, "alice")
    for name in ("erin", "frank"):
        body = {"username": name, "password": PASSWORD}
        assert admin.post("/api/admin/users", json=body).status_code == 201
    erin, frank = _login(two.a.url, "erin"), _login(two.b.url, "frank")
    chat = erin.post("/api/chat/sessions", json={}).json()["sessionId"]
    run = erin.post(f"/api/chat/sessions/{chat}/runs", json={"message": CLARIFY}).json()["runId"]
    seen = _events(erin, run, stop=_asked, timeout=60)
    clarify_id = next(e for e in seen if _asked([e])).data["meta"]["clarifyId"]
    as_frank = {"ownerId": _me(frank)}

    forged = [
        {"op": "stop", **as_frank},
        {"op": "steer", "text": "Say purple.", **as_frank},
        {"op": "clarify", "clarifyId": clarify_id, "answer": "blue", **as_frank},
    ]
    replies = [asyncio.run(_forged(two, run, body)) for body in forged]
    assert [(r["ok"], r.get("status")) for r in replies] == [(False, 404)] * 3, replies
    assert erin.get(f"/api/chat/runs/{run}/state").json()["pendingClarify"] is not None

    own = {"op": "clarify", "clarifyId": clarify_id, "answer": "red", "ownerId": _me(erin)}
    assert asyncio.run(_forged(two, run, own)) == {"ok": True}
    end = _events(erin, run, last=seen[-1].num, timeout=60)[-1]
    assert end.event == "workflow_complete", end.data
