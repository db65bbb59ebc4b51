"""The bridge keeps a run going when its client goes away, and lets a client follow it again
(`GET /runs/{id}/events?after=N`) with the same ids and bytes; `GET /runs` lists what it holds.
A real bridge process, the real hermes-agent, the scripted model."""

from __future__ import annotations

import contextlib
import uuid
from typing import Any

import httpx
import pytest

from agentchat.bridge_client.client import BridgeClient, BridgeUnavailable
from agentchat.protocol.bridge_api import RunRequest
from agentchat.protocol.events import AnswerDelta, BridgeEvent, ClarifyRequest, RunEnd
from tests.bridge.support import model
from tests.support.servers import BridgeProcess

TOKENS = 60
SLOW = f"#delay 30\n#tokens {TOKENS}"
FULL_TEXT = " ".join(f"t{i}" for i in range(1, TOKENS + 1))


def _request(scripted_model: str, message: str) -> RunRequest:
    return RunRequest.model_validate(
        {
            "runId": uuid.uuid4().hex,
            "sessionId": f"follow-{uuid.uuid4().hex[:8]}",
            "userMessage": message,
            "model": model(scripted_model),
            "maxIterations": 5,
        }
    )


async def _read(events: Any, stop: int | None = None) -> list[BridgeEvent]:
    """Events until `stop` answer deltas (the stream is then closed) or the run's end."""
    seen: list[BridgeEvent] = []
    async with contextlib.aclosing(events) as stream:
        async for event in stream:
            seen.append(event)
            deltas = sum(isinstance(e, AnswerDelta) for e in seen)
            if isinstance(event, RunEnd) or (stop is not None and deltas >= stop):
                break
    return seen


def _text(events: list[BridgeEvent]) -> str:
    return "".join(e.content for e in events if isinstance(e, AnswerDelta))


async def test_a_turn_goes_on_without_its_client_and_is_followed_again(
    client: BridgeClient, scripted_model: str
) -> None:
    request = _request(scripted_model, SLOW)
    run_id = request.run_id
    first = await _read(client.run(request), stop=5)
    assert [e.event_id for e in first] == list(range(1, len(first) + 1))
    held = {r.run_id: r for r in await client.runs()}
    assert held[run_id].state == "running" and held[run_id].last_event_id >= len(first)

    replay = await _read(client.follow(run_id, 0), stop=5)  # from the start: the same events
    assert [(e.event_id, e.wire_json()) for e in replay] == [
        (e.event_id, e.wire_json()) for e in first
    ]
    rest = await _read(client.follow(run_id, first[-1].event_id or 0))
    assert isinstance(rest[-1], RunEnd) and rest[-1].status == "SUCCESS"
    ids = [e.event_id for e in first + rest]
    assert ids == list(range(1, len(ids) + 1))  # no gap, no duplicate
    assert _text(first) + _text(rest) == FULL_TEXT == rest[-1].final_text

    # Its end was read, but the reader may die before storing it: the run is kept (ended) and
    # can be read again, until the API releases it.
    held = {r.run_id: r for r in await client.runs()}
    assert held[run_id].state == "ended" and held[run_id].last_event_id == ids[-1]
    again = await _read(client.follow(run_id, ids[-2]))
    assert [e.event_id for e in again] == [ids[-1]] and isinstance(again[0], RunEnd)
    await client.release(run_id)
    assert run_id not in {r.run_id for r in await client.runs()}
    await client.release(run_id)  # twice, or for a run it never held: no error
    with pytest.raises(BridgeUnavailable) as gone:
        await _read(client.follow(run_id, 0))
    assert (gone.value.status_code, gone.value.code) == (404, "unknown_run")


async def _frames(http: httpx.AsyncClient, path: str, count: int, **options: Any) -> list[bytes]:
    """The first `count` event frames of an SSE response, as raw bytes (comments left out)."""
    data = b""
    async with http.stream("GET", path, **options) as response:
        assert response.status_code == 200
        async for chunk in response.aiter_bytes():
            data += chunk
            frames = [f for f in data.split(b"\n\n")[:-1] if f.startswith(b"id:")]
            if len(frames) >= count:
                return frames[:count]
    raise AssertionError(f"the stream ended before {count} events: {data!r}")


async def test_follow_honours_last_event_id_and_replays_the_same_bytes(
    client: BridgeClient, bridge: BridgeProcess, scripted_model: str
) -> None:
    request = _request(scripted_model, SLOW)
    run_id = request.run_id
    await _read(client.run(request), stop=3)
    headers = {"Authorization": f"Bearer {bridge.secret}"}
    async with httpx.AsyncClient(base_url=bridge.url, headers=headers, timeout=30) as http:
        path = f"/runs/{run_id}/events"
        whole = await _frames(http, path, 6, params={"after": 0})
        tail = await _frames(http, path, 4, headers={"Last-Event-ID": "2"})
        assert tail == whole[2:]
        assert whole[0].startswith(b"id: 1\n")
        unknown = await http.get("/runs/no-such-run/events")
        assert unknown.status_code == 404
        assert unknown.json()["error"]["code"] == "unknown_run"
        refused = await http.get("/runs", headers={"Authorization": "Bearer wrong-secret-xx"})
        assert refused.status_code == 401
    await client.abort(run_id)


async def test_a_run_waiting_on_clarify_is_listed_waiting_until_aborted(
    client: BridgeClient, scripted_model: str
) -> None:
    request = _request(scripted_model, "#clarify Which colour? | red | blue\n#echo-tool-result")
    run_id = request.run_id
    seen: list[BridgeEvent] = []
    async with contextlib.aclosing(client.run(request)) as stream:
        async for event in stream:
            seen.append(event)
            if isinstance(event, ClarifyRequest):
                break
    held = {r.run_id: r for r in await client.runs()}
    assert held[run_id].state == "waiting"
    await client.abort(run_id)
    rest = await _read(client.follow(run_id, len(seen)))
    assert isinstance(rest[-1], RunEnd) and rest[-1].status == "STOPPED"
