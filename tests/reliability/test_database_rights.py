"""A database user that may connect but not create tables (a PostgreSQL role without CREATE on
its schema, since PostgreSQL 15 the default for `public`; a MariaDB user granted only
SELECT/INSERT/UPDATE/DELETE; an SQLite file this user may only read).

`agentchat serve` printed the migration's traceback (380 lines on PostgreSQL) and exited 1.
Now: one line that says the migration could not run, why (the database's words), and what
to do; exit code 2; the database left as it was."""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import create_engine, inspect, text

from tests.support.databases import MY_SERVER, PG_SERVER, worker_tag
from tests.support.serve_process import Served, spawn_serve

OTHER_UID = 65534  # nobody


def _run_all(server: str, statements: list[str]) -> None:
    engine = create_engine(server, isolation_level="AUTOCOMMIT")
    with engine.connect() as conn:
        for statement in statements:
            conn.execute(text(statement))
    engine.dispose()


@pytest.fixture
def postgresql_reader() -> Iterator[tuple[str, list[str]]]:
    name = f"ac_rights_{worker_tag()}_{uuid.uuid4().hex[:6]}".lower()
    _run_all(
        PG_SERVER,
        [
            f"CREATE ROLE {name} LOGIN",
            f"CREATE SCHEMA {name}",
            f"GRANT USAGE ON SCHEMA {name} TO {name}",
        ],
    )
    user_url = PG_SERVER.replace("postgres@", f"{name}@", 1)
    yield f"{user_url}?options=-csearch_path%3D{name}", []
    _run_all(PG_SERVER, [f"DROP SCHEMA IF EXISTS {name} CASCADE", f"DROP ROLE IF EXISTS {name}"])


@pytest.fixture
def mariadb_reader() -> Iterator[tuple[str, list[str]]]:
    name = f"ac_rights_{worker_tag()}_{uuid.uuid4().hex[:6]}".lower()
    _run_all(
        MY_SERVER,
        [
            f"CREATE DATABASE {name} CHARACTER SET utf8mb4",
            f"CREATE USER '{name}'@'%'",
            f"GRANT SELECT, INSERT, UPDATE, DELETE ON {name}.* TO '{name}'@'%'",
        ],
    )
    server = MY_SERVER.rsplit("/", 1)[0].replace("root@", f"{name}@", 1)
    yield f"{server}/{name}", []
    _run_all(MY_SERVER, [f"DROP DATABASE IF EXISTS {name}", f"DROP USER IF EXISTS '{name}'@'%'"])


@pytest.fixture
def sqlite_reader() -> Iterator[tuple[str, list[str]]]:
    """A data folder this user owns, holding a database file it may only read."""
    folder = Path(tempfile.mkdtemp(prefix="agentchat-rights-"))
    folder.chmod(0o755)
    data_dir = folder / "data"
    data_dir.mkdir()
    database = data_dir / "agentchat.db"
    create_engine(f"sqlite:///{database}").connect().close()
    database.chmod(0o444)
    command = [sys.executable, "-m", "agentchat.cli"]
    if os.geteuid() == 0:  # root writes any file: run as another user, who owns the folder
        os.chown(data_dir, OTHER_UID, OTHER_UID)
        command = ["setpriv", f"--reuid={OTHER_UID}", f"--regid={OTHER_UID}", "--clear-groups"]
        command += [sys.executable, "-m", "agentchat.cli"]
    yield f"sqlite:///{database}", command
    shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture(params=["sqlite", "postgresql", "mariadb"])
def reader(request: pytest.FixtureRequest) -> tuple[str, list[str]]:
    """(URL of an empty database this user may not create tables in, `agentchat` command)."""
    value: tuple[str, list[str]] = request.getfixturevalue(f"{request.param}_reader")
    return value


def test_a_user_who_may_not_create_tables_is_refused_in_one_line(
    tmp_path: Path, reader: tuple[str, list[str]]
) -> None:
    url, command = reader
    data_dir = Path(url.removeprefix("sqlite:///")).parent if url.startswith("sqlite") else None
    args = ["--database-url", url, "--data-dir", str(data_dir or tmp_path / "data")]
    served: Served = spawn_serve(tmp_path, *args, command=command or None)
    try:
        assert served.wait_exit() == 2, served.log()
        lines = served.log().strip().splitlines()
        assert len(lines) == 1, lines
        assert "could not migrate the database" in lines[0], lines
        assert any(word in lines[0].lower() for word in ("denied", "readonly")), lines
    finally:
        served.stop()
    engine = create_engine(url)
    assert "chat_message" not in inspect(engine).get_table_names()
    engine.dispose()


def test_a_search_path_that_names_no_schema_is_refused_in_one_line(tmp_path: Path) -> None:
    """A typo in the URL's schema: serve said it was "waiting for another process to finish
    migrating" (the lock's key was NULL), then printed the migration's traceback."""
    missing = f"ac_missing_{uuid.uuid4().hex[:6]}"
    url = f"{PG_SERVER}?options=-csearch_path%3D{missing}"
    served = spawn_serve(tmp_path, "--database-url", url)
    try:
        assert served.wait_exit() == 2, served.log()
        lines = served.log().strip().splitlines()
        assert len(lines) == 1 and missing in lines[0] and "CREATE SCHEMA" in lines[0], lines
    finally:
        served.stop()
