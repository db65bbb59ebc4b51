"""Migration 0005c (issue 17, bytes per message) on SQLite, PostgreSQL and MariaDB: the
redundant session index is gone, the RUNNING index is partial where the database has partial
indexes, PostgreSQL's search index writes straight into its posting lists, MariaDB's message
table is compressed; saved messages stay whole and searchable, and it downgrades."""

from __future__ import annotations

from pathlib import Path

import pytest
from sqlalchemy import create_engine, inspect, text

from agentchat.chat.search import search_words
from agentchat.migrations import downgrade, upgrade
from tests.chat.raw_seed import seed_chain
from tests.support.databases import DIALECTS, fresh_database_url

PREVIOUS = "0005b_bridge_event_id"
TEXT = "zanzibarite questions about streaming answers"


def _state(url: str, dialect: str) -> dict[str, object]:
    engine = create_engine(url)
    try:
        indexes = {i["name"] for i in inspect(engine).get_indexes("chat_message")}
        with engine.connect() as conn:
            contents = conn.execute(text("SELECT content FROM chat_message ORDER BY id")).all()
            found = conn.execute(text(_search_sql(dialect)), {"q": _query(dialect)}).all()
            # a stopword: MariaDB's index was built without the stopword list (0003)
            stopword = conn.execute(
                text(_search_sql(dialect)), {"q": _query(dialect, "about")}
            ).all()
            running = conn.execute(
                text("SELECT id FROM chat_message WHERE status = 'RUNNING'")
            ).all()
        return {
            "indexes": indexes,
            "contents": [r[0] for r in contents],
            "found": sorted(r[0] for r in found),
            "stopword": sorted(r[0] for r in stopword),
            "running": [r[0] for r in running],
        }
    finally:
        engine.dispose()


def _query(dialect: str, query: str = "zanzibarite") -> str:
    words = search_words(query)
    if dialect == "sqlite":
        return " AND ".join(f'"{w}"*' for w in words)
    if dialect == "postgresql":
        return " & ".join(f"'{w}':*" for w in words)
    return " ".join(f"+{w}*" for w in words)


def _search_sql(dialect: str) -> str:
    if dialect == "sqlite":
        return "SELECT rowid FROM chat_message_fts WHERE chat_message_fts MATCH :q"
    if dialect == "postgresql":
        return (
            "SELECT id FROM chat_message WHERE to_tsvector('simple'::regconfig, "
            "left(content, 100000)) @@ to_tsquery('simple'::regconfig, :q)"
        )
    return "SELECT id FROM chat_message WHERE MATCH (content) AGAINST (:q IN BOOLEAN MODE)"


def _options(url: str, dialect: str) -> str:
    engine = create_engine(url)
    try:
        with engine.connect() as conn:
            if dialect == "postgresql":
                row = conn.execute(
                    text(
                        "SELECT reloptions FROM pg_class WHERE relname = 'ix_chat_message_fts' "
                        "AND relnamespace = current_schema()::regnamespace"
                    )
                ).scalar_one()
                return ",".join(row or [])
            if dialect == "mariadb":
                return str(
                    conn.execute(
                        text(
                            "SELECT row_format FROM information_schema.tables WHERE "
                            "table_schema = DATABASE() AND table_name = 'chat_message'"
                        )
                    ).scalar_one()
                )
            return str(
                conn.execute(
                    text("SELECT sql FROM sqlite_master WHERE name = 'idx_chat_message_status'")
                ).scalar_one()
            )
    finally:
        engine.dispose()


@pytest.mark.db
@pytest.mark.parametrize("dialect", DIALECTS)
def test_0005c_shrinks_the_message_table_and_keeps_what_was_saved(
    dialect: str, tmp_path: Path
) -> None:
    url = fresh_database_url(dialect, tmp_path, "size_migration", migrate=False)
    upgrade(url, PREVIOUS)
    seed_chain(
        url, [(n, "USER", f"{TEXT} {n}", status) for n, status in ((1, "SENT"), (2, "RUNNING"))]
    )
    before = _state(url, dialect)
    assert "idx_chat_message_session" in before["indexes"]

    upgrade(url, "0005c_message_size")
    after = _state(url, dialect)
    assert "idx_chat_message_session" not in after["indexes"]
    assert "idx_chat_message_status" in after["indexes"]
    assert {k: v for k, v in after.items() if k != "indexes"} == {
        k: v for k, v in before.items() if k != "indexes"
    }
    assert after["found"] == after["stopword"] == [1, 2] and after["running"] == [2]
    options = _options(url, dialect)
    expected = {"sqlite": "WHERE status = 'RUNNING'", "postgresql": "fastupdate=off"}
    assert expected.get(dialect, "Compressed") in options

    downgrade(url, PREVIOUS)
    back = _state(url, dialect)
    assert back == before
