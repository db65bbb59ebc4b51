"""Live runs: the per-run outbox of events, clarify gate and abort switch, looked up by runId."""

from __future__ import annotations

import asyncio
import logging
import threading
from typing import Any

from agentchat.bridge.live.clarify_gate import ClarifyGate
from agentchat.bridge.live.outbox import Outbox
from agentchat.protocol.clean_events import StreamCleaner, clean_model
from agentchat.protocol.errors import Conflict, NotFound
from agentchat.protocol.events import BridgeEvent, RunEnd

log = logging.getLogger(__name__)


class RunHandle:
    """Shared by the agent thread (producer) and the SSE response (consumer)."""

    def __init__(
        self,
        run_id: str,
        session_id: str,
        loop: asyncio.AbstractEventLoop,
        clarify_timeout_s: float,
        *,
        answer_window_s: float = 0.015,
        answer_max_chars: int = 400,
    ) -> None:
        self.run_id = run_id
        self.session_id = session_id
        self.clarify = ClarifyGate(clarify_timeout_s)
        self.outbox = Outbox(loop, window_s=answer_window_s, max_chars=answer_max_chars)
        self.finished = False
        self._loop = loop
        self._aborted = threading.Event()
        self._lock = threading.Lock()
        self._agent: Any = None
        self._cleaner = StreamCleaner()

    @property
    def aborted(self) -> bool:
        return self._aborted.is_set()

    def emit(self, event: BridgeEvent) -> None:
        """Thread-safe: hand one event, its text cleaned, to the stream (answer deltas are
        coalesced)."""
        with self._lock:
            cleaned = self._cleaner.event(event)
        if cleaned is not None:
            self.outbox.put(cleaned)

    def end(self, end: RunEnd) -> None:
        """Emit the terminal run_end and close the stream (called on the loop thread)."""
        with self._lock:
            rest = self._cleaner.held()
        if rest is not None:
            self.outbox.put(rest)
        self.finished = True
        self.outbox.close(clean_model(end))

    def attach(self, agent: Any) -> bool:
        """Bind the agent running this turn; False when the run was already aborted."""
        with self._lock:
            self._agent = agent
            return not self._aborted.is_set()

    def detach(self) -> None:
        with self._lock:
            self._agent = None

    def steer(self, text: str) -> bool:
        """Hand a person's message to the running agent; False when no agent runs yet/any more."""
        with self._lock:
            agent = self._agent
        return agent is not None and not self.finished and bool(agent.steer(text))

    def abort(self) -> None:
        """Interrupt the agent and release a waiting clarify; idempotent."""
        with self._lock:
            self._aborted.set()
            agent = self._agent
        self.clarify.close()
        if agent is not None:
            agent.interrupt()


class RunRegistry:
    def __init__(self) -> None:
        self._runs: dict[str, RunHandle] = {}

    def add(self, handle: RunHandle) -> None:
        if handle.run_id in self._runs:
            raise Conflict(f"run {handle.run_id} is already running")
        self._runs[handle.run_id] = handle

    def get(self, run_id: str) -> RunHandle:
        handle = self._runs.get(run_id)
        if handle is None:
            raise NotFound(f"run {run_id} is not running on this bridge")
        return handle

    def find(self, run_id: str) -> RunHandle | None:
        return self._runs.get(run_id)

    def remove(self, run_id: str) -> None:
        self._runs.pop(run_id, None)

    def for_session(self, session_id: str) -> list[RunHandle]:
        return [h for h in self._runs.values() if h.session_id == session_id]

    def all(self) -> list[RunHandle]:
        return list(self._runs.values())
