"""Long texts are stored deflated on SQLite (migration 0007) and read, searched, previewed and
exported exactly as they were written, on every database."""

from __future__ import annotations

import json
from pathlib import Path

import httpx
import pytest
from sqlalchemy import create_engine, select, text, update

from agentchat.chat.search import session_matches
from agentchat.chat.tables import ChatMessage, ChatMessageLog, ChatSession
from agentchat.core.database import Database
from agentchat.migrations import downgrade, upgrade
from tests.chat.raw_seed import seed_chain
from tests.chat.seed import add, add_logs, new_session
from tests.support.databases import fresh_database_url, worker_tag

PROSE = (
    "The bouchons of Vieux-Lyon serve quenelles and tablier de sapeur; walk up the Fourvière "
    "hill afterwards, where the basilica looks over the Saône and the Rhône. "
) * 4
CJK = "周末去里昂吃什么。" * 30 + " and a few English words to go with them"
INTEGRITY_CHECK = (
    "INSERT INTO chat_message_fts(chat_message_fts, rank) VALUES ('integrity-check', 1)"
)


def _found(db: Database, q: str) -> set[int]:
    """The sessions the search finds (their ids only: the schema may be older than the ORM's)."""
    with db.session() as s:
        return set(s.scalars(select(ChatSession.id).where(session_matches(s, q))))


def _stored(db: Database, table: str, column: str, row_id: int) -> tuple[str, object]:
    """(SQLite storage class or 'text', raw value) of one stored value."""
    with db.engine.connect() as conn:
        if db.dialect == "sqlite":
            row = conn.execute(
                text(f"SELECT typeof({column}), {column} FROM {table} WHERE id = :id"),
                {"id": row_id},
            ).one()
            return str(row[0]), row[1]
        return "text", conn.execute(
            text(f"SELECT {column} FROM {table} WHERE id = :id"), {"id": row_id}
        ).scalar_one()


def test_long_texts_are_read_back_exactly(any_database: Database) -> None:
    db = any_database
    chat = new_session(db, "Lyon")
    question = add(db, chat, None, "USER", PROSE)
    answer = add(db, chat, question, "ASSISTANT", PROSE[::-1], agent_messages=f'["{PROSE}"]')
    add_logs(db, answer, ("tool_result", PROSE, "web", {"args": {"q": PROSE}}))

    kind, raw = _stored(db, "chat_message", "content", question)
    if db.dialect == "sqlite":
        assert kind == "blob" and isinstance(raw, bytes) and len(raw) < len(PROSE) / 2
    else:
        assert raw == PROSE  # PostgreSQL and MariaDB compress by themselves
    with db.session() as s:
        assert s.get(ChatMessage, question).content == PROSE
        stored = s.get(ChatMessage, answer)
        assert stored.content == PROSE[::-1] and stored.agent_messages == f'["{PROSE}"]'
        (line,) = s.query(ChatMessageLog).filter_by(message_id=answer).all()
        assert line.content == PROSE and json.loads(line.meta_json or "") == {"args": {"q": PROSE}}


def test_words_of_deflated_messages_are_found_and_the_index_holds(any_database: Database) -> None:
    db = any_database
    chat = new_session(db, "Trip")
    add(db, chat, None, "USER", PROSE)
    assert _found(db, "quenelles basilica") == {chat}
    assert _found(db, "saône") == {chat}
    assert _found(db, "nowhere") == set()
    if db.dialect == "sqlite":
        with db.engine.connect() as conn:
            conn.execute(text(INTEGRITY_CHECK))  # the index holds words, not deflated bytes


def test_a_message_in_an_unspaced_script_stays_searchable_by_substring(
    any_database: Database,
) -> None:
    db = any_database
    chat, other = new_session(db, "Weekend"), new_session(db, "Other")
    message = add(db, chat, None, "USER", CJK)
    add(db, other, None, "USER", PROSE)
    assert _stored(db, "chat_message", "content", message)[0] == "text"
    assert _found(db, "里昂") == {chat}
    assert _found(db, "吃什么 english") == {chat}
    assert _found(db, "海豚") == set()


async def test_the_list_previews_and_the_export_give_the_text(
    client: httpx.AsyncClient, database: Database
) -> None:
    chat = new_session(database, "Export")
    add(database, chat, None, "USER", PROSE)
    older = new_session(database, "Older")  # a session whose active leaf is not recorded
    add(database, older, None, "USER", PROSE.upper())
    with database.session() as s:
        s.execute(update(ChatSession).where(ChatSession.id == older).values(active_leaf_id=None))

    listed = (await client.get("/api/chat/sessions")).json()["items"]
    previews = {c["id"]: c["lastMessagePreview"] for c in listed}
    assert previews[chat].startswith("The bouchons of Vieux-Lyon serve quenelles")
    assert previews[older].startswith("THE BOUCHONS OF VIEUX-LYON")
    messages = (await client.get(f"/api/chat/sessions/{chat}/messages")).json()["messages"]
    assert [m["content"] for m in messages] == [PROSE]
    exported = await client.get(f"/api/chat/sessions/{chat}/export?format=json")
    assert PROSE in exported.json()["messages"][0]["content"]
    markdown = await client.get(f"/api/chat/sessions/{chat}/export?format=md")
    assert "tablier de sapeur" in markdown.text


# Migration 0007, SQLite: rows written before stay readable and found; a downgrade gives the
# older code TEXT everywhere and 0006's index.


@pytest.mark.db
def test_0007_keeps_older_rows_and_downgrades_to_text(tmp_path: Path) -> None:
    url = fresh_database_url("sqlite", tmp_path, f"{worker_tag()}_packed", migrate=False)
    upgrade(url, "0006_search_skips_running")
    seed_chain(url, [(1, "USER", PROSE, "SENT")])
    upgrade(url)  # through 0007 to today's schema, which the code below writes with

    db = Database(url)
    try:
        assert _stored(db, "chat_message", "content", 1)[0] == "text"
        assert _found(db, "quenelles") == {1}
        newer = add(db, 1, 1, "ASSISTANT", PROSE.upper())
        assert _stored(db, "chat_message", "content", newer)[0] == "blob"
        assert _found(db, "QUENELLES basilica") == {1}
    finally:
        db.dispose()

    downgrade(url, "0006_search_skips_running")
    engine = create_engine(url)  # a plain connection, as the older code has: no function
    try:
        with engine.begin() as conn:
            kinds = conn.execute(text("SELECT id, typeof(content), content FROM chat_message"))
            assert [(r[0], r[1], r[2]) for r in kinds] == [
                (1, "text", PROSE),
                (newer, "text", PROSE.upper()),
            ]
            conn.execute(text(INTEGRITY_CHECK))
            hits = conn.execute(
                text("SELECT rowid FROM chat_message_fts WHERE chat_message_fts MATCH 'basilica'")
            )
            assert sorted(r[0] for r in hits) == [1, newer]
            conn.execute(
                text("UPDATE chat_message SET status = 'FAILED' WHERE id = :id"), {"id": newer}
            )
    finally:
        engine.dispose()
