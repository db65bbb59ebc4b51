"""A turn end to end: events in order on the stream, the same lines in the database."""

from __future__ import annotations

import json
import threading

from sqlalchemy import select

from agentchat.chat.tables import ChatMessageLog
from tests.support.api_stack import Stack
from tests.support.sse import Sse, read_events

SCRIPT = "#think planning the answer\n#todo write; check\n#tool skills_list {}\n#say all done"


def _kinds(events: list[Sse]) -> list[str]:
    return [e.data.get("kind", e.event) for e in events]


def test_every_event_kind_arrives_in_order_and_is_stored(stack: Stack) -> None:
    session_id = stack.new_session()
    started, events = stack.ask(session_id, SCRIPT)

    assert [e.num for e in events] == list(range(1, len(events) + 1))
    kinds = _kinds(events)
    assert kinds[-1] == "workflow_complete"
    for kind in ("thinking", "status", "tool_call", "tool_result", "todo_update", "answer_delta"):
        assert kind in kinds, kinds
    assert kinds.index("thinking") < kinds.index("todo_update") < kinds.index("answer_delta")
    todo = json.loads(
        next(e for e in events if e.data.get("kind") == "todo_update").data["content"]
    )
    assert [t["content"] for t in todo] == ["write", "check"]
    assert events[-1].data["finalText"] == "all done"
    assert events[-1].data["messageId"] == started["messageId"]

    with stack.database.session() as db:
        rows = db.scalars(
            select(ChatMessageLog)
            .where(ChatMessageLog.message_id == started["messageId"])
            .order_by(ChatMessageLog.seq)
        ).all()
    logged = [e for e in events if e.event == "node_stream" and e.data["kind"] != "answer_delta"]
    assert [(r.seq, r.kind, r.content) for r in rows] == [
        (i, e.data["kind"], e.data["content"]) for i, e in enumerate(logged)
    ]

    detail = stack.get(f"/api/chat/sessions/{session_id}")
    user, answer = detail["messages"]
    assert user["role"] == "USER" and answer["status"] == "SUCCESS"
    assert answer["content"] == "all done"
    assert [log["kind"] for log in answer["logs"]] == [e.data["kind"] for e in logged]
    assert detail["session"]["title"] == "#think planning the answer…"
    assert detail["session"]["hasActiveRun"] is False


def test_reconnect_with_last_event_id_has_no_gap_and_no_duplicate(stack: Stack) -> None:
    session_id = stack.new_session()
    started = stack.start(session_id, "#delay 20\n#tokens 40")
    run_id = started["runId"]
    first = stack.events(run_id, stop=lambda ev: len(ev) >= 7)
    assert [e.num for e in first] == list(range(1, 8))
    rest = stack.events(run_id, last=7)
    assert rest[0].num == 8 and rest[-1].event == "workflow_complete"
    assert [e.num for e in rest] == list(range(8, 8 + len(rest)))
    # after the end: a late client replays exactly the same tail, by header or by query
    again = stack.events(run_id, last=7)
    assert [(e.num, e.event, e.data) for e in again] == [(e.num, e.event, e.data) for e in rest]
    by_query = read_events(f"{stack.url}/api/chat/runs/{run_id}/stream?lastEventId=30")
    assert [e.num for e in by_query] == [e.num for e in rest if e.num > 30]
    tokens = "".join(
        e.data["content"] for e in first + rest if e.data.get("kind") == "answer_delta"
    )
    assert tokens.split() == [f"t{i}" for i in range(1, 41)]


