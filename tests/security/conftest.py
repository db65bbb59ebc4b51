"""Apps with a token, helpers to call an app with chosen headers and client address."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi import FastAPI

from agentchat.app import create_app
from agentchat.core.database import Database
from agentchat.core.settings import Settings

TOKEN = "test-token-7f3a9c1e5b2d4086"


def make_settings(tmp_path: Path, **overrides: Any) -> Settings:
    base: dict[str, Any] = {
        "data_dir": tmp_path / "data",
        "start_bridge": False,
        "start_scripted_llm": False,
    }
    return Settings(**{**base, **overrides})


@asynccontextmanager
async def client_for(
    app: FastAPI, client: tuple[str, int] = ("127.0.0.1", 40000), **kw: Any
) -> AsyncIterator[httpx.AsyncClient]:
    transport = httpx.ASGITransport(app=app, client=client)
    async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1", **kw) as c:
        yield c


@pytest.fixture
def token_app(tmp_path: Path, database: Database) -> FastAPI:
    # no failure throttle here: these tests try every route with wrong credentials
    settings = make_settings(tmp_path, auth_token=TOKEN, auth_failures_per_minute=0)
    return create_app(settings, database=database)


@pytest.fixture
async def token_client(token_app: FastAPI) -> AsyncIterator[httpx.AsyncClient]:
    async with client_for(token_app) as c:
        yield c
