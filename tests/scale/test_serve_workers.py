"""`agentchat serve --workers N`: refused without PostgreSQL/MySQL and Redis; with them, N API
workers share one local bridge and one scripted model started by the parent."""

from __future__ import annotations

import subprocess
import uuid
from pathlib import Path

import httpx
import pytest

from tests.reliability.helpers import wait_for
from tests.scale.conftest import REDIS_URL, delete_keys
from tests.support.local_bridge import bridge_state, kill
from tests.support.serve_starter import ServeStarter
from tests.support.sse import read_events, until_terminal

START_TIMEOUT_S = 120.0
CLOSE = {"Connection": "close"}  # a request per connection: the kernel picks the worker


def _children(pid: int) -> list[str]:
    """Command lines of a process's direct children (Linux /proc)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            ppid = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            if ppid == pid:
                found.append((entry / "cmdline").read_bytes().replace(b"\0", b" ").decode())
        except (OSError, IndexError, ValueError):
            continue
    return found


@pytest.mark.parametrize(
    "args",
    [
        ["--redis-url", "redis://127.0.0.1:6379/0"],  # SQLite
        ["--database-url", "postgresql+psycopg://postgres@127.0.0.1:5432/test"],  # no Redis
    ],
    ids=["sqlite", "no-redis"],
)
def test_several_workers_are_refused_without_a_shared_database_and_redis(
    tmp_path: Path, served: ServeStarter, args: list[str]
) -> None:
    process = served.spawn(tmp_path, "--data-dir", str(tmp_path), "--workers", "2", *args)
    assert process.wait_exit(timeout=30) == 2
    assert "--workers > 1 needs" in process.log()


@pytest.fixture
def server(served: ServeStarter, tmp_path: Path) -> tuple[str, subprocess.Popen[bytes]]:
    """`serve --workers 2` on a schema and Redis prefix of its own, with its local stack."""
    database_url = served.fresh_database("postgresql", tmp_path, "workers", migrate=True)
    prefix = f"agentchat-test:{uuid.uuid4().hex}:"
    served.after(lambda: delete_keys(prefix))
    process = served.start(
        tmp_path,
        *("--data-dir", str(tmp_path), "--workers", "2"),
        *("--database-url", database_url, "--redis-url", REDIS_URL),
        env={
            "AGENTCHAT_START_BRIDGE": "true",
            "AGENTCHAT_REDIS_PREFIX": prefix,
            "AGENTCHAT_BRIDGE_PING_S": "0.5",  # the parent and the workers see a restart sooner
        },
        timeout=START_TIMEOUT_S,
    )
    return process.url, process.process


def test_serve_with_workers_starts_one_bridge_and_runs_answer(
    server: tuple[str, subprocess.Popen[bytes]],
) -> None:
    url, process = server
    children = _children(process.pid)
    assert sum(" bridge " in c for c in children) == 1, children
    assert sum("spawn_main" in c for c in children) == 2, children  # the two workers
    with httpx.Client(base_url=url, timeout=30) as http:
        models = http.get("/api/models").json()
        assert sum(m["isDefault"] for m in models) == 1
        for _ in range(4):  # several connections: both workers answer from the same stack
            session_id = http.post("/api/chat/sessions", json={}).json()["sessionId"]
            body = {"message": "#say hello from a worker"}
            started = http.post(f"/api/chat/sessions/{session_id}/runs", json=body)
            assert started.status_code == 201, started.text
            run_id = started.json()["runId"]
            events = read_events(f"{url}/api/chat/runs/{run_id}/stream", stop=until_terminal)
            assert events[-1].data["finalText"] == "hello from a worker"


def _all_workers_healthy(url: str) -> bool:
    """Ten health checks in a row say ok, each on a connection of its own (a kept-alive one
    stays with one worker; new ones are spread over both by the kernel)."""
    return all(
        httpx.get(f"{url}/api/health", timeout=10, headers=CLOSE).json()["status"] == "ok"
        for _ in range(10)
    )


def test_workers_follow_the_bridge_when_the_parent_restarts_it(
    server: tuple[str, subprocess.Popen[bytes]], tmp_path: Path
) -> None:
    """The parent restarts a dead bridge (at its socket in the data folder, with a new pid);
    the workers follow the state file and answer again on both workers."""
    url, _process = server
    state = bridge_state(tmp_path)
    assert state is not None and state["url"].startswith("http+unix://"), state
    kill(int(state["pid"]))
    wait_for(
        lambda: bridge_state(tmp_path),
        lambda now: now is not None and now["pid"] != state["pid"],
        timeout=START_TIMEOUT_S,
        what="the parent to start the bridge again",
    )
    wait_for(lambda: _all_workers_healthy(url), bool, timeout=60, what="every worker ok")
    with httpx.Client(base_url=url, timeout=30, headers=CLOSE) as http:
        for n in range(4):  # a connection each: both workers
            session_id = http.post("/api/chat/sessions", json={}).json()["sessionId"]
            body = {"message": f"#say after the restart {n}"}
            started = http.post(f"/api/chat/sessions/{session_id}/runs", json=body)
            assert started.status_code == 201, started.text
            run_id = started.json()["runId"]
            events = read_events(f"{url}/api/chat/runs/{run_id}/stream", stop=until_terminal)
            assert events[-1].data.get("finalText") == f"after the restart {n}", events[-1]
