"""The processes `agentchat serve` runs beside the API when no bridge URL is configured: a
Hermes Bridge child process on a free loopback port (with a random shared secret) and the
scripted demo model on a thread. Both stop with the API."""

from __future__ import annotations

import secrets
import socket
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field

import httpx

from agentchat.core.bridge_env import bridge_environment
from agentchat.core.settings import Settings

BRIDGE_START_TIMEOUT_S = 60.0


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@dataclass
class LocalStack:
    settings: Settings
    bridge_url: str | None = None
    bridge_secret: str | None = None
    scripted_url: str | None = None
    _bridge: subprocess.Popen[bytes] | None = None
    _stops: list[Callable[[], None]] = field(default_factory=list)

    def start(self) -> None:
        if self.settings.scripted_llm_url:  # started once by `serve --workers` for all workers
            self.scripted_url = self.settings.scripted_llm_url
        elif self.settings.start_scripted_llm:
            from agentchat.scripted_llm.server import serve_in_thread

            self.scripted_url, stop = serve_in_thread()
            self._stops.append(stop)
        if self.settings.start_bridge and not self.settings.bridge_urls:
            self._start_bridge()

    def _start_bridge(self) -> None:
        port = free_port()
        self.bridge_secret = secrets.token_urlsafe(24)
        log_dir = self.settings.data_dir.resolve() / "logs"
        log_dir.mkdir(parents=True, exist_ok=True)
        env = bridge_environment(
            {
                "AGENTCHAT_HERMES_HOME": str(self.settings.resolved_hermes_home),
                "AGENTCHAT_SKILLS_DIR": str(self.settings.resolved_skills_dir),
                "AGENTCHAT_AGENT_TOOLSETS": ",".join(self.settings.toolsets),
                "AGENTCHAT_AGENT_SKILL_MANAGEMENT": str(self.settings.agent_skill_management),
            }
        )
        command = [sys.executable, "-m", "agentchat.cli", "bridge", "--port", str(port)]
        command.append("--secret-stdin")  # never in its environment, which the agent can read
        with (log_dir / "bridge.out").open("ab") as out:
            self._bridge = subprocess.Popen(
                command,
                env=env,
                stdin=subprocess.PIPE,
                stdout=out,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        assert self._bridge.stdin is not None
        self._bridge.stdin.write(f"{self.bridge_secret}\n".encode())
        self._bridge.stdin.close()
        self.bridge_url = f"http://127.0.0.1:{port}"
        wait_for_health(self.bridge_url, self._bridge, BRIDGE_START_TIMEOUT_S)

    def stop(self) -> None:
        if self._bridge is not None and self._bridge.poll() is None:
            self._bridge.terminate()
            try:
                self._bridge.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self._bridge.kill()
                self._bridge.wait(timeout=5)
        for stop in reversed(self._stops):
            stop()
        self._stops.clear()


def several_workers_problem(settings: Settings) -> str | None:
    """Why this configuration cannot run several API processes, or None when it can."""
    if settings.resolved_database_url.startswith("sqlite"):
        return "--workers > 1 needs PostgreSQL or MySQL (--database-url); SQLite is one process"
    if not settings.redis_url:
        return "--workers > 1 needs Redis (--redis-url) to share run events between processes"
    return None


def worker_env(stack: LocalStack) -> dict[str, str]:
    """What API workers need to use the stack their parent started instead of their own."""
    env = {"AGENTCHAT_START_BRIDGE": "false", "AGENTCHAT_START_SCRIPTED_LLM": "false"}
    if stack.bridge_url and stack.bridge_secret:
        env["AGENTCHAT_BRIDGE_URL"] = stack.bridge_url
        env["AGENTCHAT_BRIDGE_SECRET"] = stack.bridge_secret
    if stack.scripted_url:
        env["AGENTCHAT_SCRIPTED_LLM_URL"] = stack.scripted_url
    return env


def wait_for_health(
    url: str, process: subprocess.Popen[bytes] | None, timeout: float, path: str = "/health"
) -> None:
    """Wait until GET url+path answers 200; fail early when the process has exited."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process is not None and process.poll() is not None:
            raise RuntimeError(f"{url} exited with code {process.returncode} during start-up")
        try:
            if httpx.get(url + path, timeout=1.0).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.1)
    raise RuntimeError(f"{url} did not become healthy within {timeout:.0f} s")
