"""Ids are never given twice: a chat, a message, a log line or a model deleted as the newest
leaves its id unused, so an old link or a stale tab to /chat/61 never opens another chat (SQLite
gave the highest rowid again: migration 0009 makes those tables AUTOINCREMENT; PostgreSQL's
sequences and MariaDB's AUTO_INCREMENT never go back)."""

from __future__ import annotations

from pathlib import Path

import pytest
from sqlalchemy import create_engine, select, text

from agentchat.chat import sessions
from agentchat.chat.search import session_matches
from agentchat.chat.tables import ChatMessageLog, ChatSession
from agentchat.core.database import Database
from agentchat.migrations import downgrade, upgrade
from agentchat.models.tables import AiModelConfig
from tests.chat.seed import add, add_logs, conversation, new_session
from tests.support.databases import fresh_database_url

INTEGRITY_CHECK = "INSERT INTO chat_message_fts(chat_message_fts) VALUES('integrity-check')"


def _delete_chat(db: Database, chat: int) -> None:
    with db.session() as s:
        sessions.delete_session(s, sessions.get_session(s, chat))


def _chat_with_a_log(db: Database, title: str) -> tuple[int, int, int]:
    chat = new_session(db, title)
    _, answer = conversation(db, chat, 1)
    add_logs(db, answer, ("thinking", "hmm", None, None))
    with db.session() as s:
        log = s.scalars(select(ChatMessageLog.id).where(ChatMessageLog.message_id == answer)).one()
    return chat, answer, log


def test_the_newest_chat_deleted_leaves_its_ids_unused(any_database: Database) -> None:
    new_session(any_database, "older")
    chat, answer, log = _chat_with_a_log(any_database, "newest")
    _delete_chat(any_database, chat)
    again, again_answer, again_log = _chat_with_a_log(any_database, "next")
    assert again > chat
    assert again_answer > answer
    assert again_log > log


def test_the_newest_model_deleted_leaves_its_id_unused(any_database: Database) -> None:
    with any_database.session() as s:
        model = AiModelConfig(name="m1", provider="openai", base_url="https://x.example/v1")
        model.model_name = "m"
        s.add(model)
        s.flush()
        first = model.id
        s.delete(model)
    with any_database.session() as s:
        second = AiModelConfig(name="m2", provider="openai", base_url="https://x.example/v1")
        second.model_name = "m"
        s.add(second)
        s.flush()
        assert second.id > first


def test_an_upgraded_sqlite_file_keeps_its_chats_and_search_and_reuses_no_id(
    tmp_path: Path,
) -> None:
    url = fresh_database_url("sqlite", tmp_path, "ids_0008", migrate=False)
    upgrade(url, "0008_full_unicode")
    kept, newest, newest_message = 1, 2, 2
    _old_chat(url, kept, "kept", 1, "bouchons in Lyon")  # SQL: the schema of 0008, not the ORM's
    _old_chat(url, newest, "newest", newest_message, "the newest question")
    db = Database(url)
    try:
        upgrade(url)
        _delete_chat(db, newest)
        again = new_session(db, "again")
        assert again > newest
        assert add(db, again, None, "USER", "tartiflette recipes") > newest_message
        with db.session() as s:
            found = s.scalars(select(ChatSession.title).where(session_matches(s, "bouchons")))
            assert list(found) == ["kept"]
            found = s.scalars(select(ChatSession.title).where(session_matches(s, "tartiflette")))
            assert list(found) == ["again"]
            s.execute(text(INTEGRITY_CHECK))
    finally:
        db.dispose()


def _old_chat(url: str, chat: int, title: str, message: int, content: str) -> None:
    database = Database(url)  # its connections have the SQL functions the search triggers call
    try:
        with database.engine.begin() as conn:
            conn.execute(
                text(
                    "INSERT INTO chat_session (id, session_uuid, title, status, created_at, "
                    "updated_at, activity_at) VALUES (:id, :uuid, :title, 'ACTIVE', "
                    "CURRENT_TIMESTAMP, CURRENT_TIMESTAMP, CURRENT_TIMESTAMP)"
                ),
                {"id": chat, "uuid": f"s{chat}", "title": title},
            )
            conn.execute(
                text(
                    "INSERT INTO chat_message (id, session_id, role, content, status, created_at) "
                    "VALUES (:id, :chat, 'USER', :content, 'SENT', CURRENT_TIMESTAMP)"
                ),
                {"id": message, "chat": chat, "content": content},
            )
    finally:
        database.dispose()


@pytest.mark.db
def test_0009_goes_down_and_up_again_on_sqlite(tmp_path: Path) -> None:
    url = fresh_database_url("sqlite", tmp_path, "ids_down")
    db = Database(url)
    try:
        chat = new_session(db, "kept")
        add(db, chat, None, "USER", "bouchons in Lyon")
    finally:
        db.dispose()
    downgrade(url, "0008_full_unicode")
    engine = create_engine(url)
    try:
        with engine.connect() as conn:
            tables = conn.execute(text("SELECT sql FROM sqlite_master WHERE name='chat_session'"))
            assert "AUTOINCREMENT" not in tables.scalar_one()
    finally:
        engine.dispose()
    upgrade(url)
    db = Database(url)
    try:
        with db.session() as s:
            found = s.scalars(select(ChatSession.title).where(session_matches(s, "bouchons")))
            assert list(found) == ["kept"]
    finally:
        db.dispose()
