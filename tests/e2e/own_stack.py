"""A stack of the browser tests: an API (with the settings it is given) serving the built page,
its bridge and its database, on a scripted model. The worker's shared stack is one; a module
whose settings or server-wide changes (accounts, MCP servers, command tools) must not reach
the other modules' tests runs one of its own on the shared scripted model."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest

from agentchat.app import create_app
from agentchat.core.database import Database
from tests.e2e.stack import E2EStack
from tests.support.api_stack import api_settings
from tests.support.databases import fresh_database_url, worker_tag
from tests.support.servers import serve_app, start_bridge


@contextmanager
def own_stack(
    tmp_path_factory: pytest.TempPathFactory,
    name: str,
    scripted_url: str,
    bridge_env: dict[str, str] | None = None,
    **settings: Any,
) -> Iterator[E2EStack]:
    """The stack, its default model registered; `settings` are added to the API's `Settings`,
    `bridge_env` to the bridge's environment."""
    root = tmp_path_factory.mktemp(f"e2e-{name}")
    database = Database(fresh_database_url("sqlite", root, tag=f"e2e_{name}_{worker_tag()}"))
    bridge = start_bridge(root / "bridge", **(bridge_env or {}))
    try:
        skills_dir = root / "bridge" / "skills"
        api = api_settings(
            root / "data", bridge, skills_dir=skills_dir, run_rate_per_minute=0, **settings
        )
        url, stop_app = serve_app(create_app(api, database=database))
        stack = E2EStack(url, database, scripted_url)
        try:
            stack.register_model()
            yield stack
        finally:
            stack.close()
            stop_app()
    finally:
        bridge.stop()
        database.dispose()
