"""Several `agentchat serve` processes on one database each start their own scripted demo
model. The built-in model row is shared, so a process that wrote its own port there broke the
others when it stopped: the demo model must resolve to the live endpoint of the process that
runs the turn."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.reliability.helpers import answers, wait_for
from tests.support.databases import drop_database, fresh_database_url, worker_tag
from tests.support.serve_process import Served, spawn_serve
from tests.support.servers import BridgeProcess


@pytest.fixture
def shared_url(tmp_path: Path) -> Iterator[str]:
    tag = f"demo_{worker_tag()}_{uuid.uuid4().hex[:6]}"
    yield fresh_database_url("postgresql", tmp_path, tag=tag)
    drop_database("postgresql", tag)


def _serve(tmp: Path, name: str, url: str, bridge: BridgeProcess) -> Served:
    env = {"AGENTCHAT_START_BRIDGE": "false", "AGENTCHAT_BRIDGE_SECRET": bridge.secret}
    served = spawn_serve(
        tmp / name,
        *("--database-url", url, "--bridge-url", bridge.url, "--data-dir", str(tmp / name)),
        env={"AGENTCHAT_RUN_RATE_PER_MINUTE": "0", **env},
    )
    served.wait_healthy()
    return served


def _answer_status(http: httpx.Client, session_id: int) -> str:
    detail = http.get(f"/api/chat/sessions/{session_id}").json()
    found = answers(detail)
    return found[-1]["status"] if found else "NONE"


def test_a_stopped_process_does_not_take_the_demo_model_with_it(
    tmp_path: Path, shared_url: str, bridge: BridgeProcess
) -> None:
    first = _serve(tmp_path, "first", shared_url, bridge)
    second = None
    try:
        second = _serve(tmp_path, "second", shared_url, bridge)  # writes its own port last
        second.stop()
        with httpx.Client(base_url=first.url, timeout=30) as http:
            session_id = http.post("/api/chat/sessions", json={}).json()["sessionId"]
            started = http.post(f"/api/chat/sessions/{session_id}/runs", json={"message": "hi"})
            assert started.status_code == 201, started.text
            status = wait_for(
                lambda: _answer_status(http, session_id),
                lambda s: s not in {"NONE", "RUNNING"},
                timeout=60,
                what="the answer to end",
            )
        assert status == "SUCCESS"
    finally:
        first.stop()
        if second is not None:
            second.stop()
