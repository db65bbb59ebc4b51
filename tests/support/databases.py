"""Real databases for tests and benchmarks: a fresh, migrated schema per worker and dialect.

PostgreSQL (127.0.0.1:5432, database `test`) gets one schema per worker; MariaDB
(127.0.0.1:3306, root) one database per worker. A server that cannot be reached fails the
test: nothing is skipped silently.
"""

from __future__ import annotations

import os
from pathlib import Path

from sqlalchemy import create_engine, text

from agentchat.core.database import Database
from agentchat.migrations import upgrade
from agentchat.migrations.tables import Base

PG_SERVER = os.environ.get("AGENTCHAT_TEST_PG", "postgresql+psycopg://postgres@127.0.0.1:5432/test")
MY_SERVER = os.environ.get("AGENTCHAT_TEST_MYSQL", "mysql+pymysql://root@127.0.0.1:3306/test")
DIALECTS = ("sqlite", "postgresql", "mariadb")


def worker_tag() -> str:
    """Schema name part: AGENTCHAT_TEST_NS keeps parallel checkouts off each other's schemas."""
    worker = os.environ.get("PYTEST_XDIST_WORKER", "main")
    return (os.environ.get("AGENTCHAT_TEST_NS", "") + worker).replace("-", "_")


def fresh_database_url(
    dialect: str, tmp_dir: Path, tag: str | None = None, *, migrate: bool = True
) -> str:
    """Create an empty schema for this worker, run the migrations on it (unless `migrate` is
    false), return its URL."""
    name = f"ac_{tag or worker_tag()}"
    if dialect == "sqlite":
        path = tmp_dir / f"{name}.db"
        path.unlink(missing_ok=True)
        url = f"sqlite:///{path}"
    elif dialect == "postgresql":
        admin = create_engine(PG_SERVER, isolation_level="AUTOCOMMIT")
        with admin.connect() as conn:
            conn.execute(text(f"DROP SCHEMA IF EXISTS {name} CASCADE"))
            conn.execute(text(f"CREATE SCHEMA {name}"))
        admin.dispose()
        url = f"{PG_SERVER}?options=-csearch_path%3D{name}"
    elif dialect == "mariadb":
        admin = create_engine(MY_SERVER, isolation_level="AUTOCOMMIT")
        with admin.connect() as conn:
            conn.execute(text(f"DROP DATABASE IF EXISTS {name}"))
            conn.execute(text(f"CREATE DATABASE {name} CHARACTER SET utf8mb4"))
        admin.dispose()
        url = MY_SERVER.rsplit("/", 1)[0] + f"/{name}?charset=utf8mb4"
    else:
        raise ValueError(dialect)
    if migrate:
        upgrade(url)
    return url


def drop_database(dialect: str, tag: str) -> None:
    """Remove what `fresh_database_url(dialect, ..., tag=tag)` created on a server (a bench
    leaves no schema behind); SQLite files go with their temporary folder."""
    name = f"ac_{tag}"
    if dialect == "postgresql":
        statement, server = f"DROP SCHEMA IF EXISTS {name} CASCADE", PG_SERVER
    elif dialect == "mariadb":
        statement, server = f"DROP DATABASE IF EXISTS {name}", MY_SERVER
    else:
        return
    admin = create_engine(server, isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.execute(text(statement))
    admin.dispose()


def clear_tables(database: Database) -> None:
    """Empty every table (children first) so the next test starts clean; on SQLite ids start
    at 1 again (a test may compare a file that names them)."""
    with database.session() as session:
        session.execute(text("UPDATE chat_message SET parent_id = NULL"))
        for table in reversed(Base.metadata.sorted_tables):
            session.execute(table.delete())
        if session.get_bind().dialect.name == "sqlite":
            session.execute(text("DELETE FROM sqlite_sequence"))
