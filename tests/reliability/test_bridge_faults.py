"""Promise 1: a bridge that dies mid-run fails the run fast, and nothing saved is lost."""

from __future__ import annotations

import time
from pathlib import Path
from urllib.parse import urlsplit

from agentchat.core.database import Database
from tests.reliability.helpers import answers, log_kinds, wait_for
from tests.support.api_stack import make_stack
from tests.support.servers import start_bridge

FIRST = "#think planning the first answer\n#todo read; write\n#say first answer"
LONG = "#think long one\n#todo one; two\n#delay 100\n#tokens 500"


def test_a_killed_bridge_fails_the_run_and_a_restarted_one_takes_new_runs(
    tmp_path: Path, database: Database, scripted_url: str
) -> None:
    bridge = start_bridge(tmp_path / "b1")
    stack, close = make_stack(tmp_path, database, bridge, scripted_url)
    revived = None
    try:
        session_id = stack.new_session()
        _, first_events = stack.ask(session_id, FIRST)
        assert first_events[-1].event == "workflow_complete"
        before = stack.get(f"/api/chat/sessions/{session_id}")["messages"]

        run_id = stack.start(session_id, LONG)["runId"]
        seen = stack.events(run_id, stop=lambda ev: ev[-1].data.get("kind") == "answer_delta")
        killed_at = time.monotonic()
        bridge.kill()
        events = stack.events(run_id, timeout=10)
        assert time.monotonic() - killed_at < 5
        assert events[-1].event == "workflow_error"
        assert "agent service is unavailable" in events[-1].data["message"]
        health = wait_for(
            lambda: stack.get("/api/health"),
            lambda body: body["status"] == "degraded",
            what="health to notice the configured bridge is gone",
        )
        assert health["reason"] == "the Hermes Bridge does not answer its health check"
        assert [e.num for e in events] == list(range(1, len(events) + 1))
        assert len(events) >= len(seen)

        detail = stack.get(f"/api/chat/sessions/{session_id}")
        assert not detail["session"]["hasActiveRun"]
        assert detail["messages"][: len(before)] == before, "saved messages changed"
        failed = answers(detail)[-1]
        assert failed["status"] == "FAILED" and "unavailable" in failed["error"]
        assert {"thinking", "todo_update"} <= set(log_kinds(failed)), failed["logs"]

        refused = stack.start(session_id, "#say while down")
        wait_for(
            lambda: stack.get(f"/api/chat/runs/{refused['runId']}/state")["status"],
            lambda status: status != "RUNNING",
            what="a run without any bridge to end",
        )

        port = urlsplit(bridge.url).port
        assert port is not None
        revived = start_bridge(tmp_path / "b2", port, secret=bridge.secret)
        wait_for(lambda: stack.get("/api/health")["status"], lambda s: s == "ok")
        _, again = stack.ask(session_id, "#say back again")
        assert again[-1].event == "workflow_complete", again[-1]
        # The failed turns stay on the branch, so the model may see their words too.
        assert again[-1].data["finalText"].endswith("back again")
        after = stack.get(f"/api/chat/sessions/{session_id}")["messages"]
        assert after[: len(before)] == before
        assert [m["status"] for m in answers({"messages": after})] == [
            "SUCCESS",
            "FAILED",
            "FAILED",
            "SUCCESS",
        ]
    finally:
        close()
        bridge.stop()
        if revived is not None:
            revived.stop()
