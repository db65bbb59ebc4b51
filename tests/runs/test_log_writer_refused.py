"""The log writer when the database refuses a batch (a full disk): the rows a person saw are
kept and written once the database takes writes again, not dropped."""

from __future__ import annotations

import asyncio

from sqlalchemy import text

from agentchat.chat.schemas import SessionCreate
from agentchat.chat.sessions import create_session
from agentchat.chat.tree import append_message
from agentchat.core.database import Database
from agentchat.protocol.events import Status, Thinking
from agentchat.runs.drive.log_writer import LogWriter

REFUSE = """CREATE TRIGGER refuse_logs BEFORE INSERT ON chat_message_log
BEGIN SELECT RAISE(ABORT, 'database or disk is full'); END"""


def _answer(database: Database) -> int:
    with database.session() as db:
        chat = create_session(db, SessionCreate())
        question = append_message(db, chat.id, None, "USER", "q", "SENT")
        answer = append_message(db, chat.id, question.id, "ASSISTANT", "", "RUNNING")
        return int(answer.id)


def _stored(database: Database, message_id: int) -> tuple[list[str], str]:
    with database.engine.connect() as conn:
        rows = conn.execute(
            text("SELECT content FROM chat_message_log WHERE message_id = :m ORDER BY seq"),
            {"m": message_id},
        ).scalars()
        content = conn.execute(
            text("SELECT content FROM chat_message WHERE id = :m"), {"m": message_id}
        ).scalar()
        return list(rows), content or ""


async def test_a_refused_batch_is_written_once_the_database_takes_writes(
    database: Database,
) -> None:
    message_id = _answer(database)
    writer = LogWriter(database, max_delay=0.01)
    with database.engine.begin() as conn:
        conn.execute(text(REFUSE))
    try:
        writer.append(message_id, 1, Thinking(content="seen thought"))
        writer.checkpoint(message_id, ["seen ", "text"])
        await writer.flush()  # tried: the database refused it
        assert _stored(database, message_id) == ([], "")
        with database.engine.begin() as conn:
            conn.execute(text("DROP TRIGGER refuse_logs"))  # the disk has room again
        writer.append(message_id, 2, Status(content="later"))
        expected = (["seen thought", "later"], "seen text")
        async with asyncio.timeout(10):  # the writer tries again by itself
            while _stored(database, message_id) != expected:
                await asyncio.sleep(0.05)
        await writer.flush()  # writes go through again: flush waits for them as before
    finally:
        await writer.close()


async def test_rows_the_database_will_never_take_do_not_hold_back_the_others(
    any_database: Database,
) -> None:
    """A row whose answer was deleted meanwhile (its chat deleted as the run started, on
    PostgreSQL or MariaDB) failed its batch for ever, and every later row of the process with
    it: those rows are dropped, one at a time, and the rest are written."""
    db = any_database
    live, gone = _answer(db), _answer(db)
    with db.engine.begin() as conn:
        conn.execute(text("UPDATE chat_message SET parent_id = NULL WHERE id = :m"), {"m": gone})
        conn.execute(text("DELETE FROM chat_message WHERE id = :m"), {"m": gone})
    writer = LogWriter(db, max_delay=0.01)
    try:
        writer.append(gone, 1, Thinking(content="for an answer that is gone"))
        writer.append(live, 1, Thinking(content="kept"))
        writer.checkpoint(live, ["text"])
        await writer.flush()
        assert _stored(db, live) == (["kept"], "text")
        writer.append(live, 2, Status(content="later"))
        await writer.flush()
        assert _stored(db, live) == (["kept", "later"], "text")
    finally:
        await writer.close()
