"""Alembic environment: the URL comes from the caller (agentchat.migrations.upgrade)."""

from __future__ import annotations

from alembic import context
from sqlalchemy.engine import Connection

from agentchat.core.database import make_engine
from agentchat.migrations import rerunnable  # noqa: F401  (MariaDB: steps that can run again)
from agentchat.migrations.tables import Base

config = context.config
target_metadata = Base.metadata


def run_migrations_online() -> None:
    connectable = config.attributes.get("connection")
    if connectable is not None:
        _migrate(connectable)  # the caller's connection and transaction: used as given
        return
    engine = make_engine(config.get_main_option("sqlalchemy.url") or "")
    with engine.connect() as connection:
        _run(connection)
    engine.dispose()


def _run(connection: Connection) -> None:
    sqlite = connection.dialect.name == "sqlite"
    if sqlite:
        _foreign_keys(connection, on=False)
    try:
        _migrate(connection)
    finally:
        if sqlite:
            _foreign_keys(connection, on=True)


def _foreign_keys(connection: Connection, *, on: bool) -> None:
    """SQLite's batch mode rebuilds a table (copy, DROP, rename): with foreign keys on, the
    DROP of a parent such as chat_session would cascade into every message. The pragma only
    takes effect outside a transaction, so it goes to the driver's connection directly."""
    raw = connection.connection.driver_connection
    assert raw is not None
    raw.execute(f"PRAGMA foreign_keys={'ON' if on else 'OFF'}")


def _migrate(connection: Connection) -> None:
    context.configure(
        connection=connection,
        target_metadata=target_metadata,
        render_as_batch=True,
        compare_type=True,
    )
    with context.begin_transaction():
        context.run_migrations()


run_migrations_online()
