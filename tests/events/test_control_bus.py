"""The control channel between API processes (Redis): a request reaches the process named by
its token and its reply comes back; a process that is gone is known at once; a broadcast
reaches every other process."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import pytest

from agentchat.events.control_bus import ControlBus, NoListener
from tests.events.conftest import REDIS_URL


@pytest.fixture
async def processes(redis_prefix: str) -> AsyncIterator[list[ControlBus]]:
    """Three processes' channels, each answering with its own token and the request."""
    buses = [ControlBus.from_url(REDIS_URL, redis_prefix, f"p{i}") for i in range(3)]
    for bus in buses:
        await bus.start(_answer_as(bus.token))
    yield buses
    for bus in buses:
        await bus.aclose()


def _answer_as(token: str) -> Any:
    async def handle(body: dict[str, Any]) -> dict[str, Any]:
        if body["op"] == "boom":
            raise RuntimeError("it broke")
        if body["op"] == "slow":
            await asyncio.sleep(5)
        return {"ok": True, "by": token, "op": body["op"], "from": body["from"]}

    return handle


async def test_a_request_reaches_the_named_process_and_its_reply_comes_back(
    processes: list[ControlBus],
) -> None:
    reply = await processes[0].request("p2", {"op": "stop", "runId": "r1"}, timeout=5)
    assert reply == {"ok": True, "by": "p2", "op": "stop", "from": "p0"}


async def test_a_request_to_a_process_that_is_gone_fails_at_once(
    processes: list[ControlBus],
) -> None:
    await processes[1].aclose()
    with pytest.raises(NoListener):
        await processes[0].request("p1", {"op": "stop"}, timeout=5)


async def test_a_handler_that_fails_answers_with_an_error(processes: list[ControlBus]) -> None:
    reply = await processes[0].request("p1", {"op": "boom"}, timeout=5)
    assert reply["ok"] is False and reply["status"] == 502 and "it broke" in reply["message"]


async def test_a_slow_handler_runs_out_the_callers_time_but_holds_up_no_other_request(
    processes: list[ControlBus],
) -> None:
    slow = asyncio.create_task(processes[0].request("p1", {"op": "slow"}, timeout=0.5))
    quick = await processes[2].request("p1", {"op": "stop"}, timeout=2)
    assert quick["by"] == "p1"
    with pytest.raises(TimeoutError):
        await slow


async def test_a_broadcast_reaches_every_other_process(processes: list[ControlBus]) -> None:
    replies = await processes[1].broadcast({"op": "reset"}, timeout=5)
    assert sorted(r["by"] for r in replies) == ["p0", "p2"]
