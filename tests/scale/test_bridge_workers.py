"""Several bridge workers: a session's turns go to the worker that holds its agent and move to
another when that one dies, with the conversation rebuilt from the branch history."""

from __future__ import annotations

import time

import httpx

from agentchat.bridge_client.workers import BridgeWorkers, rank
from tests.scale.conftest import Cluster

FAILOVER_WITHIN_S = 10.0


def test_a_dead_worker_moves_its_sessions_and_the_conversation_continues(
    cluster: Cluster,
) -> None:
    keep, doomed = cluster.bridges[0], cluster.start_bridge("bridge-doomed")
    api = cluster.start_api("failover", bridge_urls=[keep.url, doomed.url])
    for _ in range(40):  # a session that prefers the worker about to die (1 in 2 do)
        session_id = api.new_session()
        hermes = api.get(f"/api/chat/sessions/{session_id}")["session"]["hermesSession"]
        if rank([keep.url, doomed.url], hermes)[0] == doomed.url:
            break
    else:
        raise AssertionError("no session preferred the second worker")

    api.ask(session_id, "first question")
    api.ask(session_id, "second question")
    assert httpx.get(f"{doomed.url}/health").json()["agents"] >= 1  # it served the turns
    agents_before = httpx.get(f"{keep.url}/health").json()["agents"]
    doomed.kill()

    started_at = time.monotonic()
    _, events = api.ask(session_id, "#echo-context")
    assert time.monotonic() - started_at < FAILOVER_WITHIN_S
    assert events[-1].event == "workflow_complete", events[-1]
    assert events[-1].data["finalText"] == "CONTEXT: first question | second question"
    assert httpx.get(f"{keep.url}/health").json()["agents"] > agents_before
    _, events = api.ask(session_id, "#echo-context")  # the next turn goes there at once
    assert events[-1].data["finalText"].startswith("CONTEXT: first question | second question")


async def test_a_worker_marked_down_goes_last_until_its_time_is_up() -> None:
    urls = ["http://127.0.0.1:1", "http://127.0.0.1:2", "http://127.0.0.1:3"]
    router = BridgeWorkers(urls, down_s=60.0)
    try:
        preferred = rank(urls, "session-x")
        assert [c.base_url for c in router.candidates("session-x")] == preferred
        router.mark_down(preferred[0])
        assert [c.base_url for c in router.candidates("session-x")] == [
            *preferred[1:],
            preferred[0],
        ]
        router.mark_up(preferred[0])
        assert [c.base_url for c in router.candidates("session-x")] == preferred
    finally:
        await router.aclose()
