"""Issue 13, finding 5 and the approval item: what the agent's process holds and may do.

The local bridge is started as `agentchat serve` starts it (LocalStack), with the terminal
enabled by the operator, and the agent is told to print its environment.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from agentchat.bridge_client.client import BridgeClient
from agentchat.local_stack import LocalStack
from tests.bridge.support import Event, Turn, run_turn
from tests.security.agent_stack import agent_stack_fixtures, call_tool

pytestmark = pytest.mark.timeout(180)

PLANTED = {
    "AGENTCHAT_AUTH_TOKEN": "planted-auth-token-0123456789",
    "AGENTCHAT_DATABASE_URL": "postgresql+psycopg://app:planted-db-password@db/agentchat",
    "AGENTCHAT_REDIS_URL": "redis://:planted-redis-password@redis:6379/0",
    "AGENTCHAT_SECRET_KEY": "planted-secret-key-abcdef",
    "OPENAI_API_KEY": "sk-planted-openai-key",
    "PGPASSWORD": "planted-pg-password",
}


stack, client = agent_stack_fixtures("clarify,todo,skills,terminal", env=PLANTED)


async def _terminal(
    client: BridgeClient, stack: LocalStack, command: str, session: str, approval: str = "Deny"
) -> str:
    async def choose(event: Event, turn: Turn) -> None:  # the person's choice for a pause
        meta = event.meta or {}
        if event.kind == "clarify_request" and meta.get("approval"):
            await client.clarify(turn.run_id, meta["clarifyId"], approval)

    return await call_tool(client, stack, "terminal", {"command": command}, session, choose)


async def test_the_agent_sees_no_secret_of_the_api(client: BridgeClient, stack: LocalStack) -> None:
    printed = await _terminal(client, stack, "env; cat /proc/$PPID/environ | tr '\\0' '\\n'", "env")
    assert "PATH=" in printed
    assert stack.bridge_secret and stack.bridge_secret not in printed
    for name, value in PLANTED.items():
        assert value not in printed, name
    assert "AGENTCHAT_BRIDGE_SECRET" not in printed


async def test_a_denied_dangerous_command_says_who_denied_it(
    client: BridgeClient, stack: LocalStack, tmp_path: Path
) -> None:
    victim = tmp_path / "precious"
    (victim / "inside").mkdir(parents=True)
    printed = await _terminal(client, stack, f"rm -rf {victim}", "danger")
    assert "BLOCKED: the person denied" in printed
    assert (victim / "inside").is_dir()


async def test_a_failed_model_call_leaves_no_request_dump(
    client: BridgeClient, stack: LocalStack
) -> None:
    assert stack.scripted_url
    turn = await run_turn(client, stack.scripted_url, "secret plans\n#fail 400", session="dump")
    assert turn.result is not None and turn.result.status == "FAILED"
    home = stack.settings.resolved_hermes_home
    assert list(home.rglob("request_dump_*")) == []
