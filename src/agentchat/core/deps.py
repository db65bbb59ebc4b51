"""Request-scoped dependencies: one transaction per request, owned here."""

from __future__ import annotations

import asyncio
import weakref
from collections.abc import AsyncIterator
from typing import Annotated

import anyio
from fastapi import Depends, Request
from sqlalchemy.orm import Session

from agentchat.core.database import Database
from agentchat.core.settings import Settings


def get_database(request: Request) -> Database:
    db: Database = request.app.state.db
    return db


def get_settings_dep(request: Request) -> Settings:
    settings: Settings = request.app.state.settings
    return settings


_ends: anyio.CapacityLimiter | None = None
_slots: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, asyncio.Semaphore] = (
    weakref.WeakKeyDictionary()
)
REQUEST_SLOTS = 10  # below the connection pool and the 40 worker threads


def _end_limiter() -> anyio.CapacityLimiter:
    """Threads for ending transactions only, so a commit never queues behind request threads."""
    global _ends
    if _ends is None:
        _ends = anyio.CapacityLimiter(8)
    return _ends


def _request_slots() -> asyncio.Semaphore:
    loop = asyncio.get_running_loop()
    if loop not in _slots:
        _slots[loop] = asyncio.Semaphore(REQUEST_SLOTS)
    return _slots[loop]


async def get_db(database: Annotated[Database, Depends(get_database)]) -> AsyncIterator[Session]:
    """One transaction per request. Requests wait for a slot in the event loop, not in a worker
    thread: a transaction holds the database's write lock (SQLite has one writer) until it
    ends, and if every worker thread waited for that lock, the holder could never get a thread
    to finish its response and commit."""
    async with _request_slots():
        session = database.sessionmaker()
        try:
            yield session
            await anyio.to_thread.run_sync(session.commit, limiter=_end_limiter())
        except BaseException:
            await anyio.to_thread.run_sync(session.rollback, limiter=_end_limiter())
            raise
        finally:
            await anyio.to_thread.run_sync(session.close, limiter=_end_limiter())


# scope="function": commit before the response goes out, so a client that acts on the
# response at once (a new id, say) always finds the row.
DbSession = Annotated[Session, Depends(get_db, scope="function")]
DatabaseDep = Annotated[Database, Depends(get_database)]
SettingsDep = Annotated[Settings, Depends(get_settings_dep)]
