"""Exponential back-off between restarts of the local bridge, forgiven after a healthy spell."""

from __future__ import annotations

FIRST_S = 0.5
CAP_S = 30.0
HEALTHY_RESET_S = 60.0


class Backoff:
    def __init__(
        self, first_s: float = FIRST_S, cap_s: float = CAP_S, reset_after_s: float = HEALTHY_RESET_S
    ) -> None:
        self._first, self._cap, self._reset_after = first_s, cap_s, reset_after_s
        self._next = first_s
        self._up_since: float | None = None

    def delay(self) -> float:
        """How long to wait before the next start; each call doubles the next (up to the cap)."""
        self._up_since = None
        delay, self._next = self._next, min(self._next * 2, self._cap)
        return delay

    def healthy(self, now: float) -> None:
        """The bridge answered at `now` (monotonic); after a healthy minute the delay resets."""
        if self._up_since is None:
            self._up_since = now
        elif now - self._up_since >= self._reset_after:
            self._next = self._first
