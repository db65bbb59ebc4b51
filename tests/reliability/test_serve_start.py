"""Issue 14 item 7: `agentchat serve` starts anywhere. It brings an embedded SQLite database up
to date itself; on PostgreSQL/MariaDB N processes starting together on an empty schema migrate
it once, under a lock; `--no-migrate` refuses a schema that is behind with one clear line."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from sqlalchemy import create_engine, text

from agentchat.local_stack import free_port
from agentchat.migrations import upgrade
from agentchat.migrations.on_start import head_revisions, migration_lock
from tests.support.databases import MY_SERVER, PG_SERVER, fresh_database_url, worker_tag
from tests.support.serve_starter import ServeStarter

SERVERS = ("postgresql", "mariadb")
PROCESSES = 3


def _drop(dialect: str, tag: str) -> None:
    server, sql = (
        (PG_SERVER, f"DROP SCHEMA IF EXISTS ac_{tag} CASCADE")
        if dialect == "postgresql"
        else (MY_SERVER, f"DROP DATABASE IF EXISTS ac_{tag}")
    )
    admin = create_engine(server, isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.execute(text(sql))
    admin.dispose()


@pytest.fixture
def empty_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """An empty schema (no tables, no alembic_version) of the dialect in `request.param`."""
    tag = f"start_{worker_tag()}_{uuid.uuid4().hex[:6]}"
    yield fresh_database_url(request.param, tmp_path, tag=tag, migrate=False)
    _drop(request.param, tag)


def _revisions(url: str) -> list[str]:
    engine = create_engine(url)
    with engine.connect() as conn:
        rows = conn.execute(text("SELECT version_num FROM alembic_version")).scalars().all()
    engine.dispose()
    return list(rows)


def test_serve_on_an_empty_data_folder_creates_its_database(
    tmp_path: Path, served: ServeStarter
) -> None:
    data_dir = tmp_path / "fresh"
    served.spawn(tmp_path, "--data-dir", str(data_dir))
    served[0].wait_healthy()
    models = httpx.get(served[0].url + "/api/models", timeout=10).json()
    assert [m["isDefault"] for m in models] == [True]  # tables exist: the demo model is there
    assert _revisions(f"sqlite:///{data_dir / 'agentchat.db'}") == sorted(head_revisions())
    assert "Traceback" not in served[0].log()


@pytest.mark.parametrize("empty_url", SERVERS, indirect=True)
def test_processes_starting_together_migrate_an_empty_schema_once(
    tmp_path: Path, empty_url: str, served: ServeStarter
) -> None:
    for n in range(PROCESSES):
        served.spawn(tmp_path / f"p{n}", "--database-url", empty_url)
    for process in served:
        process.wait_healthy()
    assert _revisions(empty_url) == sorted(head_revisions())
    logs = [process.log() for process in served]
    assert sum("database migrated to" in log for log in logs) == 1, logs
    assert not any("Traceback" in log for log in logs), logs
    with httpx.Client(timeout=10) as http:
        for process in served:
            models = http.get(process.url + "/api/models").json()
            assert [m["isDefault"] for m in models] == [True]  # one default, not one each


@pytest.mark.parametrize("empty_url", SERVERS, indirect=True)
def test_a_process_waits_while_another_holds_the_migration_lock(
    tmp_path: Path, empty_url: str, served: ServeStarter
) -> None:
    engine = create_engine(empty_url)
    try:
        with migration_lock(engine):
            served.spawn(tmp_path, "--database-url", empty_url)
            served[0].wait_for_log("waiting for another process")
            assert not served[0].healthy()
            assert served[0].process.poll() is None
    finally:
        engine.dispose()
    served[0].wait_healthy()
    assert _revisions(empty_url) == sorted(head_revisions())


@pytest.mark.parametrize("empty_url", SERVERS, indirect=True)
@pytest.mark.parametrize(
    ("how", "env"),
    [(["--no-migrate"], {}), ([], {"AGENTCHAT_MIGRATE": "false"})],
    ids=["flag", "env"],
)
def test_without_migration_a_schema_behind_is_refused_in_one_line(
    tmp_path: Path,
    empty_url: str,
    served: ServeStarter,
    how: list[str],
    env: dict[str, str],
) -> None:
    upgrade(empty_url, "0001")
    served.spawn(tmp_path, "--database-url", empty_url, *how, env=env)
    assert served[0].wait_exit() == 2
    lines = served[0].log().strip().splitlines()
    assert len(lines) == 1, lines
    assert "the database schema is behind" in lines[0]
    assert "agentchat migrate" in lines[0]
    assert _revisions(empty_url) == ["0001"]  # left as it was


def test_without_migration_an_up_to_date_database_serves(
    tmp_path: Path, served: ServeStarter
) -> None:
    data_dir = tmp_path / "data"
    data_dir.mkdir()
    upgrade(f"sqlite:///{data_dir / 'agentchat.db'}")
    served.spawn(tmp_path, "--data-dir", str(data_dir), "--no-migrate")
    served[0].wait_healthy()


def test_a_schema_newer_than_the_code_is_refused_in_one_line(
    tmp_path: Path, served: ServeStarter
) -> None:
    data_dir = tmp_path / "data"
    data_dir.mkdir()
    url = f"sqlite:///{data_dir / 'agentchat.db'}"
    upgrade(url)
    engine = create_engine(url)
    with engine.begin() as conn:
        conn.execute(text("UPDATE alembic_version SET version_num = '9999_from_the_future'"))
    engine.dispose()
    served.spawn(tmp_path, "--data-dir", str(data_dir))
    assert served[0].wait_exit() == 2
    lines = served[0].log().strip().splitlines()
    assert len(lines) == 1 and "newer than this agentchat" in lines[0], lines


@pytest.mark.parametrize(
    "url",
    [
        "postgresql+psycopg://agentchat:hidden-pw@127.0.0.1:{port}/test",
        "mysql+pymysql://root@127.0.0.1:{port}/test",
    ],
    ids=SERVERS,
)
def test_a_database_that_cannot_be_reached_is_refused_in_one_line(
    tmp_path: Path, served: ServeStarter, url: str
) -> None:
    served.spawn(tmp_path, "--database-url", url.format(port=free_port()))
    assert served[0].wait_exit() == 2
    lines = served[0].log().strip().splitlines()
    assert len(lines) == 1 and "cannot reach the database" in lines[0], lines
    assert "hidden-pw" not in lines[0]


def test_a_redis_that_cannot_be_reached_is_refused_in_one_line(
    tmp_path: Path, served: ServeStarter
) -> None:
    """It printed a 95-line traceback, exited 3, and left its bridge running."""
    data_dir = tmp_path / "data"
    redis = f"redis://:hidden-pw@127.0.0.1:{free_port()}/0"
    env = {"AGENTCHAT_REDIS_URL": redis, "AGENTCHAT_START_BRIDGE": "true"}
    served.spawn(tmp_path, "--data-dir", str(data_dir), env=env)
    assert served[0].wait_exit() == 2
    lines = served[0].log().strip().splitlines()
    assert len(lines) == 1 and "Redis at" in lines[0] and "does not answer" in lines[0], lines
    assert "hidden-pw" not in lines[0]
    assert not (data_dir / "bridge.json").exists()  # nothing was started
