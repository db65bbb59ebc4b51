from sqlalchemy import inspect

from agentchat.core.database import Database


def test_migrations_create_every_table(any_database: Database) -> None:
    names = set(inspect(any_database.engine).get_table_names())
    assert {
        "chat_session",
        "chat_message",
        "chat_message_log",
        "workflow_pause",
        "ai_model_config",
    } <= names


def test_sqlite_runs_with_wal_foreign_keys_and_busy_timeout(database: Database) -> None:
    with database.engine.connect() as conn:
        assert conn.exec_driver_sql("PRAGMA journal_mode").scalar() == "wal"
        assert conn.exec_driver_sql("PRAGMA foreign_keys").scalar() == 1
        assert conn.exec_driver_sql("PRAGMA busy_timeout").scalar() == 10000
