"""A real turn (hermes-agent, the scripted model) with a long answer and a tool call, on SQLite:
its text, agent messages and log lines are stored deflated, and every reader gets back what
the stream showed."""

from __future__ import annotations

from sqlalchemy import text

from tests.support.api_stack import Stack

SCRIPT = (
    "Plan the week\n#todo buy vegetables for the soup;cook the soup;write the shopping list\n"
    "#tokens 400"
)


def test_a_long_answer_is_stored_deflated_and_read_back_as_streamed(stack: Stack) -> None:
    session_id = stack.new_session()
    started, events = stack.ask(session_id, SCRIPT)
    assert events[-1].event == "workflow_complete", events[-1].data
    deltas = [e.data["content"] for e in events if e.data.get("kind") == "answer_delta"]
    streamed = "".join(deltas).strip()  # the stored answer is stripped of its blank lines
    assert streamed.startswith("t1 t2 t3") and streamed.endswith(" t400")

    with stack.database.engine.connect() as conn:
        kind, agent_kind = conn.execute(
            text("SELECT typeof(content), typeof(agent_messages) FROM chat_message WHERE id = :id"),
            {"id": started["messageId"]},
        ).one()
        log_kinds = conn.execute(
            text("SELECT DISTINCT typeof(content) FROM chat_message_log WHERE kind = 'tool_result'")
        ).scalars()
        assert (kind, agent_kind) == ("blob", "blob") and set(log_kinds) == {"blob"}

    answer = stack.get(f"/api/chat/sessions/{session_id}")["messages"][-1]
    assert answer["content"] == streamed
    state = stack.get(f"/api/chat/runs/{started['runId']}/state")
    assert state["finalText"] == streamed
    (result,) = [line for line in state["logs"] if line["kind"] == "tool_result"]
    assert "write the shopping list" in result["content"]
    found = stack.get("/api/chat/sessions?q=t399")["items"]
    assert [c["id"] for c in found] == [session_id]
