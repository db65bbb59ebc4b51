"""What every room of the run service shares: its parts and the runs this process drives."""

from __future__ import annotations

import asyncio
import logging
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TypeVar

import anyio
from sqlalchemy.orm import Session

from agentchat.core.database import Database
from agentchat.core.settings import Settings
from agentchat.events.bus import EventBus
from agentchat.events.model import BusEvent
from agentchat.protocol.bridge_api import RunRequest
from agentchat.protocol.events import PageEvent
from agentchat.runs import store
from agentchat.runs.cluster.bus_watch import BusWatch
from agentchat.runs.cluster.owners import Owners
from agentchat.runs.cluster.remote import Remote
from agentchat.runs.drive.final_write import FinalWrites, Unsaved
from agentchat.runs.drive.log_writer import LogWriter
from agentchat.runs.ports import Bridge, Bridges
from agentchat.runtime import Runtime

log = logging.getLogger(__name__)
T = TypeVar("T")


@dataclass
class ActiveRun:
    """A run driven by this process, from its launch to its terminal event. `request` is what
    its bridge was asked (None for a run re-attached after a restart: it is followed, not sent
    again); `secrets` are the API keys of its model and fallback, scrubbed from anything the run
    publishes or stores."""

    plan: store.RunPlan
    request: RunRequest | None
    secrets: tuple[str, ...] = ()
    client: Bridge | None = None
    task: asyncio.Task[None] | None = None
    answer: list[str] = field(default_factory=list)
    seq: int = 0
    events_seen: int = 0
    summary_message_id: int | None = None
    stop_requested: bool = False
    # Bridge event ids: the last one handled; those up to `stored_upto` are in the database
    # and those up to `published_upto` on the bus already (a re-attached run replays them).
    event_id: int = 0
    stored_upto: int = 0
    published_upto: int = 0
    detach: bool = False  # the API shuts down: leave the run going in its bridge
    bus_lost: bool = False  # the bus did not take an event: publish nothing until rejoined

    @property
    def run_id(self) -> str:
        return self.plan.run_id


async def _always() -> None:
    """The ping of a bus that is always there (tests that build a context by hand)."""


def new_hermes_session() -> str:
    return f"chat-{uuid.uuid4()}"


@dataclass
class RunContext:
    database: Database
    bus: EventBus
    bridges: Bridges
    log_writer: LogWriter
    settings: Settings
    owners: Owners | None = None
    runtime: Runtime = field(default_factory=Runtime)  # what start-up found (`runtime.py`)
    remote: Remote | None = None  # steering runs that other API processes drive
    bus_watch: BusWatch = field(default_factory=lambda: BusWatch(_always))
    active: dict[str, ActiveRun] = field(default_factory=dict)
    # ids whose RUNNING row may exist before `active` has them (the sweeper leaves them be)
    claimed: set[str] = field(default_factory=set)
    # runs that ended while the bus was away, waiting to put their events and end on it
    mending: set[asyncio.Task[None]] = field(default_factory=set)
    final_writes: FinalWrites = field(init=False)

    def __post_init__(self) -> None:
        self.final_writes = FinalWrites(self._write_end)

    async def _write_end(self, end: Unsaved) -> None:
        await self.in_thread(
            lambda db: store.finish_message(db, end.message_id, end.outcome, end.summary_message_id)
        )

    async def in_thread(self, work: Callable[[Session], T]) -> T:
        """`work` in one short transaction on a worker thread (never a session across an
        await)."""

        def run() -> T:
            with self.database.session() as db:
                return work(db)

        return await anyio.to_thread.run_sync(run)

    async def publish(self, run_id: str, event: PageEvent) -> BusEvent:
        """Put a typed event on the bus (which keeps its JSON body)."""
        return await self.bus.publish(run_id, event.EVENT, event.wire())

    async def place(self, run: ActiveRun, client: Bridge) -> None:
        """The run is on this bridge now; recorded for the other processes (best effort: the
        owner heartbeat writes it again)."""
        run.client = client
        if self.owners is None:
            return
        try:
            await self.owners.place(run.run_id, client.base_url)
        except Exception as exc:  # the run goes on: its owner heartbeat writes it again
            log.warning("could not record the bridge of run %s: %r", run.run_id, exc)

    async def release(self, run_id: str) -> None:
        """Drop this process's owner key of a run (multi-process mode)."""
        self.claimed.discard(run_id)
        if self.owners is not None:
            try:
                await self.owners.release(run_id)
            except Exception:  # the key expires on its own
                log.warning("could not release the owner key of run %s", run_id)
