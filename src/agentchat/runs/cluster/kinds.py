"""How this API process shares its runs with the other processes: one interface, `Cluster`,
with two kinds, chosen once at start by `make_cluster` (the only place that asks whether a
Redis URL is set; nothing else tells the kinds apart).

- `LocalCluster` (no Redis): the processes on one machine that share a data folder. The bus is
  in this process (`InProcessEventBus`), who drives a run is a file lock (`FileRunOwners`), no
  request is forwarded to another process and nobody else hears of a revocation; at start,
  the RUNNING answers of a stopped process are recovered (re-attached or interrupted), then a
  sweeper looks again every few seconds.
- `RedisCluster`: several API processes anywhere. The bus is Redis Streams, the owner of a
  run an expiring Redis key refreshed by a heartbeat, steering a run another process drives
  goes over the control channel (`Remote`), revocations over pub/sub; the sweeper starts at
  once and judges other processes' runs only while the bus answers (the bus watch's probe).
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Protocol

from agentchat.core.settings import Settings
from agentchat.events.broadcast import Broadcast, NoBroadcast, RedisBroadcast
from agentchat.events.bus import EventBus
from agentchat.events.control_bus import ControlBus
from agentchat.events.in_process import InProcessEventBus
from agentchat.events.redis_bus import RedisEventBus
from agentchat.events.redis_health import redis_problem
from agentchat.runs.cluster.bus_watch import PROBE_S
from agentchat.runs.cluster.file_owners import FileRunOwners
from agentchat.runs.cluster.owners import HEARTBEAT_S, Owners, RunOwners
from agentchat.runs.cluster.remote import Remote
from agentchat.runs.cluster.remote_ops import control_handler
from agentchat.runs.periodic import Periodic

if TYPE_CHECKING:
    from agentchat.runs.service import RunService

log = logging.getLogger(__name__)
SWEEP_S = 3.0


class Cluster(Protocol):
    """What the run service and the accounts gate get from the kind of deployment."""

    bus: EventBus
    owners: Owners
    remote: Remote | None  # steering runs that other API processes drive
    revocations: Broadcast  # the accounts gate's ended sessions, told to every process

    def loops(self, runs: RunService) -> list[Periodic]:
        """The background rounds this kind needs (not started)."""
        ...

    async def join(self, runs: RunService) -> None:
        """Take this process's place beside the others, before the loops start."""
        ...

    def problem(self) -> str | None:
        """Why answers cannot stream now (the shared bus does not answer), for /api/health;
        None when they can. Blocks for a moment: call it from a worker thread."""
        ...

    async def aclose(self) -> None:
        """Close what the cluster opened (after the run service has shut down)."""
        ...


class LocalCluster:
    def __init__(self, settings: Settings, bus: EventBus | None = None) -> None:
        """`bus`: a bus of the caller's (tests, benchmarks); else one in this process."""
        self.bus: EventBus = bus or InProcessEventBus()
        self.owners: Owners = FileRunOwners(settings.data_dir.resolve() / "run-owners")
        self.remote: Remote | None = None
        self.revocations: Broadcast = NoBroadcast()

    def loops(self, runs: RunService) -> list[Periodic]:
        return [Periodic(runs.settle, SWEEP_S, "run-sweeper")]

    async def join(self, runs: RunService) -> None:
        """The RUNNING answers of a process that stopped: re-attached, or interrupted."""
        failed = await runs.recover()
        if failed:
            log.warning("stored %d answers no bridge holds any more as interrupted", len(failed))

    def problem(self) -> str | None:
        return None  # the bus is this process's own

    async def aclose(self) -> None:
        await self.owners.aclose()
        await self.bus.close()


class RedisCluster:
    def __init__(self, url: str, prefix: str) -> None:
        self._url = url
        self.bus: EventBus = RedisEventBus.from_url(url, prefix=prefix)
        owners = RunOwners.from_url(url, prefix)
        self.owners: Owners = owners
        # Steering requests for the runs this process drives come on the channel named by its
        # owner token.
        self._control = ControlBus.from_url(url, prefix, owners.token)
        self.remote: Remote | None = Remote(self._control, owners)
        self.revocations: Broadcast = RedisBroadcast(url, f"{prefix}accounts:revoked")

    def loops(self, runs: RunService) -> list[Periodic]:
        return [
            Periodic(runs.bus_watch.probe, PROBE_S, "event-bus-watch"),
            Periodic(runs.heartbeat, HEARTBEAT_S, "run-owner-heartbeat"),
            Periodic(runs.settle, SWEEP_S, "run-sweeper", at_once=True),
        ]

    async def join(self, runs: RunService) -> None:
        """Take steering requests from the other processes (the sweeper, started at once,
        finds the runs of processes that stopped)."""
        await self._control.start(control_handler(runs.control))

    def problem(self) -> str | None:
        return redis_problem(self._url)

    async def aclose(self) -> None:
        await self._control.aclose()
        await self.revocations.aclose()
        await self.owners.aclose()
        await self.bus.close()


def make_cluster(settings: Settings) -> Cluster:
    """The one choice of kind, at start."""
    if settings.redis_url:
        return RedisCluster(settings.redis_url, settings.redis_prefix)
    return LocalCluster(settings)
