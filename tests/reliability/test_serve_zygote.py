"""The zygote's children (tests/support/zygote.py) behave as the subprocess.Popen children they
stand in for: exit codes, death by a signal as -N, a wait that times out, their environment,
working folder, session and output where they were asked."""

from __future__ import annotations

import os
import signal
import subprocess
from pathlib import Path

import pytest

from agentchat.local_stack import free_port
from tests.support.serve_process import QUIET_ENV
from tests.support.serve_starter import ServeStarter
from tests.support.zygote import ForkedProcess, fork_serve


def _fork(tmp_path: Path, *args: str, env: dict[str, str] | None = None) -> ForkedProcess:
    full_env = {**os.environ, "PYTHONUNBUFFERED": "1", **QUIET_ENV, **(env or {})}
    with (tmp_path / "out.log").open("ab") as out:
        return fork_serve(["agentchat", *args], full_env, tmp_path, out.fileno())


def test_a_child_exits_with_the_clis_code_and_writes_to_the_given_file(tmp_path: Path) -> None:
    child = _fork(tmp_path, "serve", env={"AGENTCHAT_PORT": "not-a-port"})
    assert child.wait(timeout=60) == 2  # the environment given, not the worker's
    assert child.poll() == 2
    assert "AGENTCHAT_PORT='not-a-port'" in (tmp_path / "out.log").read_text()

    child = _fork(tmp_path, "--help")
    assert child.wait(timeout=60) == 0
    assert "serve" in (tmp_path / "out.log").read_text()


def test_a_child_is_placed_as_asked_and_dies_of_a_signal_as_minus_n(tmp_path: Path) -> None:
    port = free_port()
    child = _fork(tmp_path, "serve", "--port", str(port), "--data-dir", str(tmp_path / "d"))
    try:
        with pytest.raises(subprocess.TimeoutExpired):
            child.wait(timeout=0.2)
        assert child.poll() is None
        assert Path(f"/proc/{child.pid}/cwd").resolve() == tmp_path.resolve()
        log = (tmp_path / "out.log").resolve()
        assert Path(f"/proc/{child.pid}/fd/1").resolve() == log
        assert Path(f"/proc/{child.pid}/fd/2").resolve() == log
        assert os.getsid(child.pid) == child.pid  # a session of its own, as asked
    finally:
        child.kill()
    assert child.wait(timeout=30) == -signal.SIGKILL


# What an exec'd `python -m agentchat.cli serve` answers (AGENTCHAT_TEST_ZYGOTE=0): uvicorn
# raises SIGTERM again once shut down; after SIGINT it exits 0.
@pytest.mark.parametrize(("sig", "code"), [(signal.SIGTERM, -signal.SIGTERM), (signal.SIGINT, 0)])
def test_a_served_child_ends_on_a_signal_like_an_execd_one(
    tmp_path: Path, served: ServeStarter, sig: signal.Signals, code: int
) -> None:
    # served.start forks a zygote child unless AGENTCHAT_TEST_ZYGOTE=0: the same answers.
    server = served.start(tmp_path, "--data-dir", str(tmp_path / "data"))
    server.process.send_signal(sig)
    assert server.wait_exit(timeout=60) == code
    assert "Traceback" not in server.log()
