"""Start-up and shut-down of the API's shared services: the local stack, the default model,
the sample skills, the event bus, the run service.

How this process shares its runs with others (the bus, run owners, steering, revocations, the
background rounds) is the cluster's, chosen once here: one machine, or several processes over
Redis (`agentchat.runs.cluster.kinds`)."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import anyio
from fastapi import FastAPI

from agentchat.accounts.gate import AccountsGate
from agentchat.accounts.shared_agent import hand_over_at_start
from agentchat.accounts.users import adopt_at_start
from agentchat.bridge_client.workers import BridgeWorkers
from agentchat.core.database import Database
from agentchat.core.settings import Settings
from agentchat.gc_freeze import freeze_startup_heap, thaw_heap
from agentchat.local_stack import LocalStack
from agentchat.migrations.on_start import migration_lock
from agentchat.models.service import ensure_default_model, update_builtin_base_url
from agentchat.private_files import private_data_dir
from agentchat.runs.cluster.kinds import make_cluster
from agentchat.runs.drive.log_writer import LogWriter
from agentchat.runs.service import RunService
from agentchat.runtime import Runtime
from agentchat.shutdown_deadline import ShutdownDeadline
from agentchat.skills.service import install_samples

log = logging.getLogger(__name__)


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


@asynccontextmanager
async def lifespan(app: FastAPI) -> AsyncIterator[None]:
    settings: Settings = app.state.settings
    database: Database = app.state.db
    runtime: Runtime = app.state.runtime
    stack = LocalStack(settings, runtime.bridge_status)
    await anyio.to_thread.run_sync(stack.start)
    # Runs resolve the demo model to this scripted model, and detach at shutdown from a bridge
    # that outlives the API.
    runtime.started(settings, stack.scripted_url, local_bridge=stack.bridge_url is not None)
    try:
        await anyio.to_thread.run_sync(prepare_data, settings, database, stack.scripted_url)
        bridges, cluster = _bridges(settings, stack), make_cluster(settings)
        _follow_moves(stack, bridges)
        runs = RunService(
            database,
            cluster.bus,
            bridges,
            LogWriter(database),
            settings,
            cluster.owners,
            runtime,
            cluster.remote,
        )
        loops = cluster.loops(runs)
        await cluster.join(runs)
        for loop in loops:
            loop.start()
        gate: AccountsGate = app.state.accounts
        await gate.listen(cluster.revocations)  # ended sessions are told to every API process
        app.state.runs = runs
        runtime.bus_problem = cluster.problem  # /api/health: does the shared bus answer?
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
        await cluster.aclose()
        await bridges.aclose()
    finally:
        await anyio.to_thread.run_sync(stack.stop)
