"""Migration 0005 on SQLite, PostgreSQL and MariaDB: a chat's toolsets and its "allow for this
chat" approvals, NULL for the chats that exist (all toolsets, nothing allowed), up and down."""

from __future__ import annotations

from pathlib import Path

import pytest
from sqlalchemy import create_engine, inspect, text

from agentchat.migrations import downgrade, upgrade
from tests.support.databases import DIALECTS, fresh_database_url

_INSERT = text(
    "INSERT INTO chat_session (session_uuid, title, status, created_at, updated_at, "
    "activity_at) VALUES ('u-1', 'old chat', 'ACTIVE', CURRENT_TIMESTAMP, CURRENT_TIMESTAMP, "
    "CURRENT_TIMESTAMP)"
)


def _columns(engine: object) -> set[str]:
    return {c["name"] for c in inspect(engine).get_columns("chat_session")}  # type: ignore[arg-type]


@pytest.mark.db
@pytest.mark.parametrize("dialect", DIALECTS)
def test_0005_adds_the_chats_toolsets_and_approvals(dialect: str, tmp_path: Path) -> None:
    url = fresh_database_url(dialect, tmp_path, "session_toolsets", migrate=False)
    upgrade(url, "0004")
    engine = create_engine(url)
    with engine.begin() as conn:
        conn.execute(_INSERT)
    try:
        upgrade(url)
        with engine.connect() as conn:
            row = conn.execute(text("SELECT title, toolsets, approvals FROM chat_session")).one()
        assert tuple(row) == ("old chat", None, None)
        with engine.begin() as conn:
            conn.execute(text("""UPDATE chat_session SET toolsets = '["todo"]'"""))
        downgrade(url, "0004")
        assert not {"toolsets", "approvals"} & _columns(engine)
        with engine.connect() as conn:
            assert conn.execute(text("SELECT title FROM chat_session")).scalar() == "old chat"
    finally:
        engine.dispose()
