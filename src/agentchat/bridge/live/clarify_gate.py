"""A clarify question that blocks the agent thread until answered, aborted or timed out."""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from enum import Enum


class ClarifyOutcome(Enum):
    ANSWERED = "answered"
    ABORTED = "aborted"
    TIMED_OUT = "timed_out"


@dataclass
class PendingClarify:
    clarify_id: str
    question: str
    choices: list[str]
    answer: str = ""
    outcome: ClarifyOutcome | None = None
    done: threading.Event = field(default_factory=threading.Event)


class ClarifyGate:
    """At most one pending question per run; thread-safe between agent and HTTP threads."""

    def __init__(self, timeout_s: float) -> None:
        self._timeout_s = timeout_s
        self._lock = threading.Lock()
        self._pending: PendingClarify | None = None
        self._closed = False

    @property
    def pending(self) -> PendingClarify | None:
        return self._pending

    def open(self, clarify_id: str, question: str, choices: list[str]) -> PendingClarify | None:
        """Register a question; None when the run was already aborted."""
        with self._lock:
            if self._closed:
                return None
            self._pending = PendingClarify(clarify_id, question, choices)
            return self._pending

    def wait(self, pending: PendingClarify) -> ClarifyOutcome:
        """Block the calling (agent) thread until the question is settled."""
        pending.done.wait(self._timeout_s)
        with self._lock:
            if pending.outcome is None:
                pending.outcome = ClarifyOutcome.TIMED_OUT
            if self._pending is pending:
                self._pending = None
            return pending.outcome

    def answer(self, clarify_id: str, answer: str) -> bool:
        """Settle the pending question; False when no question with that id waits."""
        with self._lock:
            pending = self._pending
            if pending is None or pending.clarify_id != clarify_id or pending.outcome:
                return False
            pending.answer, pending.outcome = answer, ClarifyOutcome.ANSWERED
            pending.done.set()
            return True

    def close(self) -> None:
        """Abort: release a waiting question and refuse new ones."""
        with self._lock:
            self._closed = True
            pending = self._pending
            if pending is not None and pending.outcome is None:
                pending.outcome = ClarifyOutcome.ABORTED
                pending.done.set()
