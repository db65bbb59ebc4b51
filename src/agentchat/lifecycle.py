"""Start-up and shut-down of the API's shared services: the local stack, the default model,
the sample skills, the event bus, the run service.

With a Redis URL several API processes share the runs: each refreshes the owner keys of the
runs it drives (heartbeat), takes steering requests for them on its control channel, and sweeps
RUNNING answers whose owner is gone, at start-up and every few seconds. Without one there is one
process, and start-up fails every RUNNING answer."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import anyio
from fastapi import FastAPI

from agentchat.accounts.broadcast import RevocationChannel
from agentchat.accounts.gate import AccountsGate
from agentchat.accounts.shared_agent import hand_over_at_start
from agentchat.accounts.users import adopt_at_start
from agentchat.bridge_client.workers import BridgeWorkers
from agentchat.core.database import Database
from agentchat.core.settings import Settings
from agentchat.events.bus import EventBus
from agentchat.events.control_bus import ControlBus
from agentchat.events.factory import make_bus
from agentchat.gc_freeze import freeze_startup_heap, thaw_heap
from agentchat.local_stack import LocalStack
from agentchat.migrations.on_start import migration_lock
from agentchat.models.service import ensure_default_model, update_builtin_base_url
from agentchat.private_files import private_data_dir
from agentchat.runs.cluster.bus_watch import PROBE_S
from agentchat.runs.cluster.file_owners import FileRunOwners
from agentchat.runs.cluster.owners import HEARTBEAT_S, Owners, RunOwners
from agentchat.runs.drive.log_writer import LogWriter
from agentchat.runs.periodic import Periodic
from agentchat.runs.service import RunService
from agentchat.runtime import BridgeStatus
from agentchat.shutdown_deadline import ShutdownDeadline
from agentchat.skills.service import install_samples

log = logging.getLogger(__name__)
SWEEP_S = 3.0


def prepare_data(settings: Settings, database: Database, scripted_url: str | None) -> None:
    private_data_dir(settings.data_dir)  # however it was made before
    install_samples(settings.resolved_skills_dir)
    with migration_lock(database.engine), database.session() as session:  # one first start
        ensure_default_model(session, settings, scripted_url)
        adopt_at_start(session)  # chats a process without accounts made meanwhile
        hand_over_at_start(session, settings.resolved_hermes_home)  # and the agent's memory
        if scripted_url:
            update_builtin_base_url(session, scripted_url)


def _bridges(settings: Settings, stack: LocalStack) -> BridgeWorkers:
    urls = settings.bridge_urls or ([stack.bridge_url] if stack.bridge_url else [])
    secret = settings.bridge_secret.get_secret_value() if settings.bridge_secret else None
    return BridgeWorkers(urls or ["http://127.0.0.1:9"], secret or stack.bridge_secret)


def _follow_moves(stack: LocalStack, bridges: BridgeWorkers) -> None:
    """A restarted local bridge that came back on another port or secret: route there (on
    the event loop; the supervisor tells it from its thread)."""
    loop = asyncio.get_running_loop()

    def moved(url: str, secret: str) -> None:
        loop.call_soon_threadsafe(bridges.repoint, [url], secret)

    stack.on_bridge_moved(moved)


def _bus(settings: Settings) -> EventBus:
    if settings.redis_url:
        return make_bus(settings.redis_url, prefix=settings.redis_prefix)
    return make_bus(None)


def _owners(settings: Settings) -> tuple[Owners, ControlBus | None]:
    """With Redis: the owner keys of runs, and the control channel named by the owner token
    (steering requests for the runs this process drives come on it). Without: locks in the
    data folder, for the processes on this machine that share it."""
    if not settings.redis_url:
        return FileRunOwners(settings.data_dir.resolve() / "run-owners"), None
    owners = RunOwners.from_url(settings.redis_url, settings.redis_prefix)
    return owners, ControlBus.from_url(settings.redis_url, settings.redis_prefix, owners.token)


def _loops(runs: RunService, owners: Owners) -> list[Periodic]:
    """The sweeper (ends whose write failed, orphans; every few seconds, with several
    processes at once too) and, with Redis, the owner heartbeat and the bus watch's probe."""
    shared = isinstance(owners, RunOwners)
    sweep = Periodic(runs.settle, SWEEP_S, "run-sweeper", at_once=shared)
    if not shared:
        return [sweep]
    return [
        Periodic(runs.bus_watch.probe, PROBE_S, "event-bus-watch"),
        Periodic(runs.heartbeat, HEARTBEAT_S, "run-owner-heartbeat"),
        sweep,
    ]


@asynccontextmanager
async def lifespan(app: FastAPI) -> AsyncIterator[None]:
    settings: Settings = app.state.settings
    database: Database = app.state.db
    status: BridgeStatus = app.state.bridge_status
    stack = LocalStack(settings, status)
    await anyio.to_thread.run_sync(stack.start)
    settings.scripted_llm_url = stack.scripted_url  # runs resolve the demo model to it
    if settings.bridge_survives_api is None and stack.bridge_url:
        settings.bridge_survives_api = stack.bridge_survives_api  # runs detach at shutdown
    try:
        await anyio.to_thread.run_sync(prepare_data, settings, database, stack.scripted_url)
        bridges, bus = _bridges(settings, stack), _bus(settings)
        _follow_moves(stack, bridges)
        owners, control_bus = _owners(settings)
        runs = RunService(
            database, bus, bridges, LogWriter(database), settings, owners, status, control_bus
        )
        loops = _loops(runs, owners)
        failed = [] if isinstance(owners, RunOwners) else await runs.recover()
        if failed:
            log.warning("stored %d answers no bridge holds any more as interrupted", len(failed))
        for loop in loops:
            loop.start()
        await runs.listen()
        gate: AccountsGate = app.state.accounts
        if settings.redis_url:  # ended sessions are told to every API process
            await gate.listen(RevocationChannel(settings.redis_url, settings.redis_prefix))
        app.state.runs = runs
        app.state.bridges = bridges  # the Tools page asks them about MCP servers
        app.state.forget_agent = runs.forget_agent  # a deleted chat's agent (chat.agent_forget)
        app.state.forget_person = runs.forget_person  # a deleted person's agent memory
        deadline = ShutdownDeadline(settings.shutdown_grace_s)
        deadline.watch_signals()
        freeze_startup_heap()
        yield
        thaw_heap()
        for loop in loops:  # owner keys outlive the heartbeat by their TTL: enough to finish
            await loop.close()
        await runs.shutdown(deadline.remaining())  # still taking steering meanwhile
        if control_bus is not None:
            await control_bus.aclose()
        await gate.aclose()
        await owners.aclose()
        await bus.close()
        await bridges.aclose()
    finally:
        await anyio.to_thread.run_sync(stack.stop)
