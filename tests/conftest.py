"""Shared fixtures: a migrated database per dialect and an API client on it."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import httpx
import pytest
from fastapi import FastAPI

from agentchat.app import create_app
from agentchat.core.database import Database
from agentchat.core.settings import Settings
from tests.support.cheap_passwords import use_cheapest_password_hashes
from tests.support.databases import DIALECTS, clear_tables, fresh_database_url
from tests.support.heap import freeze_without_collecting
from tests.support.kinds import is_server_test
from tests.support.shared_routes import share_built_routes
from tests.support.tls import share_default_tls_context

# The stacks tests share, defined once: worker_stack, the worker's bridge and scripted model
# (`bridge`, `scripted_url`); api_stack, the API on them (`stack`); team_stack, with accounts
# (`team`); serve_fixtures, the `serve` processes a test starts (`served`), ended after it.
pytest_plugins = [
    "tests.support.worker_stack",
    "tests.support.api_stack",
    "tests.support.team_stack",
    "tests.support.serve_fixtures",
]

share_default_tls_context()
freeze_without_collecting()
use_cheapest_password_hashes()
share_built_routes()


@pytest.fixture(scope="session")
def _db_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("databases")


_ENGINES: dict[str, Database] = {}


def _database_for(dialect: str, root: Path) -> Database:
    if dialect not in _ENGINES:
        _ENGINES[dialect] = Database(fresh_database_url(dialect, root))
    return _ENGINES[dialect]


@pytest.fixture
def database(_db_root: Path) -> Iterator[Database]:
    """A migrated SQLite database, emptied after the test."""
    db = _database_for("sqlite", _db_root)
    yield db
    clear_tables(db)


@pytest.fixture(params=DIALECTS)
def any_database(request: pytest.FixtureRequest, _db_root: Path) -> Iterator[Database]:
    """The same test on SQLite, PostgreSQL and MariaDB."""
    db = _database_for(request.param, _db_root)
    yield db
    clear_tables(db)


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    return Settings(
        data_dir=tmp_path / "data",
        start_bridge=False,
        start_scripted_llm=False,
    )


@pytest.fixture
def app(settings: Settings, database: Database) -> FastAPI:
    return create_app(settings, database=database)


@pytest.fixture
async def client(app: FastAPI) -> AsyncIterator[httpx.AsyncClient]:
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1") as c:
        yield c


@pytest.fixture
async def any_client(
    any_database: Database, settings: Settings
) -> AsyncIterator[httpx.AsyncClient]:
    """`client` on each database in turn (an app per test)."""
    transport = httpx.ASGITransport(app=create_app(settings, database=any_database))
    async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1") as c:
        yield c


@pytest.hookimpl(tryfirst=True)  # before `-m` deselects by marker
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Marks the tests that start a server, a process or hermes-agent (tests/support/kinds.py)."""
    for item in items:
        if is_server_test(item):
            item.add_marker(pytest.mark.server)


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    for db in _ENGINES.values():
        db.dispose()
