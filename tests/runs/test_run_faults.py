"""Nothing left hanging: a dead bridge, a restart, a failing model."""

from __future__ import annotations

import time
import uuid
from pathlib import Path

from agentchat.chat.tables import ChatMessage, ChatSession
from agentchat.core.database import Database
from agentchat.runs.store import LOST_ERROR
from tests.support.api_stack import Stack, make_stack
from tests.support.servers import BridgeProcess, start_bridge


def test_a_killed_bridge_fails_the_run_within_seconds(
    tmp_path: Path, database: Database, scripted_url: str
) -> None:
    bridge = start_bridge(tmp_path / "own-bridge")
    stack, close = make_stack(tmp_path, database, bridge, scripted_url)
    try:
        session_id = stack.new_session()
        run_id = stack.start(session_id, "#delay 100\n#tokens 500")["runId"]
        stack.events(run_id, stop=lambda ev: len(ev) >= 3)
        killed_at = time.monotonic()
        bridge.kill()
        events = stack.events(run_id, timeout=30)
        assert events[-1].event == "workflow_error"
        assert "unavailable" in events[-1].data["message"].lower()
        assert time.monotonic() - killed_at < 5
        answer = stack.get(f"/api/chat/sessions/{session_id}")["messages"][-1]
        assert answer["status"] == "FAILED" and answer["error"]
    finally:
        close()
        bridge.stop()


def test_a_failing_model_ends_the_run_failed(stack: Stack) -> None:
    session_id = stack.new_session()
    _, events = stack.ask(session_id, "#fail 500")
    assert events[-1].event == "workflow_error"
    answer = stack.get(f"/api/chat/sessions/{session_id}")["messages"][-1]
    assert answer["status"] == "FAILED" and answer["error"]


def test_restart_marks_answers_no_bridge_holds_interrupted(
    tmp_path: Path, database: Database, bridge: BridgeProcess, scripted_url: str
) -> None:
    with database.session() as db:
        chat = ChatSession(session_uuid=str(uuid.uuid4()), hermes_session="chat-x")
        db.add(chat)
        db.flush()
        db.add(
            ChatMessage(
                session_id=chat.id,
                role="ASSISTANT",
                content="",
                status="RUNNING",
                run_id="crashed-run",
            )
        )
    stack, close = make_stack(tmp_path, database, bridge, scripted_url)
    try:
        state = stack.get("/api/chat/runs/crashed-run/state")
        assert state["status"] == "INTERRUPTED" and state["error"] == LOST_ERROR
        events = stack.events("crashed-run")
        assert [e.event for e in events] == ["workflow_error"]
    finally:
        close()
