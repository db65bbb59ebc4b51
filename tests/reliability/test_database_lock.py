"""Issue 33: a table lock held by another client (an operator's `LOCK TABLE`, a long
migration by hand) made requests wait with no bound: PostgreSQL's lock_timeout is off by
default and MariaDB's lock_wait_timeout is a day. Now a request waits at most
AGENTCHAT_DB_LOCK_TIMEOUT_S for a lock, then gets 503 `database_busy` with Retry-After, and
the server answers again as soon as the lock is gone."""

from __future__ import annotations

import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from sqlalchemy import create_engine, text

from tests.support.databases import drop_database, fresh_database_url, worker_tag
from tests.support.serve_process import Served, spawn_serve

LOCK_S = 2
LOCKS = {
    "postgresql": ["BEGIN", "LOCK TABLE chat_session IN ACCESS EXCLUSIVE MODE"],
    "mariadb": ["LOCK TABLES chat_session WRITE"],
}


@pytest.fixture(params=sorted(LOCKS))
def served(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[tuple[str, str, Served]]:
    tag = f"lock_{worker_tag()}_{uuid.uuid4().hex[:6]}"
    url = fresh_database_url(request.param, tmp_path, tag=tag, migrate=False)
    env = {"AGENTCHAT_DB_LOCK_TIMEOUT_S": str(LOCK_S)}
    args = ("--data-dir", str(tmp_path / "data"), "--database-url", url)
    process = spawn_serve(tmp_path, *args, env=env)
    try:
        process.wait_healthy()
        yield request.param, url, process
    finally:
        process.stop()
        drop_database(request.param, tag)


def test_a_table_lock_held_elsewhere_is_a_503_after_the_lock_timeout(
    served: tuple[str, str, Served],
) -> None:
    dialect, url, process = served
    with httpx.Client(base_url=process.url, timeout=30) as http:
        assert http.post("/api/chat/sessions", json={}).status_code == 201
        engine = create_engine(url, isolation_level="AUTOCOMMIT")
        holder = engine.connect()
        try:
            for statement in LOCKS[dialect]:
                holder.execute(text(statement))
            started = time.monotonic()
            refused = http.get("/api/chat/sessions")
            waited = time.monotonic() - started
            assert refused.status_code == 503, refused.text
            assert refused.json()["error"]["code"] == "database_busy", refused.text
            assert refused.headers.get("Retry-After")
            assert LOCK_S - 0.5 <= waited < LOCK_S + 8, waited
        finally:
            holder.close()
            engine.dispose()
        assert http.get("/api/chat/sessions").status_code == 200
