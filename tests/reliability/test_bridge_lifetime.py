"""Issue 14, finding 3: the local bridge's lifetime. It outlives its API (a restarted `serve`
re-uses it), is alone on its hermes home, exits when no API comes back, and is restarted by the
API that supervises it, with health `degraded` and runs refused meanwhile.

Real `agentchat serve` processes and real signals; every process a test starts is ended by it
(the bridge is detached from `serve` on purpose: it is found by its state file and /proc)."""

from __future__ import annotations

import contextlib
import errno
import os
import signal
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

import httpx
import pytest

from tests.reliability.helpers import wait_for
from tests.support.local_bridge import (
    alive,
    as_nobody,
    bridge_state,
    bridges_on,
    kill,
    stop_local_bridges,
    tcp_listeners,
    wait_gone,
)
from tests.support.serve_process import Served, spawn_serve
from tests.support.servers import BridgeProcess, start_bridge
from tests.support.sse import read_events, until_terminal

pytestmark = pytest.mark.timeout(400)
START_TIMEOUT_S = 180.0
PING_S = "0.5"  # the supervisor's checks: a dead or frozen bridge is seen sooner (default 2 s)
BRIDGE = [
    sys.executable,
    "-m",
    "agentchat.cli",
    "bridge",
]  # the bridge imports hermes-agent: slow on a loaded machine


class Serves:
    """`agentchat serve` processes on one data folder with a local bridge; all ended after."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.data_dir = root / "data"
        self.home = self.data_dir / "hermes-home"
        self.started: list[Served] = []

    def spawn(self, **env: str) -> Served:
        served = spawn_serve(
            self.root / "logs",
            *("--data-dir", str(self.data_dir)),
            env={"AGENTCHAT_START_BRIDGE": "true", "AGENTCHAT_BRIDGE_PING_S": PING_S, **env},
        )
        self.started.append(served)
        return served

    def start(self, **env: str) -> Served:
        served = self.spawn(**env)
        served.wait_healthy(START_TIMEOUT_S)
        return served

    def bridge_pid(self) -> int:
        """The one bridge on this data folder's hermes home."""
        pids = bridges_on(self.home)
        assert len(pids) == 1, pids
        return pids[0]

    def close(self) -> None:
        for served in self.started:
            served.stop()
        stop_local_bridges(self.data_dir, self.home)


@pytest.fixture
def serves(tmp_path: Path) -> Iterator[Serves]:
    value = Serves(tmp_path)
    yield value
    value.close()


def _health(served: Served) -> dict[str, Any]:
    response = httpx.get(f"{served.url}/api/health", timeout=5)
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    return body


def _ask(http: httpx.Client, served: Served, session_id: int, message: str) -> list[Any]:
    started = http.post(f"/api/chat/sessions/{session_id}/runs", json={"message": message})
    assert started.status_code == 201, started.text
    run_id = started.json()["runId"]
    return read_events(f"{served.url}/api/chat/runs/{run_id}/stream", stop=until_terminal)


def _waiting_question(http: httpx.Client, message: str) -> tuple[int, str, str]:
    """A new chat whose run asks a question: (session id, run id, clarify id) once it waits."""
    session_id = http.post("/api/chat/sessions", json={}).json()["sessionId"]
    body = {"message": message}
    run_id = http.post(f"/api/chat/sessions/{session_id}/runs", json=body).json()["runId"]
    waiting = wait_for(
        lambda: http.get(f"/api/chat/runs/{run_id}/state").json(),
        lambda state: state["pendingClarify"] is not None,
        timeout=60,
        what="the question",
    )
    return session_id, run_id, waiting["pendingClarify"]["clarifyId"]


def _messages(http: httpx.Client, session_id: int) -> list[dict[str, Any]]:
    messages: list[dict[str, Any]] = http.get(f"/api/chat/sessions/{session_id}").json()["messages"]
    return messages


