"""Answer tokens are coalesced at the bridge (issue 17): a fast model's tokens leave as fewer,
larger `answer_delta` events, in order with everything else, each at most one short window
late; a slow model's tokens still leave one by one."""

from __future__ import annotations

import asyncio
import itertools
import statistics
import threading
import time

import pytest

from agentchat.bridge.live.outbox import Outbox
from agentchat.bridge_client.client import BridgeClient
from agentchat.protocol.events import (
    AnswerDelta,
    BridgeEvent,
    RunEnd,
    Status,
    ToolCall,
    ToolCallMeta,
)
from tests.bridge.support import run_turn
from tests.support.own_bridge import own_bridge
from tests.support.servers import BridgeProcess

pytestmark = pytest.mark.timeout(120)

WINDOW_S = 0.015


async def drain(outbox: Outbox) -> list[list[BridgeEvent]]:
    batches = []
    while (batch := await outbox.take(5.0)) is not None:
        batches.append(batch)
    return batches


def flat(batches: list[list[BridgeEvent]]) -> list[BridgeEvent]:
    return [event for batch in batches for event in batch]


async def test_tokens_from_a_thread_arrive_joined_whole_and_in_order() -> None:
    outbox = Outbox(asyncio.get_running_loop(), window_s=WINDOW_S, max_chars=10_000)
    pieces = [f" t{n}" for n in range(1, 2001)]
    call = ToolCall(tool_name="todo", meta=ToolCallMeta(tool_call_id="c1"))

    def produce() -> None:
        for piece in pieces[:1000]:
            outbox.put(AnswerDelta(content=piece))
        outbox.put(call)
        for piece in pieces[1000:]:
            outbox.put(AnswerDelta(content=piece))

    producer = threading.Thread(target=produce)
    reading = asyncio.create_task(drain(outbox))
    producer.start()
    await asyncio.to_thread(producer.join)
    outbox.close(RunEnd(status="SUCCESS"))
    events = flat(await reading)

    kinds = [getattr(e, "kind", e.EVENT) for e in events]
    at = kinds.index("tool_call")
    assert set(kinds[:at]) == set(kinds[at + 1 : -1]) == {"answer_delta"}
    before = "".join(e.content for e in events[:at])
    after = "".join(e.content for e in events[at + 1 : -1])
    assert before == "".join(pieces[:1000]) and after == "".join(pieces[1000:])
    assert isinstance(events[-1], RunEnd)
    assert kinds.count("answer_delta") < 200, "2,000 tokens put at once left one by one"


async def test_a_token_after_a_quiet_window_leaves_at_once_the_next_ones_wait_for_it() -> None:
    """Throttled, not delayed: a model slower than one token per window (50 tokens/s against
    15 ms) gets every token out at once; faster tokens gather until a window after the last
    delta that left."""
    outbox = Outbox(asyncio.get_running_loop(), window_s=0.2)
    start = time.monotonic()
    outbox.put(AnswerDelta(content="hello"))
    first = await outbox.take(10.0)
    first_after = time.monotonic() - start
    outbox.put(AnswerDelta(content=" wor"))
    outbox.put(AnswerDelta(content="ld"))
    second = await outbox.take(10.0)
    second_after = time.monotonic() - start

    assert first == [AnswerDelta(content="hello")]
    assert first_after < 0.1, "a lone token waited for the window"
    assert second == [AnswerDelta(content=" world")]
    assert 0.2 * 0.9 <= second_after < 0.2 + 0.5


async def test_another_event_sends_the_pending_tokens_first_at_once() -> None:
    outbox = Outbox(asyncio.get_running_loop(), window_s=10.0)
    outbox.put(AnswerDelta(content="a"))
    outbox.put(AnswerDelta(content="b"))
    outbox.put(Status(content="working"))
    batch = await asyncio.wait_for(outbox.take(10.0), 1.0)

    assert batch == [AnswerDelta(content="ab"), Status(content="working")]


async def test_a_full_window_leaves_before_its_time() -> None:
    outbox = Outbox(asyncio.get_running_loop(), window_s=10.0, max_chars=8)
    for piece in ("abcd", "efgh", "ij"):
        outbox.put(AnswerDelta(content=piece))
    first = await asyncio.wait_for(outbox.take(10.0), 1.0)
    outbox.close(RunEnd(status="SUCCESS"))

    assert first == [AnswerDelta(content="abcdefgh")]
    assert await outbox.take(1.0) == [AnswerDelta(content="ij"), RunEnd(status="SUCCESS")]
    assert await outbox.take(1.0) is None


async def test_a_delta_with_extra_fields_keeps_them_alone() -> None:
    outbox = Outbox(asyncio.get_running_loop(), window_s=WINDOW_S)
    marked = AnswerDelta.model_validate({"content": "x", "sentNs": 1})
    outbox.put(AnswerDelta(content="a"))
    outbox.put(marked)
    outbox.close(RunEnd(status="SUCCESS"))

    assert flat(await drain(outbox))[:2] == [AnswerDelta(content="a"), marked]


# ── the real bridge ─────────────────────────────────────────────────────────────────────


bridge = own_bridge()  # a quiet one: its timings are this module's measure


async def test_a_fast_model_streams_fewer_larger_answer_events(
    bridge: BridgeProcess, scripted_model: str
) -> None:
    async with BridgeClient(bridge.url, secret=bridge.secret) as client:
        turn = await run_turn(client, scripted_model, "#tokens 400")

    deltas = turn.of("answer_delta")
    expected = " ".join(f"t{n}" for n in range(1, 401))
    assert turn.answer().strip() == expected == turn.result.final_text.strip()
    assert len(deltas) < 200, f"{len(deltas)} answer events for 400 tokens"


async def test_a_slow_model_still_streams_token_by_token(
    bridge: BridgeProcess, scripted_model: str
) -> None:
    arrivals: list[float] = []

    async def note(event, _turn) -> None:  # type: ignore[no-untyped-def]
        if event.kind == "answer_delta":
            arrivals.append(time.monotonic())

    async with BridgeClient(bridge.url, secret=bridge.secret) as client:
        turn = await run_turn(client, scripted_model, "#delay 80\n#tokens 6", on_event=note)

    assert turn.answer().strip() == "t1 t2 t3 t4 t5 t6"
    assert len(turn.of("answer_delta")) >= 5, turn.of("answer_delta")
    # each token on its own, as it came (80 ms apart): spread over the turn, not held and sent
    # together. The median, not the minimum: on a busy machine one late event arrives just
    # before the next (a CI run: 22 ms between two of five gaps of 60-370 ms).
    gaps = [b - a for a, b in itertools.pairwise(arrivals)]
    assert statistics.median(gaps) > 0.03 and arrivals[-1] - arrivals[0] > 0.25, gaps
