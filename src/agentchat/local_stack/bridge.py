"""The local bridge: the Hermes Bridge `serve` runs beside the API when no bridge URL is
configured. It outlives the API: a restarted `serve` finds it through the state file and
re-uses it, and the supervisor starts it again when it dies."""

from __future__ import annotations

import hashlib
import json
import logging
import secrets
import subprocess
import sys
from datetime import UTC, datetime

import httpx

from agentchat import __version__
from agentchat.bridge_client import address
from agentchat.bridge_client.address import unix_url
from agentchat.core.settings import Settings
from agentchat.local_stack.processes import (
    BRIDGE_START_TIMEOUT_S,
    BRIDGE_STOP_TIMEOUT_S,
    bridge_settings_env,
    bridge_socket,
    is_bridge,
    pid_alive,
    spawn_bridge,
    stop_pid,
    wait_for_health,
)
from agentchat.local_stack.state import BridgeState, deciding, read_state, write_state
from agentchat.private_files import private_dir
from agentchat.protocol.bridge_env import bridge_environment

log = logging.getLogger(__name__)
PING_TIMEOUT_S = 3.0


class LocalBridge:
    """The bridge process this `serve` uses: adopted from the state file or started here."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.data_dir = settings.data_dir.resolve()
        self.config = config_fingerprint(settings)
        self.state: BridgeState | None = None
        self._process: subprocess.Popen[bytes] | None = None

    def acquire(self) -> BridgeState:
        """The recorded bridge when it is alive, answers with its secret and was started with
        this configuration; otherwise a new one, recorded."""
        private_dir(self.data_dir)
        with deciding(self.data_dir):
            recorded = read_state(self.data_dir)
            if recorded is not None and recorded.config == self.config and answers(recorded):
                return self._adopt(recorded)
            return self._replace(recorded)

    def _adopt(self, recorded: BridgeState) -> BridgeState:
        if self.state is None or recorded.pid != self.state.pid:
            self._process = None  # another `serve` started it, or an earlier one did
        self.state = recorded
        return recorded

    def _replace(self, recorded: BridgeState | None) -> BridgeState:
        secret = _new_secret()
        if recorded is not None:
            retire(recorded)  # other settings, or hung: it would hold the hermes home
            if recorded.config == self.config:  # `serve --workers` handed its URL and secret out
                secret = recorded.secret
        self.state = self._launch(bridge_socket(self.data_dir), secret)
        write_state(self.data_dir, self.state)
        return self.state

    def problem(self) -> str | None:
        """Why the bridge is not running, or None when its process is there."""
        if self._process is not None:
            code = self._process.poll()
            return None if code is None else f"the local Hermes Bridge exited ({_exit(code)})"
        if self.state is not None and not pid_alive(self.state.pid):
            return f"the local Hermes Bridge (pid {self.state.pid}) is gone"
        return None

    def ping(self) -> bool:
        """An authenticated health check (which also tells the bridge an API is there)."""
        return self.state is not None and answers(self.state)

    def kill(self) -> None:
        """End a bridge that stopped answering (before another is started)."""
        if self._process is not None:
            self._process.kill()
            self._process.wait(timeout=BRIDGE_STOP_TIMEOUT_S)
        elif self.state is not None and is_bridge(self.state.pid):
            stop_pid(self.state.pid, timeout=1.0)

    def stop(self) -> None:
        """End the bridge for good (`LocalStack.stop_bridge`: tests, explicit clean-up)."""
        if self._process is not None and self._process.poll() is None:
            self._process.terminate()
            try:
                self._process.wait(timeout=BRIDGE_STOP_TIMEOUT_S)
            except subprocess.TimeoutExpired:
                self._process.kill()
                self._process.wait(timeout=BRIDGE_STOP_TIMEOUT_S)
        elif self.state is not None and is_bridge(self.state.pid):
            stop_pid(self.state.pid)

    def _launch(self, socket: str, secret: str) -> BridgeState:
        process = spawn_bridge(self.settings, socket, secret)
        url = unix_url(socket)
        try:
            wait_for_health(url, process, BRIDGE_START_TIMEOUT_S)
        except BaseException:
            if process.poll() is None:
                process.kill()
            process.wait(timeout=BRIDGE_STOP_TIMEOUT_S)
            raise
        self._process = process
        log.info("started the local Hermes Bridge (pid %d) at %s", process.pid, url)
        return BridgeState(
            url=url,
            pid=process.pid,
            secret=secret,
            hermes_home=str(self.settings.resolved_hermes_home),
            started_at=datetime.now(UTC).isoformat(timespec="seconds"),
            config=self.config,
        )


def answers(state: BridgeState) -> bool:
    """The recorded process is alive and its /health answers our secret with its pid."""
    if not pid_alive(state.pid):
        return False
    headers = {"Authorization": f"Bearer {state.secret}"}
    try:
        response = address.get(state.url, "/health", headers=headers, timeout=PING_TIMEOUT_S)
        return response.status_code == 200 and response.json().get("pid") == state.pid
    except (httpx.HTTPError, ValueError, AttributeError):
        return False


def retire(state: BridgeState) -> None:
    """Stop a recorded bridge that will not be re-used, when that pid still is a bridge."""
    if is_bridge(state.pid):
        log.info("stopping the local Hermes Bridge %d (not re-usable)", state.pid)
        stop_pid(state.pid)


def config_fingerprint(settings: Settings) -> str:
    """What the bridge was started with: a bridge of another version, interpreter or settings
    (toolsets, skills, hermes home, AGENTCHAT_BRIDGE_* and HERMES_* tuning) is not re-used."""
    env = bridge_environment(bridge_settings_env(settings))
    tuning = {
        k: v
        for k, v in env.items()
        if k.startswith(("AGENTCHAT_", "HERMES_")) and k != "AGENTCHAT_BRIDGE_SECRET"
    }
    text = json.dumps([__version__, sys.executable, tuning], sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def _new_secret() -> str:
    return secrets.token_urlsafe(24)


def _exit(code: int) -> str:
    return f"signal {-code}" if code < 0 else f"code {code}"
