"""Batched writer of chat_message_log rows: 50 rows or 200 ms, whichever comes first.

One writer per process, so SQLite sees one writer and every flush is one short transaction
with a single executemany INSERT. The same transaction checkpoints the text of the answers
being streamed (`checkpoint`), so a crash keeps what the page had shown, a batch behind.
A batch the database refuses (a full disk) is kept and tried again with the next one, up to
`max_kept` rows, so what a person saw is written once the database takes writes again. A batch
refused for what one of its rows holds (`never_taken`: its answer deleted meanwhile) is written
row by row and that row dropped: retrying it would hold back every later row of the process.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from typing import Any

import anyio
from sqlalchemy import bindparam, insert, update
from sqlalchemy.exc import DataError, IntegrityError

from agentchat.chat.tables import ChatMessage, ChatMessageLog
from agentchat.core.clock import utcnow
from agentchat.core.database import Database
from agentchat.protocol.events import NodeEvent
from agentchat.protocol.status import RunStatus

log = logging.getLogger(__name__)
REFUSED_RETRY_MAX_S = 5.0


class LogWriter:
    def __init__(
        self,
        database: Database,
        max_rows: int = 50,
        max_delay: float = 0.2,
        max_kept: int = 100_000,
    ) -> None:
        self._database = database
        self._max_rows = max_rows
        self._max_delay = max_delay
        self._max_kept = max_kept
        self._refused = 0  # batches refused in a row
        self._pending: list[dict[str, Any]] = []
        self._answers: dict[int, list[str]] = {}  # message id -> the run's answer parts
        self._marks: dict[int, int | None] = {}  # message id -> the bridge event reached
        self._wake = asyncio.Event()
        self._appended = 0
        self._written = 0
        self._progress = asyncio.Condition()
        self._task: asyncio.Task[None] | None = None
        self.rows_written = 0
        self.batches_written = 0
        self._insert = insert(ChatMessageLog)
        self._checkpoint = (
            update(ChatMessage)
            .where(ChatMessage.id == bindparam("mid"), ChatMessage.status == RunStatus.RUNNING)
            .values(content=bindparam("text"), bridge_event_id=bindparam("eid"))
        )

    def append(
        self, message_id: int, seq: int, event: NodeEvent, body: dict[str, Any] | None = None
    ) -> None:
        """Queue one log line of a run (a node event other than an answer delta); `body` is
        the event's `wire()` when the caller has it already (it is not dumped twice)."""
        meta = (event.wire() if body is None else body).get("meta")
        self._pending.append(
            {
                "message_id": message_id,
                "seq": seq,
                "kind": event.kind,
                "content": event.content,
                # from the fields, not getattr: a missing attribute costs pydantic an exception
                "tool_name": event.__dict__.get("tool_name"),
                "meta_json": json.dumps(meta, ensure_ascii=False) if meta else None,
                "created_at": utcnow(),
            }
        )
        self._appended += 1
        self._poke(full=len(self._pending) >= self._max_rows)

    def checkpoint(self, message_id: int, parts: list[str], event_id: int | None = None) -> None:
        """Store the answer's text so far (the parts joined) and the bridge event id the run
        reached with the next batch, while the answer is RUNNING. Called after every event
        of the run, so the rows, the text and the id written together always agree."""
        if message_id not in self._answers:
            self._appended += 1
        self._answers[message_id] = parts
        self._marks[message_id] = event_id
        self._poke(full=False)

    def _poke(self, full: bool) -> None:
        if full or len(self._pending) + len(self._answers) == 1:
            self._wake.set()  # the writer may be idle: start the batch's delay now
        if self._task is None or self._task.done():
            self._task = asyncio.get_running_loop().create_task(self._run())

    async def flush(self) -> None:
        """Return once every row appended before this call is in the database, or at once
        while the database refuses writes (the rows are kept for the next try)."""
        if self._refused:
            return
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
            if not self._pending and not self._answers:
                self._wake.clear()
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self._wake.wait(), timeout=5.0)
                if not self._pending and not self._answers:
                    continue
            if self._refused:  # the database refuses writes: try again less and less often
                await asyncio.sleep(min(REFUSED_RETRY_MAX_S, 0.25 * 2 ** (self._refused - 1)))
            elif len(self._pending) < self._max_rows:
                self._wake.clear()
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self._wake.wait(), timeout=self._max_delay)
            batch, self._pending = self._pending, []
            marks, self._marks = self._marks, {}
            answers = [
                {"mid": m, "text": "".join(p), "eid": marks.get(m)}
                for m, p in self._answers.items()
            ]
            self._answers = {}
            left = await self._store(batch, answers)
            if left is not None:
                self._keep(*left, marks)
            else:
                if self._refused:
                    log.warning("the database takes writes again after %d refusals", self._refused)
                self._refused = 0
            self._written += len(batch) + len(answers)
            async with self._progress:
                self._progress.notify_all()

    async def _store(
        self, batch: list[dict[str, Any]], answers: list[dict[str, Any]]
    ) -> tuple[list[dict[str, Any]], list[dict[str, Any]]] | None:
        """Write a batch; what is left to keep for the next try, or None when all is done."""
        try:
            await anyio.to_thread.run_sync(self._write, batch, answers)
        except Exception as exc:
            if not never_taken(exc):
                return batch, answers
            # One row the database will never take: it must not hold back the others.
            return await anyio.to_thread.run_sync(self._write_each, batch, answers)
        return None

    def _keep(
        self,
        batch: list[dict[str, Any]],
        answers: list[dict[str, Any]],
        marks: dict[int, int | None],
    ) -> None:
        """A refused batch goes back in front of the queue (a newer checkpoint of the same
        answer wins over the refused one); beyond `max_kept` rows the oldest are dropped."""
        if not self._refused:
            log.exception("the database refused %d log rows; they are kept", len(batch))
        self._refused += 1
        self._pending = batch + self._pending
        for answer in answers:
            mid = answer["mid"]
            if mid not in self._answers:
                self._answers[mid] = [answer["text"]]
                self._marks[mid] = marks.get(mid)
        excess = len(self._pending) - self._max_kept
        if excess > 0:
            log.error(
                "dropped %d log rows the database refused (more than %d kept)",
                excess,
                self._max_kept,
            )
            del self._pending[:excess]

    def _write_each(
        self, batch: list[dict[str, Any]], answers: list[dict[str, Any]]
    ) -> tuple[list[dict[str, Any]], list[dict[str, Any]]] | None:
        """After a batch refused for what it holds (a row for an answer deleted meanwhile, text
        the database cannot store): each row in a transaction of its own, and a row refused
        again is dropped, so it cannot hold back every later row of this process. At a refusal
        of another kind (the disk full again) the rows not written yet are returned, to keep."""
        for kind, rows, statement in (
            ("batch", batch, self._insert),
            ("answers", answers, self._checkpoint),
        ):
            for n, row in enumerate(rows):
                try:
                    with self._database.engine.begin() as conn:
                        conn.execute(statement, [row])
                except Exception as exc:
                    if not never_taken(exc):
                        log.exception("the database refused a log row")
                        return (batch[n:], answers) if kind == "batch" else ([], answers[n:])
                    log.error("dropped a log row the database refuses: %s", _one_line(exc))
                else:
                    self.rows_written += kind == "batch"
        self.batches_written += 1
        return None

    def _write(self, batch: list[dict[str, Any]], answers: list[dict[str, Any]]) -> None:
        # SQLAlchemy Core, not an ORM session: one executemany in one short transaction.
        with self._database.engine.begin() as conn:
            if batch:
                conn.execute(self._insert, batch)
            if answers:
                conn.execute(self._checkpoint, answers)
        self.rows_written += len(batch)
        self.batches_written += 1


def never_taken(exc: BaseException) -> bool:
    """A refusal for what a row holds, which no retry changes: a value the column cannot store
    (DataError), or an answer that is gone (a foreign key). A full disk, a lock or a lost
    connection is not one of these."""
    if isinstance(exc, DataError):
        return True
    return isinstance(exc, IntegrityError) and "foreign key" in str(exc.orig).lower()


def _one_line(exc: Exception) -> str:
    return " ".join(str(exc).split())[:300]
