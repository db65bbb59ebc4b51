"""Finding 4: a run whose final write fails still reaches a terminal state in the database.

The database refuses the end of the run (a trigger aborts any update of the answer's status,
as a full disk would), then accepts writes again: the session must not stay at 409, stop must
answer at once and not with RUNNING, and the run must not count against the server's cap."""

from __future__ import annotations

import sqlite3
import time
from pathlib import Path

import httpx

from tests.reliability.api_process import start_api
from tests.reliability.helpers import wait_for
from tests.support.servers import BridgeProcess
from tests.support.sse import read_events, until_terminal

REFUSE = """CREATE TRIGGER refuse_end BEFORE UPDATE OF status ON chat_message
WHEN NEW.status != 'RUNNING' BEGIN SELECT RAISE(ABORT, 'database or disk is full'); END"""


def _sql(db_file: Path, statement: str) -> None:
    conn = sqlite3.connect(db_file, timeout=10)
    try:
        conn.execute(statement)
        conn.commit()
    finally:
        conn.close()


def _held_by(bridge: BridgeProcess) -> list[str]:
    headers = {"Authorization": f"Bearer {bridge.secret}"}
    runs = httpx.get(f"{bridge.url}/runs", headers=headers, timeout=10)
    assert runs.status_code == 200, runs.text
    return [r["runId"] for r in runs.json()]


def test_a_run_whose_final_write_fails_is_settled(tmp_path: Path, bridge: BridgeProcess) -> None:
    data_dir = tmp_path / "data"
    api = start_api(data_dir, bridge, extra_env={"AGENTCHAT_MAX_ACTIVE_RUNS": "1"})
    db_file = data_dir / "agentchat.db"
    try:
        with httpx.Client(base_url=api.url, timeout=30) as http:
            session_id = http.post("/api/chat/sessions", json={}).json()["sessionId"]
            _sql(db_file, REFUSE)
            run = http.post(
                f"/api/chat/sessions/{session_id}/runs", json={"message": "#say the end"}
            )
            assert run.status_code == 201, run.text
            run_id = run.json()["runId"]
            events = read_events(f"{api.url}/api/chat/runs/{run_id}/stream", stop=until_terminal)
            assert events[-1].event in {"workflow_complete", "workflow_error"}

            began = time.monotonic()
            stopped = http.post(f"/api/chat/runs/{run_id}/stop")
            assert time.monotonic() - began < 2.0
            assert stopped.status_code in (200, 409), stopped.text
            if stopped.status_code == 200:
                assert stopped.json()["status"] != "RUNNING"

            _sql(db_file, "DROP TRIGGER refuse_end")  # the disk has room again
            state = wait_for(
                lambda: http.get(f"/api/chat/runs/{run_id}/state").json(),
                lambda s: s["status"] != "RUNNING",
                timeout=15,
                what="the sweeper to settle the run",
            )
            assert state["status"] == "SUCCESS", state
            detail = http.get(f"/api/chat/sessions/{session_id}").json()
            assert detail["messages"][-1]["content"] == "the end"
            # Stored by the sweeper: the bridge is told it need not keep the run for a replay.
            wait_for(
                lambda: _held_by(bridge),
                lambda held: run_id not in held,
                timeout=10,
                what="the bridge to let the settled run go",
            )

            other = http.post("/api/chat/sessions", json={}).json()["sessionId"]
            again = http.post(f"/api/chat/sessions/{other}/runs", json={"message": "#say next"})
            assert again.status_code == 201, again.text  # the cap of 1 is free
            read_events(
                f"{api.url}/api/chat/runs/{again.json()['runId']}/stream", stop=until_terminal
            )
            assert http.delete(f"/api/chat/sessions/{session_id}").status_code == 204
    finally:
        api.stop()
