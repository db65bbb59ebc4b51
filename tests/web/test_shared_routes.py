"""Apps of one test process share their routes' built state (tests/support/shared_routes.py,
issue 29), and each still answers from its own settings; an app with dependency overrides
builds its own, and its overrides apply."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi import FastAPI, routing

from agentchat.app import create_app
from agentchat.core.database import Database
from agentchat.core.deps import get_settings_dep
from agentchat.core.settings import Settings
from tests.support.databases import fresh_database_url
from tests.support.shared_routes import share_built_routes


def _app(root: Path, name: str, toolsets: str) -> tuple[FastAPI, Database]:
    settings = Settings(
        data_dir=root / name, start_bridge=False, start_scripted_llm=False, agent_toolsets=toolsets
    )
    database = Database(fresh_database_url("sqlite", root, tag=name))
    return create_app(settings, database=database), database


async def _get(app: FastAPI, path: str) -> httpx.Response:
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1") as client:
        return await client.get(path)


@pytest.fixture
def builds(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The paths whose route state FastAPI builds from here on."""
    built: list[str] = []
    original = routing._populate_api_route_state

    def counted(route: Any, path: str, *args: Any, **kwargs: Any) -> None:
        built.append(path)
        original(route, path, *args, **kwargs)

    monkeypatch.setattr(routing, "_populate_api_route_state", counted)
    return built


@pytest.fixture
async def apps(tmp_path: Path) -> AsyncIterator[list[tuple[FastAPI, Database]]]:
    made = [_app(tmp_path, "a", "todo"), _app(tmp_path, "b", "todo,memory")]
    yield made
    for _, database in made:
        database.dispose()


async def test_a_second_app_builds_no_route_and_answers_from_its_own_settings(
    apps: list[tuple[FastAPI, Database]], builds: list[str]
) -> None:
    assert share_built_routes()  # this FastAPI still has the structure it relies on
    (first, _), (second, _) = apps
    assert (await _get(first, "/api/info")).json()["toolsets"] == ["todo"]
    built_for_first = list(builds)
    answer = await _get(second, "/api/info")
    assert answer.status_code == 200
    assert answer.json()["toolsets"] == ["todo", "memory"]
    assert builds == built_for_first  # nothing built again for the second app


async def test_an_app_with_dependency_overrides_builds_its_own_routes(
    apps: list[tuple[FastAPI, Database]], builds: list[str]
) -> None:
    (first, _), (second, _) = apps
    assert (await _get(first, "/api/info")).json()["toolsets"] == ["todo"]
    overridden = Settings(start_bridge=False, start_scripted_llm=False, agent_toolsets="skills")
    second.dependency_overrides[get_settings_dep] = lambda: overridden
    before = len(builds)
    assert (await _get(second, "/api/info")).json()["toolsets"] == ["skills"]
    assert len(builds) > before
