"""A small bridge (pool of 2, shared secret, short clarify timeout): eviction and auth."""

from __future__ import annotations

import httpx
import pytest

from agentchat.bridge_client.client import BridgeClient, BridgeUnavailable
from tests.bridge.support import chat_history, run_turn
from tests.support.own_bridge import own_bridge
from tests.support.servers import BridgeProcess

pytestmark = pytest.mark.timeout(90)

SECRET = "s3cret-for-tests"


bridge = own_bridge(
    secret=SECRET, AGENTCHAT_BRIDGE_POOL_SIZE="2", AGENTCHAT_BRIDGE_CLARIFY_TIMEOUT_S="1.5"
)


async def test_lru_eviction_keeps_conversations_right(
    client: BridgeClient, scripted_model: str
) -> None:
    histories = {f"lru-{i}": chat_history([(f"hello from {i}", "hi")]) for i in range(3)}
    for session, history in histories.items():
        turn = await run_turn(
            client, scripted_model, "#echo-context", session=session, history=history
        )
        assert turn.result is not None
        history += turn.result.messages
    assert (await client.health())["agents"] == 2

    turn = await run_turn(
        client, scripted_model, "again\n#echo-context", session="lru-0", history=histories["lru-0"]
    )
    assert turn.result is not None and turn.result.status == "SUCCESS"
    assert turn.result.final_text == "CONTEXT: hello from 0 | again"
    assert (await client.health())["agents"] == 2


async def test_routes_need_the_secret_but_health_does_not(bridge: BridgeProcess) -> None:
    async with httpx.AsyncClient(base_url=bridge.url) as raw:
        assert (await raw.get("/health")).status_code == 200
        denied = await raw.get("/sessions/x/memory")
        assert denied.status_code == 401
        assert denied.json()["error"]["code"] == "unauthorized"
    async with BridgeClient(bridge.url, secret="wrong") as wrong:
        with pytest.raises(BridgeUnavailable) as refused:
            await wrong.get_memory("x")
        assert refused.value.status_code == 401


async def test_unanswered_clarify_times_out_and_the_agent_carries_on(
    client: BridgeClient, scripted_model: str
) -> None:
    turn = await run_turn(client, scripted_model, "#clarify Anyone there?\n#echo-tool-result")
    assert turn.result is not None and turn.result.status == "SUCCESS"
    (answered,) = turn.of("clarify_answered")
    assert answered.meta is not None and answered.meta["timedOut"] is True
    assert "did not answer" in turn.result.final_text
