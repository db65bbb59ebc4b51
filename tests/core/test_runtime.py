"""What start-up finds out lives in the process's Runtime (runtime.py): the scripted model this
process uses, whether its bridges outlive it. The settings are what the operator gave, and
start-up writes nothing into them."""

from __future__ import annotations

from pathlib import Path

from agentchat.app import create_app
from agentchat.core.database import Database
from agentchat.core.settings import Settings
from agentchat.runtime import Runtime


async def test_start_up_writes_what_it_finds_into_the_runtime_not_the_settings(
    tmp_path: Path, database: Database
) -> None:
    settings = Settings(data_dir=tmp_path / "data", start_bridge=False)  # the scripted model on
    given = settings.model_dump()
    app = create_app(settings, database=database)
    async with app.router.lifespan_context(app):
        runtime: Runtime = app.state.runtime
        assert runtime.scripted_url and runtime.scripted_url.startswith("http://127.0.0.1:")
        assert settings.model_dump() == given
    assert settings.model_dump() == given


def test_bridges_outlive_the_api_when_configured_or_started_here() -> None:
    local = Settings()
    assert Runtime.of(local).bridges_outlive_api is False
    runtime = Runtime.of(local)
    runtime.started(local, "http://127.0.0.1:1/v1", local_bridge=True)
    assert runtime.bridges_outlive_api and runtime.scripted_url == "http://127.0.0.1:1/v1"
    assert Runtime.of(Settings(bridge_url="http://127.0.0.1:9")).bridges_outlive_api is True
    told = Settings(bridge_survives_api=False)
    runtime = Runtime.of(told)
    runtime.started(told, None, local_bridge=True)
    assert runtime.bridges_outlive_api is False
