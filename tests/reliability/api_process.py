"""`agentchat serve` as a child process on a data dir, so a test can SIGKILL and restart it."""

from __future__ import annotations

import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from agentchat.local_stack import free_port, wait_for_health
from agentchat.migrations import upgrade
from tests.support.servers import BridgeProcess
from tests.support.zygote import ForkedProcess, fork_serve, zygote_enabled

API_START_TIMEOUT_S = 60.0


@dataclass
class ApiProcess:
    url: str
    process: subprocess.Popen[bytes] | ForkedProcess

    def kill(self) -> None:
        self.process.kill()
        self.process.wait(timeout=10)

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.kill()


def start_api(
    data_dir: Path,
    bridge: BridgeProcess,
    port: int | None = None,
    extra_env: dict[str, str] | None = None,
    log_dir: Path | None = None,
) -> ApiProcess:
    """Migrate the data dir's SQLite database and serve the API on it; healthy on return.
    Its output goes to `log_dir` (default: the data dir)."""
    data_dir.mkdir(parents=True, exist_ok=True)
    upgrade(f"sqlite:///{(data_dir / 'agentchat.db').resolve()}")
    port = port or free_port()
    env = {
        **os.environ,
        "PYTHONUNBUFFERED": "1",
        "AGENTCHAT_BRIDGE_SECRET": bridge.secret,
        "AGENTCHAT_RUN_RATE_PER_MINUTE": "0",
        **(extra_env or {}),
    }
    command = [
        *(sys.executable, "-m", "agentchat.cli", "serve"),
        *("--port", str(port), "--data-dir", str(data_dir), "--bridge-url", bridge.url),
    ]
    with ((log_dir or data_dir) / f"api-{port}.out").open("ab") as out:
        process = spawn(command, env, data_dir, out.fileno())
    api = ApiProcess(f"http://127.0.0.1:{port}", process)
    try:
        wait_for_health(api.url, process, API_START_TIMEOUT_S, path="/api/health")
    except BaseException:
        api.stop()
        raise
    return api


def spawn(
    command: list[str], env: dict[str, str], cwd: Path, log_fd: int
) -> subprocess.Popen[bytes] | ForkedProcess:
    """`python -m agentchat.cli ...` (`command`), forked from the worker's zygote unless
    AGENTCHAT_TEST_ZYGOTE=0 (tests/support/zygote.py): an import of the app less per start."""
    if zygote_enabled():
        return fork_serve(["agentchat", *command[3:]], env, cwd, log_fd)
    return subprocess.Popen(command, env=env, stdout=log_fd, stderr=subprocess.STDOUT)