def test_a_killed_bridge_is_restarted_and_runs_are_refused_meanwhile(serves: Serves) -> None:
    served = serves.start()
    first = serves.bridge_pid()
    assert _health(served)["status"] == "ok"
    with httpx.Client(base_url=served.url, timeout=30) as http:
        session_id = http.post("/api/chat/sessions", json={}).json()["sessionId"]
        assert _ask(http, served, session_id, "#say before")[-1].event == "workflow_complete"
        before = _messages(http, session_id)
        kill(first)

        degraded = wait_for(
            lambda: _health(served),
            lambda body: body["status"] == "degraded",
            timeout=15,
            what="health to say degraded",
        )
        assert "Hermes Bridge" in degraded["reason"], degraded
        refused = http.post(f"/api/chat/sessions/{session_id}/runs", json={"message": "#say x"})
        assert refused.status_code == 503, refused.text
        assert refused.json()["error"]["code"] == "bridge_unavailable"
        assert refused.json()["error"]["message"]
        again = http.post(f"/api/chat/messages/{before[-1]['id']}/regenerate")
        assert again.status_code == 503, again.text
        assert again.json()["error"]["code"] == "bridge_unavailable"
        assert _messages(http, session_id) == before  # no row for the refused runs

        wait_for(
            lambda: _health(served)["status"],
            lambda status: status == "ok",
            timeout=START_TIMEOUT_S,
            what="the bridge to be back",
        )
        second = serves.bridge_pid()
        assert second != first
        state = bridge_state(serves.data_dir)
        assert state is not None and state["pid"] == second
        events = _ask(http, served, session_id, "#say back again")
        assert events[-1].event == "workflow_complete", events[-1]
        assert events[-1].data["finalText"] == "back again"


@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGTERM], ids=["kill", "term"])
def test_a_restarted_api_reuses_the_bridge_its_predecessor_left(
    serves: Serves, sig: signal.Signals
) -> None:
    served = serves.start()
    pid = serves.bridge_pid()
    served.process.send_signal(sig)
    served.process.wait(timeout=60)
    assert alive(pid), "the bridge died with its API"

    again = serves.start()
    assert bridges_on(serves.home) == [pid]
    state_file = serves.data_dir / "bridge.json"
    state = bridge_state(serves.data_dir)
    assert state is not None and state["pid"] == pid, state
    assert state_file.stat().st_mode & 0o777 == 0o600
    assert state["url"].startswith("http+unix://") and len(state["secret"]) >= 16
    assert _health(again)["status"] == "ok"
    with httpx.Client(base_url=again.url, timeout=30) as http:
        session_id = http.post("/api/chat/sessions", json={}).json()["sessionId"]
        events = _ask(http, again, session_id, "#say same bridge")
        assert events[-1].event == "workflow_complete", events[-1]


def test_two_serves_started_together_share_one_bridge(serves: Serves) -> None:
    pair = [serves.spawn() for _ in range(2)]
    for served in pair:
        served.wait_healthy(START_TIMEOUT_S)
    pid = serves.bridge_pid()
    for served in pair:
        assert _health(served)["status"] == "ok"
    state = bridge_state(serves.data_dir)
    assert state is not None and state["pid"] == pid


def test_a_second_bridge_on_one_hermes_home_exits_with_code_3(tmp_path: Path) -> None:
    first: BridgeProcess = start_bridge(tmp_path)
    try:
        env = {**os.environ, "AGENTCHAT_SKILLS_DIR": str(tmp_path / "skills")}
        env["AGENTCHAT_BRIDGE_SECRET"] = first.secret or ""
        second = subprocess.run(
            [*BRIDGE, "--port", "0", "--hermes-home", str(first.home)],
            env=env,
            capture_output=True,
            timeout=60,
        )
        assert second.returncode == 3, second.stderr.decode()
        lines = second.stderr.decode().strip().splitlines()
        assert lines == [
            f"agentchat bridge: hermes home {first.home.resolve()} is already served by the "
            f"bridge with pid {first.process.pid}"
        ]
        assert first.process.poll() is None
    finally:
        first.stop()


def test_a_bridge_whose_api_never_comes_back_exits_by_itself(serves: Serves) -> None:
    orphan_s = 4.0
    served = serves.start(AGENTCHAT_BRIDGE_ORPHAN_S=str(orphan_s))
    pid = serves.bridge_pid()
    served.process.send_signal(signal.SIGKILL)
    served.process.wait(timeout=10)
    assert wait_gone(pid, orphan_s + 20), "the orphaned bridge is still running"
    assert "no API for" in (serves.home / "logs" / "bridge.log").read_text()
    assert (serves.home / "config.yaml").is_file()  # nothing the next API needs is removed


