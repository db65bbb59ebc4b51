"""Migration 0005b on SQLite, PostgreSQL and MariaDB: chat_message.bridge_event_id (the bridge
event a running answer's stored state reaches) comes and goes, rows kept."""

from __future__ import annotations

from pathlib import Path

import pytest
from sqlalchemy import Engine, create_engine, inspect, text

from agentchat.migrations import downgrade, upgrade
from tests.support.databases import DIALECTS, fresh_database_url, worker_tag

_SESSION = text(
    "INSERT INTO chat_session (id, session_uuid, title, status, created_at, updated_at, "
    "activity_at) VALUES (1, 'u-1', 't', 'ACTIVE', CURRENT_TIMESTAMP, CURRENT_TIMESTAMP, "
    "CURRENT_TIMESTAMP)"
)
_MESSAGE = text(
    "INSERT INTO chat_message (id, session_id, role, content, status, created_at) "
    "VALUES (1, 1, 'ASSISTANT', 'so far', 'RUNNING', CURRENT_TIMESTAMP)"
)


def _columns(engine: object) -> set[str]:
    return {c["name"] for c in inspect(engine).get_columns("chat_message")}  # type: ignore[arg-type]


@pytest.mark.db
@pytest.mark.parametrize("dialect", DIALECTS)
def test_0005b_adds_and_drops_the_bridge_event_id(dialect: str, tmp_path: Path) -> None:
    url = fresh_database_url(dialect, tmp_path, f"{worker_tag()}_event_id", migrate=False)
    upgrade(url, "0004")
    engine = create_engine(url)
    try:
        with engine.begin() as conn:
            conn.execute(_SESSION)
            conn.execute(_MESSAGE)
        upgrade(url, "0005b_bridge_event_id")
        with engine.begin() as conn:
            conn.execute(text("UPDATE chat_message SET bridge_event_id = 42 WHERE id = 1"))
            row = conn.execute(text("SELECT content, bridge_event_id FROM chat_message")).one()
        assert tuple(row) == ("so far", 42)
        if dialect == "mariadb":  # its FULLTEXT index was rebuilt: stopwords stay searchable
            _assert_found_by_a_stopword(engine)
        downgrade(url, "0004")
        engine.dispose()
        assert "bridge_event_id" not in _columns(engine)
        with engine.connect() as conn:
            assert conn.execute(text("SELECT content FROM chat_message")).scalar() == "so far"
    finally:
        engine.dispose()


def _assert_found_by_a_stopword(engine: Engine) -> None:
    match = "MATCH (content) AGAINST ('+about*' IN BOOLEAN MODE)"
    with engine.begin() as conn:  # InnoDB indexes the text at commit
        conn.execute(text("UPDATE chat_message SET content = 'all about food' WHERE id = 1"))
    with engine.begin() as conn:
        assert conn.execute(text(f"SELECT id FROM chat_message WHERE {match}")).scalar() == 1
        conn.execute(text("UPDATE chat_message SET content = 'so far' WHERE id = 1"))
