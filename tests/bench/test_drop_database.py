"""Benchmarks leave no schema behind on the shared database servers."""

from __future__ import annotations

from pathlib import Path

import pytest
from sqlalchemy import create_engine, text

from tests.support.databases import (
    MY_SERVER,
    PG_SERVER,
    drop_database,
    fresh_database_url,
    worker_tag,
)

LOOKUP = {
    "postgresql": (
        PG_SERVER,
        "SELECT count(*) FROM information_schema.schemata WHERE schema_name = :n",
    ),
    "mariadb": (
        MY_SERVER,
        "SELECT count(*) FROM information_schema.schemata WHERE schema_name = :n",
    ),
}


def exists(dialect: str, name: str) -> bool:
    server, query = LOOKUP[dialect]
    engine = create_engine(server)
    try:
        with engine.connect() as conn:
            return bool(conn.execute(text(query), {"n": name}).scalar())
    finally:
        engine.dispose()


@pytest.mark.parametrize("dialect", sorted(LOOKUP))
def test_drop_database_removes_what_fresh_database_url_made(dialect: str, tmp_path: Path) -> None:
    tag = f"dropcheck_{worker_tag()}"
    fresh_database_url(dialect, tmp_path, tag=tag, migrate=False)
    assert exists(dialect, f"ac_{tag}")
    drop_database(dialect, tag)
    assert not exists(dialect, f"ac_{tag}")