def test_no_other_user_can_reach_the_local_bridge_or_take_its_place(serves: Serves) -> None:
    """The attack reported: a local user bound the loopback port of a restarted bridge and
    received the bridge secret in each ping, then a run with the decrypted model key. The local
    bridge now listens on a Unix socket in the private data folder and on no TCP port."""
    served = serves.start()
    state = bridge_state(serves.data_dir)
    assert state is not None and state["url"].startswith("http+unix://"), state
    path = unquote(urlsplit(state["url"]).netloc)
    assert Path(path).parent == serves.data_dir.resolve()
    assert tcp_listeners(serves.bridge_pid()) == []
    assert as_nobody(lambda: _connect(path)) == errno.EACCES

    os.kill(served.process.pid, signal.SIGSTOP)  # no restart while the place is free
    try:
        kill(state["pid"])
        assert as_nobody(lambda: _listen(path)) == errno.EACCES
    finally:
        os.kill(served.process.pid, signal.SIGCONT)
    again = wait_for(
        lambda: bridge_state(serves.data_dir),
        lambda now: now is not None and now["pid"] != state["pid"],
        timeout=START_TIMEOUT_S,
        what="the supervisor to start the bridge again",
    )
    assert again["url"] == state["url"]
    wait_for(lambda: _health(served)["status"], lambda s: s == "ok", timeout=30)
    with httpx.Client(base_url=served.url, timeout=30) as http:
        session_id = http.post("/api/chat/sessions", json={}).json()["sessionId"]
        events = _ask(http, served, session_id, "#say at the same socket")
        assert events[-1].event == "workflow_complete", events[-1]


def _connect(path: str) -> None:
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
        sock.connect(path)


def _listen(path: str) -> None:
    with contextlib.suppress(FileNotFoundError):
        os.unlink(path)
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
        sock.bind(path)


def test_a_bridge_that_stops_answering_is_replaced(serves: Serves) -> None:
    served = serves.start()
    frozen = serves.bridge_pid()
    os.kill(frozen, signal.SIGSTOP)  # alive, port open, but no answer to the pings
    try:
        degraded = wait_for(
            lambda: _health(served),
            lambda body: body["status"] == "degraded",
            timeout=60,
            what="health to notice the bridge does not answer",
        )
        assert "did not answer 3 health checks" in degraded["reason"], degraded
        wait_for(lambda: _health(served)["status"], lambda s: s == "ok", timeout=START_TIMEOUT_S)
        assert not alive(frozen)
        assert serves.bridge_pid() != frozen
    finally:
        if alive(frozen):
            os.kill(frozen, signal.SIGKILL)


@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGTERM], ids=["kill", "term"])
def test_a_question_waiting_on_the_demo_model_is_answered_after_a_restart(
    serves: Serves, sig: signal.Signals
) -> None:
    """The default install: the demo model runs in `serve`, the bridge outlives it. After the
    restart the agent asks the demo model again at the URL its turn was given: the new
    `serve` must answer there (it got a new port, and the turn failed to reach it)."""
    served = serves.start(AGENTCHAT_SHUTDOWN_GRACE_S="1")
    with httpx.Client(base_url=served.url, timeout=30) as http:
        _, run_id, clarify_id = _waiting_question(http, "#clarify Which?|a|b\n#say you chose well")
    served.process.send_signal(sig)
    served.process.wait(timeout=60)
    again = serves.start()
    with httpx.Client(base_url=again.url, timeout=30) as http:
        answer = {"clarifyId": clarify_id, "answer": "a"}
        assert http.post(f"/api/chat/runs/{run_id}/clarify", json=answer).status_code == 200
        ended = wait_for(
            lambda: http.get(f"/api/chat/runs/{run_id}/state").json(),
            lambda state: state["status"] != "RUNNING",
            timeout=90,
            what="the run to end",
        )
    assert (ended["status"], ended["finalText"]) == ("SUCCESS", "you chose well"), ended


def test_two_serves_on_one_data_folder_do_not_both_drive_a_run(serves: Serves) -> None:
    """Without Redis each process took every RUNNING answer it did not drive itself for an
    orphan and re-attached it: two drivers, and every log line stored twice. The process that
    drives a run now holds a lock on it in the data folder, which the other respects."""
    first = serves.start()
    with httpx.Client(base_url=first.url, timeout=30) as http:
        ask = "#think pondering\n#clarify Which?|x|y\n#say chose"
        session_id, run_id, clarify_id = _waiting_question(http, ask)
        serves.start()  # healthy once its start-up sweep has looked at every RUNNING answer
        answer = {"clarifyId": clarify_id, "answer": "x"}
        assert http.post(f"/api/chat/runs/{run_id}/clarify", json=answer).status_code == 200
        wait_for(
            lambda: http.get(f"/api/chat/runs/{run_id}/state").json()["status"],
            lambda status: status == "SUCCESS",
            timeout=60,
            what="the run to end",
        )
        logs = http.get(f"/api/chat/sessions/{session_id}").json()["messages"][-1]["logs"]
    seqs = [line["seq"] for line in logs]
    assert seqs == sorted(set(seqs)), seqs  # each line once
    assert [line["kind"] for line in logs].count("clarify_answered") == 1
