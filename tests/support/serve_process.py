"""`agentchat serve` as a child process started the way an operator starts it: flags and
AGENTCHAT_* variables only, no migration beforehand. Waits are on conditions with timeouts."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import httpx

from agentchat.local_stack import free_port
from tests.support.local_bridge import stop_local_bridges
from tests.support.zygote import ForkedProcess, fork_serve, zygote_enabled

START_TIMEOUT_S = 90.0
# No bridge child (these tests start processes, not runs) and no rate limit.
QUIET_ENV = {"AGENTCHAT_START_BRIDGE": "false", "AGENTCHAT_RUN_RATE_PER_MINUTE": "0"}


@dataclass
class Served:
    process: subprocess.Popen[bytes] | ForkedProcess
    log_path: Path
    url: str
    data_dir: Path | None = None  # where its local bridge is recorded (ended with it)

    def log(self) -> str:
        return self.log_path.read_text(errors="replace")

    def healthy(self) -> bool:
        try:
            return httpx.get(self.url + "/api/health", timeout=2.0).status_code == 200
        except httpx.HTTPError:
            return False

    def wait_healthy(self, timeout: float = START_TIMEOUT_S) -> None:
        self._wait(self.healthy, timeout, "to answer /api/health")

    def wait_for_log(self, text: str, timeout: float = START_TIMEOUT_S) -> None:
        self._wait(lambda: text in self.log(), timeout, f"to log {text!r}")

    def wait_until(
        self, condition: Callable[[], bool], what: str, timeout: float = START_TIMEOUT_S
    ) -> None:
        self._wait(condition, timeout, what)

    def wait_exit(self, timeout: float = START_TIMEOUT_S) -> int:
        return self.process.wait(timeout=timeout)

    def _wait(self, condition: object, timeout: float, what: str) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if condition():  # type: ignore[operator]
                return
            if self.process.poll() is not None:
                raise AssertionError(f"serve exited ({self.process.returncode}):\n{self.log()}")
            time.sleep(0.1)
        raise AssertionError(f"serve did not come {what} within {timeout} s:\n{self.log()}")

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait(timeout=10)
        if self.data_dir is not None:  # the local bridge outlives serve on purpose
            stop_local_bridges(self.data_dir)


def spawn_serve(
    log_dir: Path,
    *args: str,
    env: dict[str, str] | None = None,
    url: str | None = None,
    command: list[str] | None = None,
    inherit: bool = True,
    fork: bool = True,
) -> Served:
    """Start `agentchat serve ARGS` (not waiting). Without `--port` in ARGS or AGENTCHAT_PORT
    in `env`, a free port is added as a flag. `url`: where it will answer, when not there.
    `command`: the `agentchat` to run; `inherit=False`: only HOME and `env` (an operator's
    shell, not this test's: no PYTHONPATH, no virtual environment). Otherwise it is forked
    from this worker's zygote (tests/support/zygote.py), unless `fork=False` (a test that reads
    the process's /proc/PID/cmdline or environ) or AGENTCHAT_TEST_ZYGOTE=0."""
    log_dir.mkdir(parents=True, exist_ok=True)
    env = {**QUIET_ENV, **(env or {})}
    args_list = list(args)
    if "--port" not in args_list and "AGENTCHAT_PORT" not in env:
        args_list += ["--port", str(free_port())]
    if url is None:
        port = args_list[args_list.index("--port") + 1] if "--port" in args_list else None
        url = f"http://127.0.0.1:{port or env['AGENTCHAT_PORT']}"
    log_path = log_dir / f"serve-{url.rsplit(':', 1)[1]}.out"
    full_env = (
        {k: v for k, v in os.environ.items() if not k.startswith("AGENTCHAT_")}
        if inherit
        else {"HOME": os.environ.get("HOME", "/root"), "LANG": "C.UTF-8"}
    )
    full_env.update(PYTHONUNBUFFERED="1", **env)
    base = command or [sys.executable, "-m", "agentchat.cli"]
    with log_path.open("ab") as out:
        process: subprocess.Popen[bytes] | ForkedProcess
        if command is None and inherit and fork and zygote_enabled():
            argv = ["agentchat", "serve", *args_list]
            process = fork_serve(argv, full_env, log_dir, out.fileno())
        else:
            process = subprocess.Popen(
                [*base, "serve", *args_list],
                stdout=out,
                stderr=subprocess.STDOUT,
                env=full_env,
                cwd=log_dir,
                start_new_session=True,  # its own group: a stuck child is killed with it
            )
    return Served(process, log_path, url, _data_dir(log_dir, args_list, env))


def _data_dir(cwd: Path, args: list[str], env: dict[str, str]) -> Path:
    if "--data-dir" in args:
        folder = Path(args[args.index("--data-dir") + 1])
    else:
        folder = Path(env.get("AGENTCHAT_DATA_DIR", "./data"))
    return folder if folder.is_absolute() else cwd / folder
