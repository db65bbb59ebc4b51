"""Issue 33: a table lock held by another client (an operator's `LOCK TABLE`, a long
migration by hand) made requests wait with no bound: PostgreSQL's lock_timeout is off by
default and MariaDB's lock_wait_timeout is a day. Now a request waits at most
AGENTCHAT_DB_LOCK_TIMEOUT_S for a lock, then gets 503 `database_busy` with Retry-After, and
the server answers again as soon as the lock is gone."""

from __future__ import annotations

import time
from pathlib import Path

import httpx
import pytest
from sqlalchemy import create_engine, text

from tests.support.serve_process import Served
from tests.support.serve_starter import ServeStarter

LOCK_S = 2
LOCKS = {
    "postgresql": ["BEGIN", "LOCK TABLE chat_session IN ACCESS EXCLUSIVE MODE"],
    "mariadb": ["LOCK TABLES chat_session WRITE"],
}


@pytest.fixture(params=sorted(LOCKS))
def server(
    request: pytest.FixtureRequest, served: ServeStarter, tmp_path: Path
) -> tuple[str, str, Served]:
    url = served.fresh_database(request.param, tmp_path, "lock")
    env = {"AGENTCHAT_DB_LOCK_TIMEOUT_S": str(LOCK_S)}
    args = ("--data-dir", str(tmp_path / "data"), "--database-url", url)
    return request.param, url, served.start(tmp_path, *args, env=env)


def test_a_table_lock_held_elsewhere_is_a_503_after_the_lock_timeout(
    server: tuple[str, str, Served],
) -> None:
    dialect, url, process = server
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
