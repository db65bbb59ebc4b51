"""The local bridge's pieces that need no process: back-off, the state file, the status."""

from __future__ import annotations

import json
import os
import stat
import tempfile
import threading
from pathlib import Path

import pytest

from agentchat.local_stack.backoff import Backoff
from agentchat.local_stack.processes import bridge_socket
from agentchat.local_stack.state import BridgeState, deciding, read_state, write_state
from agentchat.runtime import BridgeStatus

STATE = BridgeState(
    url="http://127.0.0.1:1234",
    pid=4321,
    secret="s" * 32,
    hermes_home="/tmp/home",
    started_at="2026-01-01T00:00:00+00:00",
    config="abc",
)


def test_backoff_doubles_to_the_cap_and_resets_after_a_healthy_minute() -> None:
    backoff = Backoff(first_s=0.5, cap_s=30.0, reset_after_s=60.0)
    assert [backoff.delay() for _ in range(8)] == [0.5, 1, 2, 4, 8, 16, 30, 30]
    backoff.healthy(100.0)
    backoff.healthy(130.0)
    assert backoff.delay() == 30  # half a minute is not enough
    backoff.healthy(200.0)
    backoff.healthy(260.0)
    assert backoff.delay() == 0.5


def test_the_state_file_is_private_and_read_back(tmp_path: Path) -> None:
    write_state(tmp_path, STATE)
    path = tmp_path / "bridge.json"
    assert path.stat().st_mode & 0o777 == 0o600
    assert read_state(tmp_path) == STATE
    assert json.loads(path.read_text())["pid"] == 4321
    assert [p.name for p in tmp_path.iterdir()] == ["bridge.json"]  # no temporary left


def test_a_missing_or_broken_state_file_reads_as_none(tmp_path: Path) -> None:
    assert read_state(tmp_path) is None
    (tmp_path / "bridge.json").write_text("{not json")
    assert read_state(tmp_path) is None
    (tmp_path / "bridge.json").write_text('{"url": "x"}')
    assert read_state(tmp_path) is None


def test_deciding_lets_one_process_at_a_time_in(tmp_path: Path) -> None:
    entered = threading.Event()
    with deciding(tmp_path):
        other = threading.Thread(target=lambda: _enter(tmp_path, entered))
        other.start()
        assert not entered.wait(0.3)  # flock is per open file: a second open waits
    assert entered.wait(5)
    other.join(5)


def _enter(data_dir: Path, entered: threading.Event) -> None:
    with deciding(data_dir):
        entered.set()


def test_the_status_refuses_runs_only_while_a_restart_is_under_way() -> None:
    status = BridgeStatus()
    assert status.reason is None and status.run_refusal() is None
    status.down("none answers", refuse_runs=False)
    assert status.reason == "none answers" and status.run_refusal() is None
    status.down("restarting", refuse_runs=True)
    assert status.run_refusal() == "restarting"
    status.up()
    assert status.reason is None and status.run_refusal() is None


def test_the_bridge_socket_is_in_the_data_folder_or_a_private_one_of_this_user(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert bridge_socket(tmp_path) == str(tmp_path.resolve() / "bridge.sock")
    deep = tmp_path / ("d" * 120)  # too long for a socket address
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "tmp"))
    (tmp_path / "tmp").mkdir()
    path = Path(bridge_socket(deep))
    assert path.parent.name == f"agentchat-{os.getuid()}"
    assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700
    assert bridge_socket(deep) == str(path)  # the same data folder, the same socket
    path.parent.chmod(0o777)  # someone else may write in it: not used
    with pytest.raises(RuntimeError, match="not a private folder"):
        bridge_socket(deep)
