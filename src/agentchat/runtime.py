"""What this API process finds out at start and while it runs, beside its settings (which
nothing writes once they are read): `Runtime`. Its parts: the bridges' health (`BridgeStatus`,
written by the thread that watches them, read by `/api/health` and by run starts), the scripted
model this process uses, and whether its bridges outlive it."""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Annotated

from fastapi import Depends, Request

from agentchat.core.settings import Settings

Frozen = Callable[[], str | None]


def _no_reason() -> str | None:
    return None


class BridgeStatus:
    """Thread-safe: the watcher thread writes it, request handlers read it."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._reason: str | None = None
        self._refuse_runs = False
        self._frozen: Frozen = _no_reason

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


@dataclass
class Runtime:
    """One per API process (`app.state.runtime`), made with the app from its settings alone;
    the lifespan adds what starting the local stack found (`started`)."""

    bridge_status: BridgeStatus = field(default_factory=BridgeStatus)
    # The scripted model's endpoint in this process (the built-in demo model's row holds the
    # port of the process that started last): started here, or by `serve --workers`.
    scripted_url: str | None = None
    # A bridge keeps a run going after this process stops: runs still going at shutdown are
    # left to it (detached) for the next API to re-attach.
    bridges_outlive_api: bool = False
    # Why answers cannot stream now (the shared bus does not answer; blocks a moment): the
    # cluster's, from start-up on.
    bus_problem: Callable[[], str | None] = _no_reason

    @classmethod
    def of(cls, settings: Settings) -> Runtime:
        """Before start-up: what the settings alone say (no local bridge yet)."""
        return cls(
            scripted_url=settings.scripted_llm_url,
            bridges_outlive_api=_outlive(settings, local_bridge=False),
        )

    def started(self, settings: Settings, scripted_url: str | None, local_bridge: bool) -> None:
        """What starting the local stack found: the scripted model's endpoint, and whether a
        local bridge (which outlives the API unless told otherwise) was started."""
        self.scripted_url = scripted_url
        self.bridges_outlive_api = _outlive(settings, local_bridge)


def _outlive(settings: Settings, local_bridge: bool) -> bool:
    if settings.bridge_survives_api is not None:
        return settings.bridge_survives_api
    return bool(settings.bridge_urls) or local_bridge


def get_runtime(request: Request) -> Runtime:
    runtime: Runtime = request.app.state.runtime
    return runtime


RuntimeDep = Annotated[Runtime, Depends(get_runtime)]
