"""Watching the bridges from a thread (so it also runs in the parent of `serve --workers`, which
has no event loop of ours). The local bridge is pinged every few seconds (which also tells it an
API is there) and started again, with back-off, when it exits or stops answering; configured
bridges are only pinged. `BridgeStatus` carries what is seen to health and run starts."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from pathlib import Path

import httpx

from agentchat.bridge_client import address
from agentchat.local_stack.backoff import Backoff
from agentchat.local_stack.bridge import PING_TIMEOUT_S, LocalBridge, answers
from agentchat.local_stack.processes import pid_alive, pid_stopped
from agentchat.local_stack.state import read_state
from agentchat.runtime import BridgeStatus

log = logging.getLogger(__name__)
PING_S = 2.0
MISSED_PINGS = 3  # a bridge that is there but does not answer this many times is restarted
Moved = Callable[[str, str], None]  # (new url, secret)
FROZEN = "the local Hermes Bridge is frozen (its process is stopped)"


def frozen_reason(pid: int | None) -> str | None:
    return FROZEN if pid is not None and pid_stopped(pid) else None


class _Watcher:
    def __init__(self, name: str, ping_s: float) -> None:
        self._ping_s = ping_s
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name=name, daemon=True)

    def start(self) -> None:
        self._thread.start()

    def stop(self, timeout: float = 5.0) -> None:
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join(timeout)

    def _run(self) -> None:
        while not self._stop.wait(self._ping_s):
            try:
                self.check()
            except Exception:  # the watcher must outlive any surprise
                log.exception("%s: check failed", self._thread.name)

    def check(self) -> None:
        raise NotImplementedError


class BridgeSupervisor(_Watcher):
    """Keeps the local bridge running; `moved` learns a new URL/secret after a restart."""

    def __init__(self, bridge: LocalBridge, status: BridgeStatus, ping_s: float = PING_S) -> None:
        super().__init__("bridge-supervisor", ping_s)
        self.bridge, self.status = bridge, status
        self.moved: list[Moved] = []
        self._backoff = Backoff()
        self._missed = 0

    def frozen(self) -> str | None:
        state = self.bridge.state
        return frozen_reason(state.pid if state is not None else None)

    def check(self) -> None:
        problem = self.bridge.problem()
        if problem is None:
            if self.bridge.ping():
                self._missed = 0
                self._backoff.healthy(time.monotonic())
                return
            self._missed += 1
            if self._missed < MISSED_PINGS:
                return
            problem = f"the local Hermes Bridge did not answer {self._missed} health checks"
        self._missed = 0
        self._restart(problem)

    def _restart(self, problem: str) -> None:
        log.warning("%s; restarting it", problem)
        self.status.down(f"{problem}; restarting it", refuse_runs=True)
        self.bridge.kill()
        old = self.bridge.state
        while not self._stop.wait(self._backoff.delay()):
            try:
                state = self.bridge.acquire()
            except Exception as exc:  # it did not come up: wait longer and try again
                log.warning("restarting the local Hermes Bridge failed: %s", exc)
                self.status.down(f"{problem}; restarting it failed ({exc})", refuse_runs=True)
                continue
            if old is None or (state.url, state.secret) != (old.url, old.secret):
                for moved in self.moved:
                    moved(state.url, state.secret)
            log.info("the local Hermes Bridge is back (pid %d)", state.pid)
            self.status.up()
            return


class BridgeMonitor(_Watcher):
    """Pings configured bridges (no restart: they are someone else's); health is degraded
    while none of them answers. Runs are not refused: the driver tries every bridge."""

    def __init__(
        self, urls: list[str], secret: str | None, status: BridgeStatus, ping_s: float = PING_S
    ) -> None:
        super().__init__("bridge-monitor", ping_s)
        self._urls, self.status = urls, status
        self._headers = {"Authorization": f"Bearer {secret}"} if secret else {}

    def check(self) -> None:
        if any(self._answers(url) for url in self._urls):
            self.status.up()
            return
        count = len(self._urls)
        reason = (
            "the Hermes Bridge does not answer its health check"
            if count == 1
            else f"none of the {count} Hermes Bridges answers its health check"
        )
        self.status.down(reason, refuse_runs=False)

    def _answers(self, url: str) -> bool:
        try:
            response = address.get(url, "/health", headers=self._headers, timeout=PING_TIMEOUT_S)
        except httpx.HTTPError:
            return False
        return response.status_code == 200


class BridgeFollower(_Watcher):
    """In a worker of `serve --workers`: follows the local bridge its parent supervises through
    the state file, since a restarted bridge may have another port and secret (`moved`). While
    it does not answer, health is degraded and runs are refused: the parent is restarting it."""

    def __init__(
        self, data_dir: Path, url: str, secret: str, status: BridgeStatus, ping_s: float = PING_S
    ) -> None:
        super().__init__("bridge-follower", ping_s)
        self._data_dir, self.status = data_dir, status
        self._current = (url, secret)
        self.moved: list[Moved] = []
        self._missed = 0
        self._pid: int | None = None

    def frozen(self) -> str | None:
        return frozen_reason(self._pid)

    def check(self) -> None:
        state = read_state(self._data_dir)
        self._pid = state.pid if state is not None else None
        if state is not None and (state.url, state.secret) != self._current:
            self._current = (state.url, state.secret)
            log.info("the local Hermes Bridge is now at %s", state.url)
            for moved in self.moved:
                moved(state.url, state.secret)
        if state is not None and answers(state):
            self._missed = 0
            self.status.up()
            return
        self._missed += 1
        # Alive but slow to answer (a busy machine): the parent restarts it only after
        # MISSED_PINGS, and so long it still takes runs.
        if state is not None and pid_alive(state.pid) and self._missed < MISSED_PINGS:
            return
        reason = "the local Hermes Bridge does not answer; it is being restarted"
        self.status.down(reason, refuse_runs=True)
