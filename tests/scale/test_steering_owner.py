"""Issue 14, finding 6: steering reaches the process that drives a run whatever the topology.

Two `agentchat serve` on one PostgreSQL and one Redis, each with its own local bridge (no
bridge URL): the bridge of B knows nothing of a run on A, so a stop, a clarify answer, a steer
message or a reset sent to B must travel to A (over the bus) and be done on A's bridge."""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from agentchat.bridge_client import address
from agentchat.bridge_client.address import unix_url
from tests.scale.conftest import Api, Cluster, new_cluster
from tests.support.sse import Sse

STOP_WITHIN_S = 4.0
CLARIFY = "#clarify Which colour? | red | blue\n#echo-tool-result"


@pytest.fixture(scope="module")
def own(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cluster]:
    with new_cluster(tmp_path_factory) as cluster:
        cluster.start_api("a", own_bridge=True)  # registers the scripted model before b starts
        cluster.start_api("b", own_bridge=True)
        yield cluster


@pytest.fixture(autouse=True)
def stopped_after(own: Cluster) -> Iterator[None]:
    """Whatever a test leaves running on A is stopped through A (a failed test must not
    hold the cluster's run slots)."""
    yield
    for chat in own.a.get("/api/chat/sessions")["items"]:
        if chat.get("activeRunId"):
            own.a.http.post(f"/api/chat/runs/{chat['activeRunId']}/stop")


def _deltas(count: int) -> Callable[[list[Sse]], bool]:
    return lambda events: sum(e.data.get("kind") == "answer_delta" for e in events) >= count


def _asked(events: list[Sse]) -> bool:
    return any(e.data.get("kind") == "clarify_request" for e in events)


def _clarify_id(events: list[Sse]) -> str:
    return str(next(e for e in events if _asked([e])).data["meta"]["clarifyId"])


def _bridge_health(api: Api) -> dict[str, int]:
    """The /health of the bridge `serve` started as its child (its socket is on its command)."""
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            ppid = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            command = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode()
        except (OSError, IndexError, ValueError):
            continue
        found = re.search(r" bridge .*--uds (\S+)", command)
        if ppid == api.process.pid and found:
            response = address.get(unix_url(found[1]), "/health", timeout=10)
            body: dict[str, int] = response.json()
            return body
    raise AssertionError(f"no bridge child of {api.name}")


def test_a_stop_through_b_stops_the_run_on_a(own: Cluster) -> None:
    a, b = own.a, own.b
    session_id = a.new_session()
    run_id = a.start(session_id, "#delay 50\n#tokens 400")["runId"]
    b.events(run_id, stop=_deltas(5))
    began = time.monotonic()
    state = b.post(f"/api/chat/runs/{run_id}/stop", expect=200)
    assert state["status"] == "STOPPED", state
    assert time.monotonic() - began < STOP_WITHIN_S
    end = b.events(run_id, timeout=10)[-1]
    assert end.event == "workflow_error" and end.data["stopped"] is True
    answer = a.get(f"/api/chat/sessions/{session_id}")["messages"][-1]
    assert answer["status"] == "STOPPED" and answer["content"].startswith("t1 t2 t3 t4 t5")
    again = b.http.post(f"/api/chat/runs/{run_id}/stop")
    assert again.status_code == 409 and again.json()["error"]["code"] == "run_finished"


def test_a_clarify_answer_through_b_resumes_the_run_on_a(own: Cluster) -> None:
    a, b = own.a, own.b
    run_id = a.start(a.new_session(), CLARIFY)["runId"]
    seen = b.events(run_id, stop=_asked)
    wrong = b.http.post(f"/api/chat/runs/{run_id}/clarify", json={"clarifyId": "x", "answer": "x"})
    assert wrong.status_code == 409 and wrong.json()["error"]["code"] == "stale_clarify"
    body = {"clarifyId": _clarify_id(seen), "answer": "blue"}
    state = b.post(f"/api/chat/runs/{run_id}/clarify", body, expect=200)
    assert state["pendingClarify"] is None
    rest = b.events(run_id, last=seen[-1].num, timeout=30)
    assert rest[-1].event == "workflow_complete", rest[-1].data
    assert "blue" in rest[-1].data["finalText"]


def test_a_steer_message_through_b_reaches_the_agent_on_a(own: Cluster) -> None:
    a, b = own.a, own.b
    session_id = a.new_session()
    run_id = a.start(session_id, CLARIFY)["runId"]
    seen = a.events(run_id, stop=_asked)
    b.post(f"/api/chat/runs/{run_id}/steer", {"message": "Prefer the blue one."}, expect=200)
    body = {"clarifyId": _clarify_id(seen), "answer": "red"}
    a.post(f"/api/chat/runs/{run_id}/clarify", body, expect=200)
    end = a.events(run_id, last=seen[-1].num, timeout=30)[-1]
    assert end.event == "workflow_complete", end.data
    assert "Prefer the blue one." in end.data["finalText"]
    late = b.http.post(f"/api/chat/runs/{run_id}/steer", json={"message": "late"})
    assert late.status_code == 409 and late.json()["error"]["code"] == "run_finished"


def test_a_reset_through_b_drops_the_agent_held_by_the_bridge_of_a(own: Cluster) -> None:
    a, b = own.a, own.b
    session_id = a.new_session()
    _, events = a.ask(session_id, "#say hello")
    assert events[-1].event == "workflow_complete"
    held = _bridge_health(a)["agents"]
    assert held >= 1
    b.post(f"/api/chat/sessions/{session_id}/reset", {"keepHistory": True}, expect=200)
    assert _bridge_health(a)["agents"] < held  # B waited for the reply of A
