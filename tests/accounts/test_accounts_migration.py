"""Migration 0010 on SQLite, PostgreSQL and MariaDB with chats and models in place: they keep
everything, without an owner; the first account then takes every chat (approvals with it),
and the models become its shared ones; down and up again."""

from __future__ import annotations

from pathlib import Path

import pytest
from sqlalchemy import create_engine, inspect, text

from agentchat.accounts import users
from agentchat.core.database import Database
from agentchat.migrations import downgrade, upgrade
from tests.support.databases import DIALECTS, fresh_database_url, worker_tag

BEFORE = "0009_ids_never_reused"
_CHAT = text(
    "INSERT INTO chat_session (session_uuid, title, status, created_at, updated_at, "
    "activity_at, approvals) VALUES (:uuid, :title, 'ACTIVE', CURRENT_TIMESTAMP, "
    "CURRENT_TIMESTAMP, CURRENT_TIMESTAMP, '[\"rm -rf build\"]')"
)
_MODEL = text(
    "INSERT INTO ai_model_config (name, provider, base_url, model_name, context_length, "
    "is_default, is_builtin, created_at, updated_at) VALUES ('old model', 'openai-compatible', "
    "'http://127.0.0.1:9/v1', 'm', 8192, :yes, :no, CURRENT_TIMESTAMP, CURRENT_TIMESTAMP)"
)
NEW_TABLES = {"app_user", "account_session", "account_token", "audit_event"}


@pytest.mark.db
@pytest.mark.parametrize("dialect", DIALECTS)
def test_0010_keeps_the_chats_and_models_and_the_first_account_takes_them(
    dialect: str, tmp_path: Path
) -> None:
    url = fresh_database_url(dialect, tmp_path, f"{worker_tag()}_accounts", migrate=False)
    upgrade(url, BEFORE)
    engine = create_engine(url)
    with engine.begin() as conn:
        for i in range(3):
            conn.execute(_CHAT, {"uuid": f"u-{i}", "title": f"chat {i}"})
        conn.execute(_MODEL, {"yes": True, "no": False})
    try:
        upgrade(url)
        assert set(inspect(engine).get_table_names()) >= NEW_TABLES
        with engine.connect() as conn:
            owners = conn.execute(text("SELECT owner_id FROM chat_session")).scalars().all()
            model = conn.execute(text("SELECT name, owner_id FROM ai_model_config")).one()
        assert owners == [None, None, None] and tuple(model) == ("old model", None)

        database = Database(url)
        try:
            with database.session() as db:
                admin = users.create_user(db, "Ada", "a long password", "user")
                admin_id, role = admin.id, admin.role
        finally:
            database.dispose()
        assert role == "admin"  # the first account is the administrator, whatever was asked
        with engine.connect() as conn:
            rows = conn.execute(text("SELECT title, owner_id, approvals FROM chat_session"))
            chats = sorted(tuple(r) for r in rows)
            model_owner = conn.execute(text("SELECT owner_id FROM ai_model_config")).scalar()
        assert chats == [(f"chat {i}", admin_id, '["rm -rf build"]') for i in range(3)]
        assert model_owner is None  # shared: the administrator's, offered to everyone

        downgrade(url, BEFORE)
        assert not NEW_TABLES & set(inspect(engine).get_table_names())
        upgrade(url)
        with engine.connect() as conn:
            assert conn.execute(text("SELECT count(*) FROM chat_session")).scalar() == 3
    finally:
        engine.dispose()
