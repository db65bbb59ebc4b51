"""Deleting a chat takes its words out of the database and, on SQLite, gives its pages back:
the FTS5 index used to keep a deleted message's tokens (a 'delete' only adds a tombstone
segment) and the file never shrank. On SQLite, PostgreSQL and MariaDB."""

from __future__ import annotations

from sqlalchemy import text

from agentchat.chat import sessions
from agentchat.core.database import Database
from tests.chat.seed import add, new_session
from tests.reliability.helpers import wait_for

WORD = "wombatwhistle"


def _found(db: Database, q: str) -> set[int]:
    with db.session() as s:
        return {c.id for c in sessions.list_sessions(s, "ALL", q, 200, None).sessions}


def _chat_about(db: Database, word: str, size: int = 1) -> int:
    chat = new_session(db, f"About {word}")
    question = add(db, chat, None, "USER", f"Tell me about the {word}.")
    add(db, chat, question, "ASSISTANT", f"The {word} is rare. " + "Lorem ipsum dolor. " * size)
    return chat


def _delete(db: Database, chat: int) -> None:
    with db.session() as s:
        sessions.delete_session(s, sessions.get_session(s, chat))


def _index_holds(db: Database, word: str) -> bool:
    with db.engine.connect() as conn:
        blocks = conn.execute(text("SELECT block FROM chat_message_fts_data")).scalars()
        return any(word.encode() in (block or b"") for block in blocks)


def _free_pages(db: Database) -> int:
    with db.engine.connect() as conn:
        return int(conn.execute(text("PRAGMA freelist_count")).scalar_one())


def test_a_deleted_chat_is_no_longer_found_and_others_still_are(any_database: Database) -> None:
    kept = _chat_about(any_database, "pangolin")
    gone = _chat_about(any_database, WORD)
    assert _found(any_database, WORD) == {gone}

    _delete(any_database, gone)

    assert _found(any_database, WORD) == set()
    assert _found(any_database, "pangolin") == {kept}
    if any_database.dialect != "sqlite":
        assert any_database.scrubber is None  # the server reclaims space itself


def test_sqlite_drops_a_deleted_chats_tokens_and_its_free_pages(database: Database) -> None:
    _chat_about(database, "pangolin")
    gone = [_chat_about(database, f"{WORD}{i}", size=400) for i in range(20)]
    assert _index_holds(database, WORD)

    for chat in gone:
        _delete(database, chat)

    wait_for(
        lambda: (_index_holds(database, WORD), _free_pages(database)),
        lambda state: state == (False, 0),
        timeout=30,
        what="the index without the deleted words, and no free page left in the file",
    )
    assert _found(database, "pangolin") and not _found(database, WORD)
