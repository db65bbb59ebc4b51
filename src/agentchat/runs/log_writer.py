"""Batched writer of chat_message_log rows: 50 rows or 200 ms, whichever comes first.

One writer per process, so SQLite sees one writer and every flush is one short transaction
with a single executemany INSERT.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from typing import Any

import anyio
from sqlalchemy import insert

from agentchat.chat.tables import ChatMessageLog
from agentchat.core.clock import utcnow
from agentchat.core.database import Database
from agentchat.events.contract import NodeEvent

log = logging.getLogger(__name__)


class LogWriter:
    def __init__(self, database: Database, max_rows: int = 50, max_delay: float = 0.2) -> None:
        self._database = database
        self._max_rows = max_rows
        self._max_delay = max_delay
        self._pending: list[dict[str, Any]] = []
        self._wake = asyncio.Event()
        self._appended = 0
        self._written = 0
        self._progress = asyncio.Condition()
        self._task: asyncio.Task[None] | None = None
        self.rows_written = 0
        self.batches_written = 0
        self._insert = insert(ChatMessageLog)

    def append(self, message_id: int, seq: int, event: NodeEvent) -> None:
        """Queue one log line of a run (a node event other than an answer delta)."""
        meta = event.wire().get("meta")
        self._pending.append(
            {
                "message_id": message_id,
                "seq": seq,
                "kind": event.kind,
                "content": event.content,
                "tool_name": getattr(event, "tool_name", None),
                "meta_json": json.dumps(meta, ensure_ascii=False) if meta else None,
                "created_at": utcnow(),
            }
        )
        self._appended += 1
        if len(self._pending) >= self._max_rows:
            self._wake.set()
        if self._task is None or self._task.done():
            self._task = asyncio.get_running_loop().create_task(self._run())

    async def flush(self) -> None:
        """Return once every row appended before this call is in the database."""
        target = self._appended
        if self._written >= target:
            return
        self._wake.set()
        async with self._progress:
            await self._progress.wait_for(lambda: self._written >= target)

    async def close(self) -> None:
        await self.flush()
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task

    async def _run(self) -> None:
        while True:
            if not self._pending:
                self._wake.clear()
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self._wake.wait(), timeout=5.0)
                if not self._pending:
                    continue
            if len(self._pending) < self._max_rows:
                self._wake.clear()
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self._wake.wait(), timeout=self._max_delay)
            batch, self._pending = self._pending, []
            try:
                await anyio.to_thread.run_sync(self._write, batch)
            except Exception:
                log.exception("could not write %d log rows", len(batch))
            self._written += len(batch)
            async with self._progress:
                self._progress.notify_all()

    def _write(self, batch: list[dict[str, Any]]) -> None:
        # SQLAlchemy Core, not an ORM session: one executemany in one short transaction.
        with self._database.engine.begin() as conn:
            conn.execute(self._insert, batch)
        self.rows_written += len(batch)
        self.batches_written += 1
