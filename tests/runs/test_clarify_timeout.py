"""A question nobody answers before the bridge's clarify timeout: the agent goes on with its
default answer, and the API must stop showing the question as waiting (it did, for ever:
the list's badge, the page's answer box, and a late answer failed with a bridge error)."""

from __future__ import annotations

from tests.support.api_stack import Stack
from tests.support.own_bridge import own_bridge
from tests.support.sse import Sse

bridge = own_bridge(AGENTCHAT_BRIDGE_CLARIFY_TIMEOUT_S="2")


def _asked(events: list[Sse]) -> bool:
    return any(e.data.get("kind") == "clarify_request" for e in events)


def test_a_question_that_timed_out_is_no_longer_waiting(stack: Stack) -> None:
    session_id = stack.new_session()
    started = stack.start(session_id, "#clarify Which colour?|red|blue\n#hold late\n#say went on")
    run_id = started["runId"]
    events = stack.events(
        run_id, stop=lambda ev: any(e.data.get("kind") == "clarify_answered" for e in ev)
    )
    (asked,) = [e for e in events if e.data.get("kind") == "clarify_request"]
    (timed_out,) = [e for e in events if e.data.get("kind") == "clarify_answered"]
    assert timed_out.data["meta"]["timedOut"] is True

    state = stack.get(f"/api/chat/runs/{run_id}/state")
    assert state["status"] == "RUNNING" and state["pendingClarify"] is None
    listed = stack.get("/api/chat/sessions")["items"]
    assert [c.get("hasPendingClarify") for c in listed if c["id"] == session_id] == [False]
    late = {"clarifyId": asked.data["meta"]["clarifyId"], "answer": "red"}
    refused = stack.http.post(f"/api/chat/runs/{run_id}/clarify", json=late)
    assert refused.status_code == 409, refused.text
    assert refused.json()["error"]["code"] == "stale_clarify"
    stack.post(f"/api/chat/runs/{run_id}/stop", expect=200)
