"""Two API processes on one PostgreSQL schema and one Redis: whichever process a request
reaches, a run streams, resumes, stops and counts against the limits the same way."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

import httpx

from tests.reliability.helpers import wait_for
from tests.scale.conftest import MAX_ACTIVE_RUNS, Api, Cluster
from tests.support.sse import Sse

STALE_WITHIN_S = 15.0


def _final(events: list[Sse]) -> str:
    assert events[-1].event == "workflow_complete", events[-1]
    return str(events[-1].data["finalText"])


def _deltas(count: int) -> Callable[[list[Sse]], bool]:
    return lambda events: sum(e.data.get("kind") == "answer_delta" for e in events) >= count


def test_a_run_started_on_a_streams_and_reconnects_on_b(cluster: Cluster) -> None:
    a, b = cluster.a, cluster.b
    started = a.start(a.new_session(), "#delay 20\n#tokens 40")
    run_id = started["runId"]
    head = b.events(run_id, stop=_deltas(5))
    rest = b.events(run_id, last=head[-1].num)
    ids = [e.num for e in head + rest]
    assert ids == list(range(1, len(ids) + 1))
    assert _final(rest).split() == [f"t{i}" for i in range(1, 41)]
    assert [e.num for e in a.events(run_id)] == ids  # the full replay is the same on A
    assert b.get(f"/api/chat/runs/{run_id}/state")["status"] == "SUCCESS"


def test_a_clarify_asked_on_a_is_answered_through_b(cluster: Cluster) -> None:
    a, b = cluster.a, cluster.b
    started = a.start(a.new_session(), "#clarify Which colour? | red | blue\n#echo-tool-result")
    run_id = started["runId"]

    def asked(events: list[Sse]) -> bool:
        return any(e.data.get("kind") == "clarify_request" for e in events)

    seen = b.events(run_id, stop=asked)
    clarify_id = next(e for e in seen if asked([e])).data["meta"]["clarifyId"]
    assert b.get(f"/api/chat/runs/{run_id}/state")["pendingClarify"]["clarifyId"] == clarify_id
    wrong = b.http.post(f"/api/chat/runs/{run_id}/clarify", json={"clarifyId": "x", "answer": "x"})
    assert wrong.status_code == 409
    b.post(f"/api/chat/runs/{run_id}/clarify", {"clarifyId": clarify_id, "answer": "blue"}, 200)
    rest = b.events(run_id, last=seen[-1].num)
    assert any(e.data.get("kind") == "clarify_answered" for e in rest)
    assert "blue" in _final(rest)
    assert a.get(f"/api/chat/runs/{run_id}/state")["pendingClarify"] is None


def test_a_run_started_on_a_is_stopped_through_b(cluster: Cluster) -> None:
    a, b = cluster.a, cluster.b
    session_id = a.new_session()
    started = a.start(session_id, "#delay 50\n#tokens 400")
    run_id = started["runId"]
    b.events(run_id, stop=_deltas(5))
    state = b.post(f"/api/chat/runs/{run_id}/stop", expect=200)
    assert state["status"] == "STOPPED"  # B waited for A to end the run
    end = a.events(run_id)[-1]
    assert end.event == "workflow_error" and end.data["stopped"] is True
    answer = a.get(f"/api/chat/sessions/{session_id}")["messages"][-1]
    assert answer["status"] == "STOPPED" and answer["content"].startswith("t1 t2 t3 t4 t5")
    again = b.http.post(f"/api/chat/runs/{run_id}/stop")
    assert again.status_code == 409


def test_reset_through_b_waits_for_a_run_on_a_and_starts_the_agent_afresh(
    cluster: Cluster,
) -> None:
    a, b = cluster.a, cluster.b
    session_id = a.new_session()
    a.ask(session_id, "before reset")
    started = a.start(session_id, "#sleep 3000\n#say slow")
    busy = b.http.post(f"/api/chat/sessions/{session_id}/reset", json={"keepHistory": True})
    assert busy.status_code == 409
    b.post(f"/api/chat/runs/{started['runId']}/stop", expect=200)
    b.post(f"/api/chat/sessions/{session_id}/reset", {"keepHistory": True}, expect=200)
    _, events = a.ask(session_id, "#echo-context")
    assert _final(events) == "CONTEXT:"


def _post_all(calls: list[tuple[Api, str, dict[str, Any]]]) -> list[httpx.Response]:
    """POST every call at the same moment, each from its own thread."""
    barrier = threading.Barrier(len(calls))
    results: list[httpx.Response | None] = [None] * len(calls)

    def send(i: int, api: Api, path: str, body: dict[str, Any]) -> None:
        with httpx.Client(base_url=api.url, timeout=30) as http:
            barrier.wait()
            results[i] = http.post(path, json=body)

    threads = [threading.Thread(target=send, args=(i, *call)) for i, call in enumerate(calls)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert all(r is not None for r in results)
    return [r for r in results if r is not None]


def _stop_all(api: Api, responses: list[httpx.Response]) -> None:
    for response in responses:
        if response.status_code == 201:
            api.post(f"/api/chat/runs/{response.json()['runId']}/stop", expect=200)


def test_the_global_cap_holds_across_processes(cluster: Cluster) -> None:
    a, b = cluster.a, cluster.b
    apis = [a if i % 2 == 0 else b for i in range(MAX_ACTIVE_RUNS + 1)]
    sessions = [api.new_session() for api in apis]
    sequential = [
        api.http.post(f"/api/chat/sessions/{sid}/runs", json={"message": "#sleep 20000\n#say x"})
        for api, sid in zip(apis, sessions, strict=True)
    ]
    assert [r.status_code for r in sequential] == [201] * MAX_ACTIVE_RUNS + [429]
    assert sequential[-1].json()["error"]["code"] == "too_many_requests"
    _stop_all(b, sequential)

    for _ in range(2):  # at the same moment, through both processes
        sessions = [api.new_session() for api in apis]
        body = {"message": "#sleep 20000\n#say x"}
        calls = [
            (api, f"/api/chat/sessions/{sid}/runs", body)
            for api, sid in zip(apis, sessions, strict=True)
        ]
        together = _post_all(calls)
        _stop_all(a, together)
        assert sorted(r.status_code for r in together) == [201] * MAX_ACTIVE_RUNS + [429]


def test_one_run_per_session_holds_across_processes(cluster: Cluster) -> None:
    a, b = cluster.a, cluster.b
    for _ in range(3):
        session_id = a.new_session()
        path = f"/api/chat/sessions/{session_id}/runs"
        body = {"message": "#sleep 20000\n#say x"}
        together = _post_all([(a, path, body), (b, path, body)])
        _stop_all(b, together)
        assert sorted(r.status_code for r in together) == [201, 409]
        conflict = next(r for r in together if r.status_code == 409)
        assert conflict.json()["error"]["code"] == "run_active"


def test_killing_an_api_process_loses_nothing_and_another_finishes_its_run(
    cluster: Cluster,
) -> None:
    """The bridge keeps the dead process's turn going; once its owner key expires the other
    process re-attaches to it and finishes it, on the same stream ids (Redis kept them)."""
    b = cluster.b
    doomed = cluster.start_api("doomed")
    session_id = doomed.new_session()
    first, events = doomed.ask(session_id, "saved before the crash")
    assert events[-1].event == "workflow_complete"
    running = doomed.start(session_id, "#sleep 8000\n#say never")
    assert b.get(f"/api/chat/runs/{running['runId']}/state")["status"] == "RUNNING"
    # the API answers 201 before its bridge has the turn: killed sooner, no bridge kept it
    # (and the other process rightly ends it as lost; seen on a loaded machine)
    wait_for(
        lambda: _held_run_ids(cluster),
        lambda held: running["runId"] in held,
        timeout=30,
        what="a bridge to hold the run",
    )
    doomed.kill()
    killed_at = time.monotonic()

    streamed = b.events(running["runId"], timeout=STALE_WITHIN_S + 10)
    assert time.monotonic() - killed_at < STALE_WITHIN_S + 5
    end = streamed[-1]
    assert end.event == "workflow_complete" and end.data["finalText"] == "never", end.data
    assert [e.num for e in streamed] == list(range(1, len(streamed) + 1))
    messages = b.get(f"/api/chat/sessions/{session_id}")["messages"]
    assert [m["status"] for m in messages] == ["SENT", "SUCCESS", "SENT", "SUCCESS"]
    assert messages[1]["id"] == first["messageId"]
    assert messages[1]["content"] == events[-1].data["finalText"]
    _, events = b.ask(b.new_session(), "#say still serving")  # the other process serves on
    assert _final(events) == "still serving"


def _held_run_ids(cluster: Cluster) -> set[str]:
    """The runs the cluster's bridges hold (each bridge's GET /runs)."""
    held: set[str] = set()
    headers = {"Authorization": f"Bearer {cluster.secret}"}  # the bridges' (start_bridge)
    for bridge in cluster.bridges:
        runs = httpx.get(f"{bridge.url}/runs", headers=headers, timeout=5).json()
        held |= {run["runId"] for run in runs}
    return held
