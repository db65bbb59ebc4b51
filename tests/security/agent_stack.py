"""The local stack `serve` starts (its bridge and the scripted model), for tests that play a
prompt-injected agent: the scripted model calls a real hermes tool with the attacker's
arguments and echoes what the tool gave back."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from pathlib import Path
from typing import Any

import pytest

from agentchat.bridge_client.client import BridgeClient
from agentchat.core.settings import Settings
from agentchat.local_stack import LocalStack
from tests.bridge.support import OnEvent, Turn, run_turn


@contextmanager
def local_stack(
    data: Path, toolsets: str, env: dict[str, str] | None = None
) -> Iterator[LocalStack]:
    """`serve`'s local bridge and scripted model on `data`, the agent given `toolsets`, the
    API's process environment holding `env` while the bridge starts."""
    with pytest.MonkeyPatch.context() as patch:
        for name, value in (env or {}).items():
            patch.setenv(name, value)
        settings = Settings(
            data_dir=data,
            agent_toolsets=toolsets,
            database_url=f"sqlite:///{data / 'db.sqlite'}",
            redis_url=None,
        )
        local = LocalStack(settings)
        local.start()
    try:
        yield local
    finally:
        local.stop_bridge()


def agent_stack_fixtures(
    toolsets: str, env: dict[str, str] | None = None, files: dict[str, str] | None = None
) -> tuple[Any, Any]:
    """A module's `stack` (`local_stack` with these, for the module; `files`: texts by name
    written to its data folder once it runs) and `client` (a bridge client of it, per test).
    Declared as `stack, client = agent_stack_fixtures(...)`."""

    @pytest.fixture(scope="module", name="stack")
    def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalStack]:
        data = tmp_path_factory.mktemp("agent-stack")
        with local_stack(data, toolsets, env) as local:
            for name, text in (files or {}).items():
                (data / name).write_text(text, encoding="utf-8")
            yield local

    @pytest.fixture(name="client")
    async def client(stack: LocalStack) -> AsyncIterator[BridgeClient]:
        async with bridge_client(stack) as value:
            yield value

    return stack, client


@asynccontextmanager
async def bridge_client(stack: LocalStack) -> AsyncIterator[BridgeClient]:
    assert stack.bridge_url and stack.bridge_secret
    async with BridgeClient(stack.bridge_url, secret=stack.bridge_secret) as client:
        yield client


def answer(turn: Turn) -> str:
    assert turn.result is not None and turn.result.status == "SUCCESS", turn.result
    return turn.result.final_text


async def call_tool(
    client: BridgeClient,
    stack: LocalStack,
    tool: str,
    args: dict[str, object],
    session: str,
    on_event: OnEvent | None = None,
) -> str:
    """The result the agent's call of `tool` got, as the scripted model echoes it."""
    assert stack.scripted_url
    message = f"#tool {tool} {json.dumps(args)}\n#echo-tool-result"
    turn = await run_turn(client, stack.scripted_url, message, session=session, on_event=on_event)
    return answer(turn)
