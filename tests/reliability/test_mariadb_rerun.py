"""Issue 33: MariaDB cannot roll back DDL, so a migration that failed half-way (the server
gone, a right missing, the process killed) kept the tables and columns it had made while
alembic_version stayed behind; the next `serve` failed for ever on "Table ... already exists".
Each migration step is now re-runnable there: what exists is taken as done."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from sqlalchemy import create_engine, text
from sqlalchemy.exc import OperationalError

from agentchat.migrations import upgrade
from agentchat.migrations.on_start import head_revisions
from tests.support.databases import MY_SERVER, drop_database, fresh_database_url, worker_tag
from tests.support.serve_process import spawn_serve

LAST_TABLE = "chat_message_attachment"  # one of the tables 0012 creates
NO_ALTER = "SELECT, INSERT, UPDATE, DELETE, CREATE, DROP, INDEX, REFERENCES"


@pytest.fixture
def half_migrated(tmp_path: Path) -> Iterator[str]:
    """0012 failed half-way: its user may create tables but not alter them, so it made its
    tables, then stopped at its ALTER TABLE; alembic_version says 0011. Then the operator
    gave the right; the URL is that user's."""
    tag = f"rerun_{worker_tag()}_{uuid.uuid4().hex[:6]}"
    url = fresh_database_url("mariadb", tmp_path, tag=tag, migrate=False)
    upgrade(url, "0011_mcp_servers")
    admin = create_engine(MY_SERVER, isolation_level="AUTOCOMMIT")
    user, database = f"u_{tag}"[:32], f"ac_{tag}"
    with admin.connect() as conn:
        conn.execute(text(f"CREATE USER '{user}'@'%' IDENTIFIED BY 'pw'"))
        conn.execute(text(f"GRANT {NO_ALTER} ON {database}.* TO '{user}'@'%'"))
    limited = url.replace("root@", f"{user}:pw@", 1)
    with pytest.raises(OperationalError, match="ALTER command denied"):
        upgrade(limited)
    refused = spawn_serve(tmp_path, "--data-dir", str(tmp_path / "data"), "--database-url", limited)
    assert refused.wait_exit() == 2
    [line] = refused.log().strip().splitlines()
    assert "ALTER command denied" in line and "the next start carries on" in line, line
    engine = create_engine(url)
    with engine.connect() as conn:
        assert conn.execute(text(f"SHOW TABLES LIKE '{LAST_TABLE}'")).all()  # its DDL stayed
        at = conn.execute(text("SELECT version_num FROM alembic_version")).scalar()
        assert at == "0011_mcp_servers"
    engine.dispose()
    with admin.connect() as conn:
        conn.execute(text(f"GRANT ALTER ON {database}.* TO '{user}'@'%'"))
    try:
        yield limited
    finally:
        with admin.connect() as conn:
            conn.execute(text(f"DROP USER '{user}'@'%'"))
        admin.dispose()
        drop_database("mariadb", tag)


def test_serve_finishes_a_migration_that_stopped_half_way(
    tmp_path: Path, half_migrated: str
) -> None:
    served = spawn_serve(
        tmp_path, "--data-dir", str(tmp_path / "data"), "--database-url", half_migrated
    )
    try:
        served.wait_healthy()
        assert (
            httpx.post(served.url + "/api/chat/sessions", json={"title": "Été"}).status_code == 201
        )
        found = httpx.get(served.url + "/api/chat/sessions", params={"q": "ÉTÉ"}).json()["items"]
        assert [item["title"] for item in found] == ["Été"]
    finally:
        served.stop()
    engine = create_engine(half_migrated)
    with engine.connect() as conn:
        at = set(conn.execute(text("SELECT version_num FROM alembic_version")).scalars())
        columns = conn.execute(text(f"SHOW COLUMNS FROM {LAST_TABLE}")).all()
    engine.dispose()
    assert at == head_revisions()
    assert len(columns) > 1
