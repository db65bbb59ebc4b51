"""A worker of `serve --workers` follows the local bridge its parent supervises. A bridge too
busy to answer one health check is not taken for a dead one: the parent restarts a bridge only
after MISSED_PINGS missed checks, so a worker refusing runs at the first one turned questions
away on a busy machine (seen in tests/scale/test_serve_workers.py under load)."""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
import threading
from collections.abc import Iterator
from dataclasses import replace
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from agentchat.local_stack import bridge as local_bridge
from agentchat.local_stack.state import BridgeState, write_state
from agentchat.local_stack.supervisor import MISSED_PINGS, BridgeFollower
from agentchat.runtime import BridgeStatus

SECRET = "s" * 32


class FakeBridgeHealth:
    """A real HTTP server answering /health as a bridge does, or keeping the caller waiting."""

    def __init__(self) -> None:
        self.stalled = threading.Event()
        self.release = threading.Event()
        owner = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                if owner.stalled.is_set():
                    owner.release.wait(10)
                body = json.dumps({"status": "ok", "pid": os.getpid()}).encode()
                with contextlib.suppress(OSError):  # the caller gave up waiting
                    self.send_response(200)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(body)))
                    self.end_headers()
                    self.wfile.write(body)

            def log_message(self, *args: object) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.release.set()
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def health(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeBridgeHealth]:
    monkeypatch.setattr(local_bridge, "PING_TIMEOUT_S", 0.3)
    fake = FakeBridgeHealth()
    yield fake
    fake.close()


def follower_of(tmp_path: Path, state: BridgeState) -> tuple[BridgeFollower, BridgeStatus]:
    write_state(tmp_path, state)
    status = BridgeStatus()
    return BridgeFollower(tmp_path, state.url, state.secret, status), status


def state_for(url: str, pid: int) -> BridgeState:
    return BridgeState(url, pid, SECRET, "/tmp/home", "2026-01-01T00:00:00+00:00", "cfg")


def test_a_bridge_too_busy_for_one_check_still_takes_runs(
    tmp_path: Path, health: FakeBridgeHealth
) -> None:
    follower, status = follower_of(tmp_path, state_for(health.url, os.getpid()))
    follower.check()
    assert status.run_refusal() is None
    health.stalled.set()
    for _ in range(MISSED_PINGS - 1):
        follower.check()
        assert status.run_refusal() is None  # busy, as the parent sees it too
    follower.check()  # the parent restarts it now: runs wait for the new one
    assert status.run_refusal() is not None
    health.stalled.clear()
    health.release.set()
    follower.check()
    assert status.run_refusal() is None


def test_a_dead_bridge_refuses_runs_at_the_first_check(
    tmp_path: Path, health: FakeBridgeHealth
) -> None:
    gone = subprocess.Popen([sys.executable, "-c", "pass"])
    gone.wait()
    follower, status = follower_of(tmp_path, state_for(health.url, gone.pid))
    follower.check()
    assert status.run_refusal() is not None


def test_a_bridge_missing_from_the_state_file_refuses_runs_at_once(
    tmp_path: Path, health: FakeBridgeHealth
) -> None:
    follower, status = follower_of(tmp_path, state_for(health.url, os.getpid()))
    follower.check()
    (tmp_path / "bridge.json").unlink()
    follower.check()
    assert status.run_refusal() is not None
    write_state(tmp_path, replace(state_for(health.url, os.getpid())))
    follower.check()
    assert status.run_refusal() is None
