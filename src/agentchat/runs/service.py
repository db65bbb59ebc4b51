"""Runs: the facade the routes and the app's wiring use. Each phase has its room:

- `start/` — `launcher` (start, regenerate, then a background task per run) with `planning`
  (the rows and the bridge's `RunRequest`, in one transaction);
- `drive/` — `driver` drives one run on the bridges; `publisher` puts its events on the bus and
  the `log_writer`; `outcomes` and `endings` say how it ended and build its one terminal
  event; `final_write` keeps an end the database refused;
- `steer/` — `control` (stop, clarify answers, reset), `steering` (guidance), `agent_memory`
  (the agent's memory files, through the bridge);
- `cluster/` — several API processes: the kind of deployment, chosen once at start (`kinds`:
  one machine, or Redis), who drives a run (`owners`, `file_owners`), steering a run another
  process drives (`remote`, `remote_ops`), whether the bus answers (`bus_watch`);
- `recovery/` — `orphans`: runs of stopped processes (re-attached in their bridge, or
  interrupted) and shutdown (runs left to their bridges); `reattach` rebuilds such a run;
  `elsewhere`: runs whose bridge this process cannot ask;
- `views/` — `snapshots` (`/state`), `stats` and `usage` (the memory drawer's figures);
- `http/` — the routes (`router`) and the SSE responses (`streaming`).

Shared by the rooms, at the root: `context` (RunContext, ActiveRun), `ports` (what a room needs
of a bridge), `store` (the database work), `schemas`, `history`, `periodic`.

One event travels one way: bridge → BridgeClient → driver/publisher → bus → {SSE route}; log
lines go to the batched LogWriter, the end of the run to the message row. No room holds a
database session across an await: each piece of database work is a short transaction run in a
worker thread (`RunContext.in_thread`).
"""

from __future__ import annotations

from agentchat.core.database import Database
from agentchat.core.settings import Settings
from agentchat.events.bus import EventBus
from agentchat.events.redis_health import BUS_ERRORS
from agentchat.protocol.bridge_api import MemoryView
from agentchat.runs import store
from agentchat.runs.cluster.bus_watch import BusWatch
from agentchat.runs.cluster.owners import Owners
from agentchat.runs.cluster.remote import Remote
from agentchat.runs.context import RunContext
from agentchat.runs.drive.driver import RunDriver
from agentchat.runs.drive.log_writer import LogWriter
from agentchat.runs.drive.publisher import RunPublisher
from agentchat.runs.ports import Bridges
from agentchat.runs.recovery.orphans import Recovery
from agentchat.runs.schemas import (
    Regenerated,
    ResetResult,
    RunSnapshot,
    RunStart,
    RunStarted,
)
from agentchat.runs.start.launcher import Launcher
from agentchat.runs.steer import steering
from agentchat.runs.steer.agent_memory import AgentMemory
from agentchat.runs.steer.control import RunControl
from agentchat.runs.views.snapshots import snapshot
from agentchat.runtime import Runtime


class RunService:
    def __init__(
        self,
        database: Database,
        bus: EventBus,
        bridges: Bridges,
        log_writer: LogWriter,
        settings: Settings,
        owners: Owners | None = None,
        runtime: Runtime | None = None,
        remote: Remote | None = None,
    ) -> None:
        """`owners` and `remote` are the cluster's (`cluster/kinds.py`): who drives which run,
        and the other API processes (None: there are none to ask)."""
        self.ctx = RunContext(
            database,
            bus,
            bridges,
            log_writer,
            settings,
            owners,
            runtime or Runtime.of(settings),
            remote,
            BusWatch(bus.ping),
        )
        self.driver = RunDriver(self.ctx, RunPublisher(self.ctx))
        self.launcher = Launcher(self.ctx, self.driver.drive)
        self.recovery = Recovery(self.ctx, self.driver.drive_attached)
        self.control = RunControl(self.ctx, self.recovery.sweep_orphans)
        self._memory = AgentMemory(self.ctx)

    @property
    def bus(self) -> EventBus:
        return self.ctx.bus

    @property
    def bus_watch(self) -> BusWatch:
        return self.ctx.bus_watch

    async def heartbeat(self) -> None:
        """Refresh the owner keys of this process's runs (written again after an outage)."""
        if self.ctx.owners is None:
            return
        try:
            await self.ctx.owners.heartbeat()
        except BUS_ERRORS:
            self.ctx.bus_watch.failed()
            raise

    @property
    def bridges(self) -> Bridges:
        return self.ctx.bridges

    async def start(self, session_id: int, body: RunStart) -> RunStarted:
        return await self.launcher.start(session_id, body)

    async def regenerate(self, message_id: int) -> Regenerated:
        return await self.launcher.regenerate(message_id)

    async def stop(self, run_id: str, owner_id: int | None = None) -> RunSnapshot:
        """`owner_id`: the person asking (the process that drives the run checks it again)."""
        return await self.control.stop(run_id, owner_id)

    async def resume(
        self, run_id: str, clarify_id: str, answer: str, owner_id: int | None = None
    ) -> RunSnapshot:
        return await self.control.resume(run_id, clarify_id, answer, owner_id)

    async def reset(self, session_id: int, keep_history: bool) -> ResetResult:
        return await self.control.reset(session_id, keep_history)

    async def forget_agent(self, hermes_session: str) -> None:
        await self.control.forget_agent(hermes_session)

    async def forget_person(self, user_id: str) -> None:
        await self.control.forget_person(user_id)

    async def state(self, run_id: str) -> RunSnapshot:
        return await snapshot(self.ctx, run_id)

    async def is_running(self, run_id: str) -> bool:
        """Whether the run's answer is stored RUNNING (False for a run never heard of)."""
        return await self.ctx.in_thread(lambda db: store.is_running(db, run_id))

    def active_run_ids(self) -> list[str]:
        return list(self.ctx.active)

    async def memory(self, session_id: int) -> MemoryView:
        return await self._memory.read(session_id)

    async def put_memory(self, session_id: int, memory: str | None, user: str | None) -> MemoryView:
        return await self._memory.write(session_id, memory, user)

    async def agent_memory(self, owner: str | None = None) -> MemoryView:
        return await self._memory.read_agent(owner)

    async def put_agent_memory(
        self, memory: str | None, user: str | None, owner: str | None = None
    ) -> MemoryView:
        return await self._memory.write_agent(memory, user, owner)

    async def steer(self, run_id: str, text: str, owner_id: int | None = None) -> None:
        await steering.steer(self.ctx, run_id, text, owner_id)

    async def recover(self) -> list[str]:
        return await self.recovery.recover()

    async def sweep_orphans(self, only: list[str] | None = None) -> list[str]:
        return await self.recovery.sweep_orphans(only)

    async def settle(self) -> None:
        await self.recovery.settle()

    async def shutdown(self, grace_s: float = 0.0) -> None:
        await self.recovery.shutdown(grace_s)
