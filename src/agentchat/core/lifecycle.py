"""Start-up and shut-down of the API's shared services: the local stack, the default model,
the sample skills, the event bus, the run service."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import anyio
from fastapi import FastAPI

from agentchat.core.database import Database
from agentchat.core.local_stack import LocalStack
from agentchat.core.settings import Settings
from agentchat.events.factory import make_bus
from agentchat.models.service import ensure_default_model, update_builtin_base_url
from agentchat.runs.bridges import BridgeRouter
from agentchat.runs.log_writer import LogWriter
from agentchat.runs.service import RunService
from agentchat.skills.service import install_samples

log = logging.getLogger(__name__)


def _prepare_data(settings: Settings, database: Database, scripted_url: str | None) -> None:
    settings.data_dir.mkdir(parents=True, exist_ok=True)
    install_samples(settings.resolved_skills_dir)
    with database.session() as session:
        ensure_default_model(session, settings, scripted_url)
        if scripted_url:
            update_builtin_base_url(session, scripted_url)


@asynccontextmanager
async def lifespan(app: FastAPI) -> AsyncIterator[None]:
    settings: Settings = app.state.settings
    database: Database = app.state.db
    stack = LocalStack(settings)
    await anyio.to_thread.run_sync(stack.start)
    try:
        await anyio.to_thread.run_sync(_prepare_data, settings, database, stack.scripted_url)
        urls = settings.bridge_urls or ([stack.bridge_url] if stack.bridge_url else [])
        secret = settings.bridge_secret.get_secret_value() if settings.bridge_secret else None
        bridges = BridgeRouter(urls or ["http://127.0.0.1:9"], secret or stack.bridge_secret)
        bus = make_bus(settings.redis_url)
        runs = RunService(database, bus, bridges, LogWriter(database), settings)
        failed = await runs.recover() if not settings.redis_url else []
        if failed:
            log.warning("marked %d interrupted answers as failed", len(failed))
        app.state.runs = runs
        app.state.local_stack = stack
        yield
        await runs.shutdown()
        await bus.close()
        await bridges.aclose()
    finally:
        await anyio.to_thread.run_sync(stack.stop)
