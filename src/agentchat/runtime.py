"""What the API knows of its bridges' health: written by the thread that watches them, read by
`/api/health` (degraded, with the reason) and by run starts (refused while the local bridge is
being restarted)."""

from __future__ import annotations

import threading
from collections.abc import Callable

Frozen = Callable[[], str | None]


def _never_frozen() -> str | None:
    return None


class BridgeStatus:
    """Thread-safe: the watcher thread writes it, request handlers read it."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._reason: str | None = None
        self._refuse_runs = False
        self._frozen: Frozen = _never_frozen

    def watch_frozen(self, frozen: Frozen) -> None:
        """`frozen()` says why the local bridge cannot take a turn at this very moment (its
        process is stopped), between two checks of the watcher: asked at every run start."""
        self._frozen = frozen

    def down(self, reason: str, *, refuse_runs: bool) -> None:
        """The bridges cannot take turns now; `refuse_runs`: new runs get 503 at once (a
        restart is under way) rather than a FAILED answer."""
        with self._lock:
            self._reason, self._refuse_runs = reason, refuse_runs

    def up(self) -> None:
        with self._lock:
            self._reason, self._refuse_runs = None, False

    @property
    def reason(self) -> str | None:
        """Why health is degraded; None when the bridges answer."""
        with self._lock:
            return self._reason

    def run_refusal(self) -> str | None:
        """Why a run cannot start now; None when it may."""
        with self._lock:
            if self._refuse_runs:
                return self._reason
        return self._frozen()

    def restarting(self) -> bool:
        """The local bridge is being restarted (the turns of the old one are gone)."""
        with self._lock:
            return self._refuse_runs
