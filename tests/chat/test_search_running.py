"""A streaming answer stays out of the search index until it ends (migration 0006).

The log writer checkpoints a RUNNING answer's whole text every 200 ms; re-indexing it each time
was quadratic work. A RUNNING answer is not found by its words on any database; it is found
once its status is anything else, and the index follows later edits and deletes.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import Connection, create_engine, delete, select, text, update
from sqlalchemy.dialects import postgresql

from agentchat.chat.search import session_matches
from agentchat.chat.tables import ChatMessage, ChatSession
from agentchat.core.database import Database
from agentchat.migrations import downgrade, upgrade
from tests.chat.raw_seed import seed_chain
from tests.chat.seed import add, new_session, start_run
from tests.support.databases import DIALECTS, fresh_database_url, worker_tag

PREVIOUS = "0005c_message_size"
INTEGRITY_CHECK = (
    "INSERT INTO chat_message_fts(chat_message_fts, rank) VALUES ('integrity-check', 1)"
)


def _found(db: Database, q: str) -> set[int]:
    """The sessions the search finds (their ids only: the schema may be older than the ORM's)."""
    with db.session() as s:
        return set(s.scalars(select(ChatSession.id).where(session_matches(s, q))))


def _checkpoint(db: Database, message_id: int, content: str) -> None:
    """What the log writer writes while the answer streams."""
    with db.session() as s:
        s.execute(
            update(ChatMessage)
            .where(ChatMessage.id == message_id, ChatMessage.status == "RUNNING")
            .values(content=content)
        )


def _set(db: Database, message_id: int, **values: str) -> None:
    with db.session() as s:
        s.execute(update(ChatMessage).where(ChatMessage.id == message_id).values(**values))


def _delete(db: Database, message_id: int) -> None:
    with db.session() as s:
        s.execute(delete(ChatMessage).where(ChatMessage.id == message_id))


def _stream(db: Database, message_id: int, *words: str) -> str:
    """Checkpoints of a growing answer; the last text."""
    so_far = ""
    for word in words:
        so_far = f"{so_far} {word}".strip()
        _checkpoint(db, message_id, so_far)
    return so_far


def test_a_running_answer_is_found_once_it_ends(any_database: Database) -> None:
    db = any_database
    chat = new_session(db, "Travel")
    question = add(db, chat, None, "USER", "Where should I go?")
    answer = start_run(db, chat, question)
    _stream(db, answer, "Visit", "Zanzibar", "and", "its", "beaches")
    assert _found(db, "zanzibar") == set()
    assert _found(db, "where") == {chat}

    _set(db, answer, content="Visit Zanzibar and its beaches.", status="SUCCESS")
    assert _found(db, "zanzibar beaches") == {chat}

    _set(db, answer, content="Visit Madagascar instead.")
    assert _found(db, "madagascar") == {chat}
    assert _found(db, "zanzibar") == set()

    _delete(db, answer)
    assert _found(db, "madagascar") == set()
    assert _found(db, "where") == {chat}


@pytest.mark.parametrize("end", ["STOPPED", "INTERRUPTED", "FAILED"])
def test_an_answer_that_ends_without_new_text_is_found(any_database: Database, end: str) -> None:
    db = any_database
    chat = new_session(db, "Geology")
    answer = start_run(db, chat, add(db, chat, None, "USER", "Tell me about rocks"))
    _stream(db, answer, "Obsidian", "is", "volcanic", "glass")
    assert _found(db, "obsidian") == set()

    _set(db, answer, status=end)  # a stop or a restart's sweep: the status alone changes
    assert _found(db, "obsidian volcanic") == {chat}
    _delete(db, answer)
    assert _found(db, "obsidian") == set()


def test_sqlite_index_matches_the_messages_through_a_run(database: Database) -> None:
    db = database

    def index_hits(word: str) -> list[int]:
        with db.engine.connect() as conn:
            conn.execute(text(INTEGRITY_CHECK))  # raises if the index and the rows differ
            hits = conn.execute(
                text("SELECT rowid FROM chat_message_fts WHERE chat_message_fts MATCH :q"),
                {"q": f'"{word}"*'},
            )
            return [r[0] for r in hits]

    chat = new_session(db, "Stars")
    question = add(db, chat, None, "USER", "Which stars are nearest?")
    answer = start_run(db, chat, question)
    assert index_hits("nearest") == [question]
    so_far = _stream(db, answer, *(f"proxima{n}" for n in range(30)))
    assert index_hits("proxima") == []

    # A 'rebuild' (the way to repair an FTS5 index) while the answer streams keeps it out too,
    # so the triggers' 'delete' later is given exactly what was indexed.
    with db.engine.begin() as conn:
        conn.execute(text("INSERT INTO chat_message_fts(chat_message_fts) VALUES ('rebuild')"))
    assert index_hits("proxima") == []
    _checkpoint(db, answer, f"{so_far} centauri")

    _set(db, answer, status="SUCCESS")
    assert index_hits("proxima") == [answer]
    assert index_hits("centauri") == [answer]
    _set(db, answer, content="Barnard's star")
    assert index_hits("proxima") == []
    assert index_hits("barnard") == [answer]
    _delete(db, answer)
    assert index_hits("barnard") == []
    assert index_hits("nearest") == [question]


def _gin_size(conn: Connection) -> int:
    return int(conn.execute(text("SELECT pg_relation_size('ix_chat_message_fts')")).scalar_one())


@pytest.mark.db
def test_postgresql_checkpoints_leave_the_search_index_alone(tmp_path: Path) -> None:
    db = Database(fresh_database_url("postgresql", tmp_path, f"{worker_tag()}_running_gin"))
    try:
        chat = new_session(db, "Long answer")
        answer = start_run(db, chat, add(db, chat, None, "USER", "Write a lot"))
        with db.engine.connect() as conn:
            before = _gin_size(conn)
        _stream(db, answer, *(f"word{n} other{n} more{n}" for n in range(300)))
        with db.engine.connect() as conn:
            assert _gin_size(conn) == before
        _set(db, answer, status="SUCCESS")
        assert _found(db, "word299 other150") == {chat}
    finally:
        db.dispose()


@pytest.mark.db
def test_postgresql_search_uses_the_partial_index(tmp_path: Path) -> None:
    db = Database(fresh_database_url("postgresql", tmp_path, f"{worker_tag()}_running_plan"))
    try:
        with db.session() as s:
            query = select(ChatSession.id).where(session_matches(s, "zanzibar beaches"))
            sql = str(
                query.compile(dialect=postgresql.dialect(), compile_kwargs={"literal_binds": True})
            )
            s.execute(text("SET LOCAL enable_seqscan = off"))
            plan = "\n".join(r[0] for r in s.execute(text(f"EXPLAIN {sql}")))
        assert "ix_chat_message_fts" in plan, plan
    finally:
        db.dispose()


# The migration, on each database: from 0005c up to 0006 and back.

SEED = (  # id, role, content, status
    (1, "USER", "zanzibarite question", "SENT"),
    (2, "ASSISTANT", "zanzibarite answer", "SUCCESS"),
    (3, "USER", "another zanzibarite question", "SENT"),
    (4, "ASSISTANT", "zanzibarite streaming", "RUNNING"),
)


def _index_state(url: str, dialect: str) -> dict[str, list[Any]]:
    """How the search index is defined, and which messages it finds by a word."""
    engine = create_engine(url)
    try:
        with engine.connect() as conn:
            if dialect == "sqlite":
                conn.execute(text(INTEGRITY_CHECK))
                schema = conn.execute(
                    text(
                        "SELECT type, name, sql FROM sqlite_master WHERE name LIKE "
                        "'chat_message_fts%' OR type IN ('view', 'trigger') ORDER BY name"
                    )
                ).all()
                found = conn.execute(
                    text("SELECT rowid FROM chat_message_fts WHERE chat_message_fts MATCH :q"),
                    {"q": '"zanzibarite"*'},
                ).all()
            elif dialect == "postgresql":
                schema = conn.execute(
                    text(
                        "SELECT i.indexdef, c.reloptions FROM pg_indexes i JOIN pg_class c "
                        "ON c.relname = i.indexname AND c.relnamespace = current_schema()"
                        "::regnamespace WHERE i.schemaname = current_schema() "
                        "AND i.indexname = 'ix_chat_message_fts'"
                    )
                ).all()
                found = conn.execute(
                    text(
                        "SELECT id FROM chat_message WHERE status <> 'RUNNING' AND "
                        "to_tsvector('simple'::regconfig, left(content, 100000)) @@ "
                        "to_tsquery('simple'::regconfig, 'zanzibarite:*')"
                    )
                ).all()
            else:
                schema = conn.execute(
                    text(
                        "SELECT index_name, index_type, column_name FROM "
                        "information_schema.statistics WHERE table_schema = DATABASE() "
                        "AND table_name = 'chat_message' AND index_name = 'ix_chat_message_fts'"
                    )
                ).all()
                found = conn.execute(
                    text(
                        "SELECT id FROM chat_message WHERE MATCH (content) "
                        "AGAINST ('+zanzibarite*' IN BOOLEAN MODE)"
                    )
                ).all()
        return {"schema": [tuple(r) for r in schema], "found": sorted(r[0] for r in found)}
    finally:
        engine.dispose()


def _app_finds(url: str) -> tuple[set[int], set[int]]:
    db = Database(url)
    try:
        return _found(db, "zanzibarite"), _found(db, "streaming")
    finally:
        db.dispose()


@pytest.mark.db
@pytest.mark.parametrize("dialect", DIALECTS)
def test_0006_takes_running_answers_out_of_the_index_and_downgrades(
    dialect: str, tmp_path: Path
) -> None:
    url = fresh_database_url(dialect, tmp_path, f"{worker_tag()}_running_migration", migrate=False)
    upgrade(url, PREVIOUS)
    seed_chain(url, list(SEED))
    before = _index_state(url, dialect)

    upgrade(url, "0006_search_skips_running")
    after = _index_state(url, dialect)
    upgrade(url)  # the application searches a schema at its head (0013: the title's key)
    assert _app_finds(url) == ({1}, set())
    if dialect == "sqlite":
        assert after["found"] == [1, 2, 3]  # the RUNNING answer left the index
        assert ("view", "chat_message_searchable") in [row[:2] for row in after["schema"]]
    elif dialect == "postgresql":
        [(indexdef, options)] = after["schema"]
        assert "WHERE ((status)::text <> 'RUNNING'::text)" in indexdef
        assert options == ["fastupdate=off"]
    else:
        assert after == before  # InnoDB FULLTEXT indexes cannot be partial: the query filters

    _set_status(url, 4, "SUCCESS")
    assert _app_finds(url) == ({1}, {1})
    _set_status(url, 4, "RUNNING")

    downgrade(url, PREVIOUS)
    assert _index_state(url, dialect) == before
    upgrade(url, "0006_search_skips_running")
    assert _index_state(url, dialect) == after


def _set_status(url: str, message_id: int, status: str) -> None:
    db = Database(url)  # its SQLite connections know the functions later triggers call (0007)
    with db.engine.begin() as conn:
        conn.execute(update(ChatMessage).where(ChatMessage.id == message_id).values(status=status))
    db.dispose()