def test_clarify_is_answered_after_a_reconnect(stack: Stack) -> None:
    session_id = stack.new_session()
    started = stack.start(session_id, "#clarify Which colour? | red | blue\n#echo-tool-result")
    run_id = started["runId"]

    def asked(events: list[Sse]) -> bool:
        return any(e.data.get("kind") == "clarify_request" for e in events)

    seen = stack.events(run_id, stop=asked)
    request = next(e for e in seen if e.data.get("kind") == "clarify_request")
    state = stack.get(f"/api/chat/runs/{run_id}/state")
    assert state["status"] == "RUNNING"
    assert state["pendingClarify"]["question"] == "Which colour?"
    assert state["pendingClarify"]["choices"] == ["red", "blue"]
    sessions = stack.get("/api/chat/sessions")["items"]
    assert sessions[0]["hasPendingClarify"] is True

    clarify_id = request.data["meta"]["clarifyId"]
    wrong = stack.http.post(
        f"/api/chat/runs/{run_id}/clarify", json={"clarifyId": "nope", "answer": "x"}
    )
    assert wrong.status_code == 409
    stack.post(
        f"/api/chat/runs/{run_id}/clarify", {"clarifyId": clarify_id, "answer": "blue"}, expect=200
    )
    rest = stack.events(run_id, last=seen[-1].num)
    assert rest[0].num == seen[-1].num + 1
    assert any(e.data.get("kind") == "clarify_answered" for e in rest)
    assert rest[-1].event == "workflow_complete"
    assert "blue" in rest[-1].data["finalText"]
    stale = stack.http.post(
        f"/api/chat/runs/{run_id}/clarify", json={"clarifyId": clarify_id, "answer": "red"}
    )
    assert stale.status_code == 409
    assert stack.get(f"/api/chat/runs/{run_id}/state")["pendingClarify"] is None


def test_stop_ends_the_answer_as_stopped_and_keeps_the_partial_text(stack: Stack) -> None:
    session_id = stack.new_session()
    started = stack.start(session_id, "#delay 50\n#tokens 400")
    run_id = started["runId"]
    stack.events(run_id, stop=lambda ev: sum(e.data.get("kind") == "answer_delta" for e in ev) >= 5)
    state = stack.post(f"/api/chat/runs/{run_id}/stop", expect=200)
    assert state["status"] == "STOPPED"
    events = stack.events(run_id)
    assert events[-1].event == "workflow_error" and events[-1].data["stopped"] is True
    detail = stack.get(f"/api/chat/sessions/{session_id}")
    answer = detail["messages"][-1]
    assert answer["status"] == "STOPPED"
    assert answer["content"].startswith("t1 t2 t3")
    assert stack.http.post(f"/api/chat/runs/{run_id}/stop").status_code == 409
    # the session takes a new run at once
    _, more = stack.ask(session_id, "#say again")
    assert more[-1].data["finalText"] == "again"


def test_three_sessions_stream_at_once_without_cross_talk(stack: Stack) -> None:
    sessions = [stack.new_session() for _ in range(3)]
    runs = [stack.start(s, f"#delay 10\n#say answer-{i}") for i, s in enumerate(sessions)]
    listing = stack.get("/api/chat/sessions")["items"]
    assert sum(s["hasActiveRun"] for s in listing) >= 1
    results: dict[int, list[Sse]] = {}

    def follow(i: int) -> None:
        results[i] = stack.events(runs[i]["runId"])

    threads = [threading.Thread(target=follow, args=(i,)) for i in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=90)
    for i in range(3):
        assert results[i][-1].data["finalText"] == f"answer-{i}"
        assert {e.data["runId"] for e in results[i]} == {runs[i]["runId"]}


def test_multiplexed_stream_carries_several_runs(stack: Stack) -> None:
    a, b = stack.new_session(), stack.new_session()
    run_a = stack.start(a, "#delay 5\n#say from a")["runId"]
    run_b = stack.start(b, "#delay 5\n#say from b")["runId"]
    url = f"{stack.url}/api/chat/stream?runs={run_a},{run_b}&lastEventIds=0,0"
    events = read_events(url)
    ends = {e.data["runId"]: e for e in events if e.event == "workflow_complete"}
    assert ends[run_a].data["finalText"] == "from a"
    assert ends[run_b].data["finalText"] == "from b"
    for run_id in (run_a, run_b):
        nums = [e.num for e in events if e.id and e.id.startswith(run_id)]
        assert nums == list(range(1, len(nums) + 1))
    unknown = read_events(f"{stack.url}/api/chat/stream?runs=nope")
    assert [e.event for e in unknown] == ["run_unknown"]
