"""A MariaDB/MySQL database created with the server's old default character set (latin1, or
utf8 = utf8mb3, as many hosting panels and older my.cnf files still make them).

`agentchat serve` created its tables in that character set. Then a question in Chinese got 422
"a number or value in the request is out of range", and an answer with Chinese or an emoji
(the model's words, which the page had shown) could not be saved: the answer stayed RUNNING,
its final write failing over and over ("Incorrect string value"). Now the migrations bring
every table to utf8mb4, keeping what was stored; the same test runs on SQLite and PostgreSQL.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx
import pytest
from sqlalchemy import create_engine, text

from agentchat.core.database import Database
from agentchat.migrations import upgrade
from tests.reliability.helpers import answers, wait_for
from tests.support.databases import (
    MY_SERVER,
    PG_SERVER,
    drop_database,
    fresh_database_url,
    worker_tag,
)
from tests.support.serve_process import Served, spawn_serve
from tests.support.servers import BridgeProcess

BEFORE_THIS_FIX = "0007_packed_text"
QUESTION = "你好 🎉 — 请回答"
SAID = "答案是 42 🚀 café"


def _legacy_mariadb(charset: str, tag: str) -> str:
    name = f"ac_{tag}"
    admin = create_engine(MY_SERVER, isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.execute(text(f"DROP DATABASE IF EXISTS {name}"))
        conn.execute(text(f"CREATE DATABASE {name} CHARACTER SET {charset}"))
    admin.dispose()
    return MY_SERVER.rsplit("/", 1)[0] + f"/{name}"


@pytest.fixture(params=["sqlite", "postgresql", "mariadb-latin1", "mariadb-utf8mb3"])
def legacy_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """An empty database as the server makes it by default, at the revision before this fix."""
    tag = f"charset_{worker_tag()}_{uuid.uuid4().hex[:6]}"
    kind, _, charset = str(request.param).partition("-")
    if kind == "mariadb":
        url = _legacy_mariadb(charset, tag)
    else:
        url = fresh_database_url(kind, tmp_path, tag=tag, migrate=False)
    upgrade(url, BEFORE_THIS_FIX)
    yield url
    drop_database("mariadb" if kind == "mariadb" else kind, tag)


def _stored_session(url: str, title: str) -> None:
    """Written as the older version wrote it: the columns of its schema only (today's model
    has columns later revisions add)."""
    database = Database(url)
    now = datetime.now(UTC).replace(tzinfo=None)
    row = {"uuid": str(uuid.uuid4()), "title": title, "now": now}
    with database.engine.begin() as conn:
        conn.execute(
            text(
                "INSERT INTO chat_session (session_uuid, title, created_at, updated_at, "
                "activity_at) VALUES (:uuid, :title, :now, :now, :now)"
            ),
            row,
        )
    database.dispose()


def _serve(tmp_path: Path, url: str, bridge: BridgeProcess) -> Served:
    env = {"AGENTCHAT_START_BRIDGE": "false", "AGENTCHAT_BRIDGE_SECRET": bridge.secret}
    flags = ("--database-url", url, "--bridge-url", bridge.url)
    served = spawn_serve(tmp_path, *flags, "--data-dir", str(tmp_path / "data"), env=env)
    served.wait_healthy()
    return served


def _settled_answer(http: httpx.Client, session_id: int) -> dict[str, Any]:
    def read() -> dict[str, Any]:
        found = answers(http.get(f"/api/chat/sessions/{session_id}").json())
        return found[-1] if found else {"status": "NONE"}

    return wait_for(read, lambda m: m["status"] not in {"NONE", "RUNNING"}, timeout=60)


def test_chinese_and_emoji_are_stored_whatever_the_database_default_charset(
    tmp_path: Path, legacy_url: str, bridge: BridgeProcess
) -> None:
    _stored_session(legacy_url, "café crème")  # saved by the older version: kept as it was
    served = _serve(tmp_path, legacy_url, bridge)
    try:
        with httpx.Client(base_url=served.url, timeout=30) as http:
            titles = [s["title"] for s in http.get("/api/chat/sessions").json()["items"]]
            assert titles == ["café crème"]
            session_id = http.post("/api/chat/sessions", json={}).json()["sessionId"]
            message = f"{QUESTION}\n#say {SAID}"
            started = http.post(f"/api/chat/sessions/{session_id}/runs", json={"message": message})
            assert started.status_code == 201, started.text
            answer = _settled_answer(http, session_id)
            assert (answer["status"], answer["content"]) == ("SUCCESS", SAID)
            detail = http.get(f"/api/chat/sessions/{session_id}").json()
            assert detail["messages"][0]["content"] == message
            assert detail["session"]["title"].startswith(QUESTION)
    finally:
        served.stop()
    assert "Incorrect string value" not in served.log()


@pytest.fixture(params=["LATIN1", "SQL_ASCII"])
def pg_not_utf8(request: pytest.FixtureRequest) -> Iterator[str]:
    name = f"ac_enc_{worker_tag()}_{uuid.uuid4().hex[:6]}".lower()
    admin = create_engine(PG_SERVER.rsplit("/", 1)[0] + "/postgres", isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.execute(
            text(
                f"CREATE DATABASE {name} ENCODING '{request.param}' "
                "LC_COLLATE 'C' LC_CTYPE 'C' TEMPLATE template0"
            )
        )
    yield PG_SERVER.rsplit("/", 1)[0] + f"/{name}"
    with admin.connect() as conn:
        conn.execute(text(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)"))
    admin.dispose()


def test_a_postgresql_database_not_in_utf8_is_refused_in_one_line(
    tmp_path: Path, pg_not_utf8: str
) -> None:
    """A PostgreSQL database's encoding cannot be changed in place. LATIN1 answered a Chinese
    title with 500 `internal`; SQL_ASCII started and then crashed with a traceback (psycopg
    hands its text back as bytes)."""
    served = spawn_serve(tmp_path, "--database-url", pg_not_utf8)
    try:
        assert served.wait_exit() == 2, served.log()
        lines = served.log().strip().splitlines()
        assert len(lines) == 1 and "UTF8" in lines[0] and "encoding" in lines[0], lines
    finally:
        served.stop()


def test_another_applications_table_in_a_shared_database_is_left_as_it_is() -> None:
    """A hosting plan's one database is often shared: 0008 converts our tables only (another
    application's latin1 table may hold bytes that a conversion would garble)."""
    tag = f"charset_shared_{worker_tag()}_{uuid.uuid4().hex[:6]}"
    url = _legacy_mariadb("latin1", tag)
    engine = create_engine(url)
    try:
        with engine.begin() as conn:
            conn.execute(text("CREATE TABLE wp_options (v TEXT) CHARACTER SET latin1"))
        upgrade(url, BEFORE_THIS_FIX)
        upgrade(url)
        with engine.connect() as conn:
            charset = conn.execute(
                text(
                    "SELECT c.CHARACTER_SET_NAME FROM information_schema.TABLES t "
                    "JOIN information_schema.COLLATION_CHARACTER_SET_APPLICABILITY c "
                    "ON c.COLLATION_NAME = t.TABLE_COLLATION "
                    "WHERE t.TABLE_SCHEMA = DATABASE() AND t.TABLE_NAME = :t"
                ),
                {"t": "wp_options"},
            ).scalar_one()
        assert charset == "latin1"
    finally:
        engine.dispose()
        drop_database("mariadb", tag)
