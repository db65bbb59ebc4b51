"""What `agentchat serve` runs beside the API when no bridge URL is configured: the local Hermes
Bridge (its own process, which outlives the API and is supervised by it; see `bridge.py` and
`supervisor.py`) and the scripted demo model on a thread (which stops with the API)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import ClassVar
from urllib.parse import urlsplit

from agentchat.core.settings import Settings
from agentchat.local_stack.bridge import LocalBridge
from agentchat.local_stack.log_files import LogTrimmer
from agentchat.local_stack.processes import PortTaken, free_port, wait_for_health
from agentchat.local_stack.supervisor import (
    BridgeFollower,
    BridgeMonitor,
    BridgeSupervisor,
    Moved,
)
from agentchat.private_files import private_dir
from agentchat.runtime import BridgeStatus

DEMO_PORT_FILE = "demo-model.port"

__all__ = [
    "LocalStack",
    "PortTaken",
    "free_port",
    "several_workers_problem",
    "wait_for_health",
    "worker_env",
]


@dataclass
class LocalStack:
    settings: Settings
    status: BridgeStatus = field(default_factory=BridgeStatus)
    bridge_url: str | None = None
    bridge_secret: str | None = None
    scripted_url: str | None = None
    # The local bridge is not stopped with the API: turns go on, a restarted API re-uses it.
    bridge_survives_api: ClassVar[bool] = True
    _bridge: LocalBridge | None = None
    _watcher: BridgeSupervisor | BridgeFollower | BridgeMonitor | None = None
    _stops: list[Callable[[], None]] = field(default_factory=list)

    def start(self) -> None:
        if self.settings.scripted_llm_url:  # started once by `serve --workers` for all workers
            self.scripted_url = self.settings.scripted_llm_url
        elif self.settings.start_scripted_llm:
            self.scripted_url, stop = start_demo_model(self.settings.data_dir.resolve())
            self._stops.append(stop)
        if self.settings.bridge_urls and self.settings.follow_local_bridge:
            self._follow_local()
        elif self.settings.bridge_urls:
            self._watch_configured()
        elif self.settings.start_bridge:
            self._start_bridge()

    def _start_bridge(self) -> None:
        self._bridge = LocalBridge(self.settings)
        state = self._bridge.acquire()
        self.bridge_url, self.bridge_secret = state.url, state.secret
        logs = [
            self.settings.data_dir.resolve() / "logs" / "bridge.out",
            self.settings.resolved_hermes_home / "logs" / "bridge.log",
        ]
        trimmer = LogTrimmer(
            logs, round(self.settings.log_max_mb * 1024 * 1024), self.settings.log_check_s
        )
        trimmer.start()
        self._stops.append(trimmer.stop)
        supervisor = BridgeSupervisor(self._bridge, self.status, self.settings.bridge_ping_s)
        self.status.watch_frozen(supervisor.frozen)
        supervisor.moved.append(self._moved)
        self._watcher = supervisor
        supervisor.start()

    def _follow_local(self) -> None:
        """A worker of `serve --workers`: the bridge is its parent's (settings name it)."""
        secret = self.settings.bridge_secret
        self.bridge_url = self.settings.bridge_urls[0]
        self.bridge_secret = secret.get_secret_value() if secret else ""
        follower = BridgeFollower(
            self.settings.data_dir,
            self.bridge_url,
            self.bridge_secret,
            self.status,
            self.settings.bridge_ping_s,
        )
        self.status.watch_frozen(follower.frozen)
        follower.moved.append(self._moved)
        self._watcher = follower
        follower.start()

    def _watch_configured(self) -> None:
        secret = self.settings.bridge_secret
        plain = secret.get_secret_value() if secret else None
        self._watcher = BridgeMonitor(
            self.settings.bridge_urls, plain, self.status, self.settings.bridge_ping_s
        )
        self._watcher.start()

    def _moved(self, url: str, secret: str) -> None:
        self.bridge_url, self.bridge_secret = url, secret

    def on_bridge_moved(self, callback: Moved) -> None:
        """`callback(url, secret)` runs (on the supervisor's thread) when a restarted local
        bridge got another URL or secret."""
        if isinstance(self._watcher, BridgeSupervisor | BridgeFollower):
            self._watcher.moved.append(callback)

    def stop(self) -> None:
        """Stop watching and the scripted model; the local bridge keeps running (it exits by
        itself when no API comes back within AGENTCHAT_BRIDGE_ORPHAN_S)."""
        if self._watcher is not None:
            self._watcher.stop()
            self._watcher = None
        for stop in reversed(self._stops):
            stop()
        self._stops.clear()

    def stop_bridge(self) -> None:
        """Stop the local bridge too (tests; an operator uninstalling)."""
        self.stop()
        if self._bridge is not None:
            self._bridge.stop()


def start_demo_model(data_dir: Path) -> tuple[str, Callable[[], None]]:
    """The scripted demo model on a thread, on the port it had before when that is free: the
    bridge outlives the API, and its turns (a clarify answered after a restart, a stream cut
    by it) ask the demo model again at the URL they were given."""
    from agentchat.scripted_llm.server import serve_in_thread

    record = data_dir / DEMO_PORT_FILE
    try:
        port = int(record.read_text().strip())
    except (OSError, ValueError):
        port = 0
    try:
        url, stop = serve_in_thread(port=port)
    except OSError:  # taken since: another port (runs of the old one cannot come back)
        url, stop = serve_in_thread()
    private_dir(data_dir)
    record.write_text(f"{urlsplit(url).port}\n")
    return url, stop


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
        env["AGENTCHAT_FOLLOW_LOCAL_BRIDGE"] = "true"  # it may move when the parent restarts it
    if stack.scripted_url:
        env["AGENTCHAT_SCRIPTED_LLM_URL"] = stack.scripted_url
    return env
