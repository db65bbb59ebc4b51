"""The run rooms against an in-process fake bridge: launch, drive, publish, control, snapshot,
recovery, each in milliseconds."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Awaitable, Callable

import pytest
from fastapi import FastAPI

from agentchat.bridge_client.client import BridgeUnavailable
from agentchat.chat.tables import ChatMessage, ChatMessageLog, WorkflowPause
from agentchat.core.database import write_slot_held
from agentchat.core.settings import Settings
from agentchat.events.in_process import InProcessEventBus
from agentchat.protocol.errors import BadGateway, Conflict
from agentchat.protocol.events import RunEnd, ToolCallMeta, ToolResultMeta
from agentchat.runs import store
from agentchat.runs.drive.driver import INTERRUPTED_ERROR
from agentchat.runs.drive.log_writer import LogWriter
from agentchat.runs.schemas import RunStart, RunStarted
from agentchat.runs.service import RunService
from agentchat.skills.service import SkillRegistry
from tests.runs.rooms.conftest import WAIT_S, Rooms
from tests.runs.rooms.fake_bridge import (
    Emit,
    Fail,
    FakeBridge,
    Hang,
    WaitAbort,
    WaitClarify,
)


def _message(rooms: Rooms, run_id: str) -> ChatMessage:
    with rooms.database.session() as db:
        message = store.message_for_run(db, run_id)
        db.expunge(message)
        return message


def _log_kinds(rooms: Rooms, message_id: int) -> list[tuple[int, str]]:
    with rooms.database.session() as db:
        return [(r.seq, r.kind) for r in store.stored_logs(db, message_id)]


async def _until(predicate: Callable[[], Awaitable[bool]], what: str) -> None:
    async with asyncio.timeout(WAIT_S):
        while not await predicate():
            await asyncio.sleep(0.01)


async def test_a_run_publishes_its_events_in_order_and_stores_its_end(rooms: Rooms) -> None:
    rooms.bridge.script = [
        Emit("thinking", "let me see"),
        Emit("tool_call", "", "web_search", {"toolCallId": "c1", "args": {"q": "x"}}),
        Emit("tool_result", "found", "web_search", {"toolCallId": "c1"}),
        Emit("answer_delta", "Hel"),
        Emit("answer_delta", "lo"),
    ]
    rooms.bridge.result = RunEnd(status="SUCCESS", final_text="Hello", usage={"totalTokens": 7})

    started = await rooms.service.start(rooms.session_id, RunStart(message="hi"))
    events = await rooms.events(started.run_id)

    assert [e.id for e in events] == list(range(1, 7))
    kinds = [e.data.get("kind", e.event) for e in events]
    assert kinds == [
        "thinking",
        "tool_call",
        "tool_result",
        "answer_delta",
        "answer_delta",
        "workflow_complete",
    ]
    assert events[1].data["meta"] == {"toolCallId": "c1", "args": {"q": "x"}}
    for sent, published in zip(rooms.bridge.script, events, strict=False):
        assert isinstance(sent, Emit)
        assert published.data == sent.event().for_run(started.run_id).wire()
    assert events[-1].data == {
        "runId": started.run_id,
        "messageId": started.message_id,
        "finalText": "Hello",
        "usage": {"totalTokens": 7},
    }
    message = _message(rooms, started.run_id)
    assert (message.status, message.content, message.error) == ("SUCCESS", "Hello", None)
    assert _log_kinds(rooms, message.id) == [(0, "thinking"), (1, "tool_call"), (2, "tool_result")]
    assert rooms.service.active_run_ids() == []
    snapshot = await rooms.service.state(started.run_id)
    assert (snapshot.status, snapshot.final_text, snapshot.event_count) == ("SUCCESS", "Hello", 6)
    assert [log.kind for log in snapshot.logs] == ["thinking", "tool_call", "tool_result"]
    await _until(lambda: _released(rooms, started.run_id), "the bridge to let the run go")


async def _released(rooms: Rooms, run_id: str) -> bool:
    """The bridge was told the run's end is stored (it keeps the run until then)."""
    return rooms.bridge.released == [run_id]


async def test_the_bridge_request_carries_the_question_and_the_model(rooms: Rooms) -> None:
    started = await rooms.service.start(rooms.session_id, RunStart(message="what is 2+2?"))
    await rooms.events(started.run_id)
    (request,) = rooms.bridge.requests
    assert request["runId"] == started.run_id
    assert request["userMessage"] == "what is 2+2?"
    assert request["history"] == []
    assert request["model"]["apiKey"] == "sk-secret1"


async def test_skill_files_are_read_outside_the_database_write_slot(
    rooms: Rooms, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 13, finding 6: a skill file that blocks on open froze every write, because the run
    start read it while its transaction held SQLite's write slot."""
    folder = rooms.service.ctx.settings.resolved_skills_dir / "notes"
    folder.mkdir(parents=True)
    (folder / "SKILL.md").write_text("---\nname: notes\ndescription: d\n---\nbody\n")
    held_while_reading: list[bool] = []
    real_get = SkillRegistry.get

    def probe(registry: SkillRegistry, name: str):  # type: ignore[no-untyped-def]
        held_while_reading.append(write_slot_held(rooms.database.engine))
        return real_get(registry, name)

    monkeypatch.setattr(SkillRegistry, "get", probe)
    started = await rooms.service.start(
        rooms.session_id, RunStart(message="hi", skill_folder="notes")
    )
    await rooms.events(started.run_id)
    regenerated = await rooms.service.regenerate(started.message_id)
    await rooms.events(regenerated.run_id)
    assert held_while_reading and not any(held_while_reading)
    assert all(r["skills"] == ["notes"] for r in rooms.bridge.requests)


async def test_the_model_key_is_scrubbed_from_events_and_the_stored_answer(rooms: Rooms) -> None:
    rooms.bridge.script = [Emit("thinking", "my key is sk-secret1")]
    rooms.bridge.result = RunEnd(status="SUCCESS", final_text="sk-secret1 done")
    started = await rooms.service.start(rooms.session_id, RunStart(message="hi"))
    events = await rooms.events(started.run_id)
    assert "sk-secret1" not in repr([e.data for e in events])
    assert "sk-secret1" not in _message(rooms, started.run_id).content


async def test_stop_aborts_the_bridge_and_ends_the_run_stopped(rooms: Rooms) -> None:
    rooms.bridge.script = [Emit("answer_delta", "partial"), WaitAbort()]
    started = await rooms.service.start(rooms.session_id, RunStart(message="hi"))
    subscription = asyncio.create_task(rooms.events(started.run_id))
    await _until(lambda: _has_event(rooms, started.run_id, 1), "the first event")

    snapshot = await rooms.service.stop(started.run_id)

    assert rooms.bridge.aborted == [started.run_id]
    assert (snapshot.status, snapshot.final_text) == ("STOPPED", "partial")
    events = await subscription
    assert [e.event for e in events].count("workflow_error") == 1
    assert events[-1].data["stopped"] is True
    assert events[-1].data["partialText"] == "partial"
    with pytest.raises(Conflict):
        await rooms.service.stop(started.run_id)


async def test_stop_cancels_a_bridge_that_ignores_the_abort(rooms: Rooms) -> None:
    rooms.bridge.script = [Emit("answer_delta", "so far"), Hang()]
    rooms.service.control.stop_grace_s = 0.05
    started = await rooms.service.start(rooms.session_id, RunStart(message="hi"))
    await _until(lambda: _has_event(rooms, started.run_id, 1), "the first event")

    snapshot = await rooms.service.stop(started.run_id)

    assert (snapshot.status, snapshot.final_text) == ("STOPPED", "so far")
    events = await rooms.events(started.run_id)
    assert events[-1].event == "workflow_error"
    assert events[-1].data["stopped"] is True


async def _waiting_for_a_choice(rooms: Rooms) -> RunStarted:
    """A run that asks "Which one?" (a or b), then says what was chosen."""
    question = {"clarifyId": "q1", "question": "Which one?", "choices": ["a", "b"]}
    rooms.bridge.script = [
        Emit("clarify_request", "Which one?", None, question),
        WaitClarify("q1"),
        Emit("answer_delta", "You chose a"),
    ]
    rooms.bridge.result = RunEnd(status="SUCCESS", final_text="You chose a")
    started = await rooms.service.start(rooms.session_id, RunStart(message="hi"))
    await _until(lambda: _has_event(rooms, started.run_id, 1), "the clarify request")
    return started


async def test_a_clarify_request_pauses_the_run_until_it_is_answered(rooms: Rooms) -> None:
    started = await _waiting_for_a_choice(rooms)

    waiting = await rooms.service.state(started.run_id)
    assert waiting.status == "RUNNING"
    assert waiting.pending_clarify is not None
    assert (waiting.pending_clarify.clarify_id, waiting.pending_clarify.choices) == (
        "q1",
        ["a", "b"],
    )
    with pytest.raises(Conflict):
        await rooms.service.resume(started.run_id, "other", "a")

    await rooms.service.resume(started.run_id, "q1", "a")

    assert rooms.bridge.clarified == [(started.run_id, "q1", "a")]
    events = await rooms.events(started.run_id)
    kinds = [e.data.get("kind", e.event) for e in events]
    assert kinds == ["clarify_request", "clarify_answered", "answer_delta", "workflow_complete"]
    with rooms.database.session() as db:
        pause = db.query(WorkflowPause).filter_by(run_id=started.run_id).one()
        assert (pause.status, pause.answer) == ("ANSWERED", "a")
    assert (await rooms.service.state(started.run_id)).pending_clarify is None


async def test_a_clarify_answer_is_accepted_when_the_run_ends_before_the_bridge_replies(
    rooms: Rooms,
) -> None:
    """The agent can take the answer, finish and be stored before the bridge's reply to the
    answer reaches the API (seen in CI): the person's answer was used, so it is not a 409."""
    started = await _waiting_for_a_choice(rooms)

    async def ended() -> bool:
        return _message(rooms, started.run_id).status != "RUNNING"

    async def reply_after_the_end() -> None:
        await _until(ended, "the run's end stored")

    rooms.bridge.after_clarify = reply_after_the_end
    snapshot = await rooms.service.resume(started.run_id, "q1", "a")

    assert snapshot.status == "SUCCESS"
    assert snapshot.pending_clarify is None
    with rooms.database.session() as db:
        pause = db.query(WorkflowPause).filter_by(run_id=started.run_id).one()
        assert (pause.status, pause.answer) == ("ANSWERED", "a")


async def test_a_clarify_answer_the_bridge_refuses_stays_unanswered(rooms: Rooms) -> None:
    """The answer is recorded before it is sent; a bridge that no longer waits for it undoes
    that, so the pause is as it was and the caller gets the 409."""
    question = {"clarifyId": "q1", "question": "Which one?", "choices": ["a", "b"]}
    rooms.bridge.script = [
        Emit("clarify_request", "Which one?", None, question),
        WaitClarify("q2"),  # the bridge waits for another question: q1 is refused
    ]
    started = await rooms.service.start(rooms.session_id, RunStart(message="hi"))
    await _until(lambda: _has_event(rooms, started.run_id, 1), "the clarify request")

    with pytest.raises(Conflict):
        await rooms.service.resume(started.run_id, "q1", "a")

    with rooms.database.session() as db:
        pause = db.query(WorkflowPause).filter_by(run_id=started.run_id).one()
        assert (pause.status, pause.answer) == ("PENDING", None)
    assert (await rooms.service.state(started.run_id)).pending_clarify is not None
    await rooms.service.stop(started.run_id)


async def test_a_bridge_that_breaks_mid_run_fails_it_with_one_error(rooms: Rooms) -> None:
    rooms.bridge.script = [
        Emit("answer_delta", "half an ans"),
        Fail(BridgeUnavailable("the connection broke")),
    ]
    started = await rooms.service.start(rooms.session_id, RunStart(message="hi"))
    events = await rooms.events(started.run_id)

    errors = [e for e in events if e.event == "workflow_error"]
    assert len(errors) == 1 and errors[0] is events[-1]
    assert errors[0].data["stopped"] is False
    assert "unavailable" in errors[0].data["message"]
    message = _message(rooms, started.run_id)
    assert (message.status, message.content) == ("FAILED", "half an ans")
    assert "the connection broke" in (message.error or "")
    assert rooms.bridges.down == []  # it had streamed: no failover, no mark


async def test_an_unreachable_bridge_moves_the_run_to_the_next_one(rooms: Rooms) -> None:
    dead = FakeBridge([Fail(BridgeUnavailable("refused"))], base_url="fake://dead")
    rooms.bridges.bridges.insert(0, dead)
    rooms.bridges.bridges[1].result = RunEnd(status="SUCCESS", final_text="from the second")
    started = await rooms.service.start(rooms.session_id, RunStart(message="hi"))
    events = await rooms.events(started.run_id)
    assert events[-1].data["finalText"] == "from the second"
    assert rooms.bridges.down == ["fake://dead"]
    assert rooms.bridges.up == ["fake://bridge-1"]


async def test_a_failed_final_write_still_ends_the_stream_and_a_restart_settles_it(
    rooms: Rooms, settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The end is published (the page stops waiting) while the row stays RUNNING; the process
    that starts next re-attaches to the run its bridge still holds and stores its end."""

    def broken(*_args: object, **_kwargs: object) -> None:
        raise RuntimeError("disk full")

    monkeypatch.setattr(store, "finish_message", broken)
    rooms.bridge.script = [Emit("thinking", "t"), Emit("answer_delta", "done")]
    rooms.bridge.result = RunEnd(status="SUCCESS", final_text="done")
    started = await rooms.service.start(rooms.session_id, RunStart(message="hi"))
    events = await rooms.events(started.run_id)

    assert events[-1].event == "workflow_complete"
    assert rooms.service.active_run_ids() == []
    assert _message(rooms, started.run_id).status == "RUNNING"
    assert _log_kinds(rooms, started.message_id) == [(0, "thinking")]  # flushed before
    assert rooms.bridge.released == []  # the bridge keeps the run for the next process
    monkeypatch.undo()
    async with _next_process(rooms, settings) as (service, bus):
        assert await service.recover() == []
        replayed = [e async for e in bus.subscribe(started.run_id)]
    assert [(e.id, e.event) for e in replayed] == [(e.id, e.event) for e in events]
    message = _message(rooms, started.run_id)
    assert (message.status, message.content) == ("SUCCESS", "done")
    assert _log_kinds(rooms, started.message_id) == [(0, "thinking")]  # not stored twice
    await _until(lambda: _released(rooms, started.run_id), "the bridge to let the run go")


async def test_a_run_its_bridge_no_longer_holds_is_interrupted_at_start_up(
    rooms: Rooms, settings: Settings
) -> None:
    rooms.service.ctx.runtime.bridges_outlive_api = True  # as start-up finds for a local bridge
    rooms.bridge.script = [Emit("answer_delta", "kept"), Hang()]
    started = await rooms.service.start(rooms.session_id, RunStart(message="hi"))
    await _until(lambda: _has_event(rooms, started.run_id, 1), "the first event")
    await rooms.service.shutdown()
    rooms.bridge.emitted.clear()  # the bridge died with the API
    async with _next_process(rooms, settings) as (service, _bus):
        assert await service.recover() == [started.run_id]
    message = _message(rooms, started.run_id)
    assert (message.status, message.content, message.error) == (
        "INTERRUPTED",
        "kept",
        store.LOST_ERROR,
    )


@contextlib.asynccontextmanager
async def _next_process(
    rooms: Rooms, settings: Settings
) -> AsyncIterator[tuple[RunService, InProcessEventBus]]:
    """A run service as the next API process has it: same database and bridges, a new bus."""
    bus = InProcessEventBus()
    service = RunService(rooms.database, bus, rooms.bridges, LogWriter(rooms.database), settings)
    try:
        yield service, bus
    finally:
        await service.shutdown()
        await bus.close()


async def test_one_run_per_session(rooms: Rooms) -> None:
    rooms.bridge.script = [WaitAbort()]
    started = await rooms.service.start(rooms.session_id, RunStart(message="hi"))
    with pytest.raises(Conflict) as raised:
        await rooms.service.start(rooms.session_id, RunStart(message="again"))
    assert raised.value.code == "run_active"
    await rooms.service.stop(started.run_id)


async def test_regenerate_answers_the_same_question_again(rooms: Rooms) -> None:
    rooms.bridge.result = RunEnd(status="SUCCESS", final_text="first")
    first = await rooms.service.start(rooms.session_id, RunStart(message="q"))
    await rooms.events(first.run_id)
    rooms.bridge.result = RunEnd(status="SUCCESS", final_text="second")

    again = await rooms.service.regenerate(first.message_id)
    await rooms.events(again.run_id)

    assert rooms.bridge.requests[1]["userMessage"] == "q"
    with rooms.database.session() as db:
        new = db.get(ChatMessage, again.new_message_id)
        assert new is not None
        assert (new.parent_id, new.content, new.status) == (
            first.user_message_id,
            "second",
            "SUCCESS",
        )


async def test_shutdown_stores_a_running_answer_as_interrupted(rooms: Rooms) -> None:
    """A bridge that does not outlive the API (the local one): the run is cut, its text kept."""
    rooms.bridge.script = [Emit("answer_delta", "kept"), Hang()]
    started = await rooms.service.start(rooms.session_id, RunStart(message="hi"))
    await _until(lambda: _has_event(rooms, started.run_id, 1), "the first event")
    await rooms.service.shutdown()
    message = _message(rooms, started.run_id)
    assert (message.status, message.content) == ("INTERRUPTED", "kept")
    assert rooms.bridge.aborted == [started.run_id]
    events = await rooms.events(started.run_id)
    assert events[-1].data["message"] == INTERRUPTED_ERROR
    assert events[-1].data["interrupted"] is True


async def test_shutdown_leaves_the_run_to_a_bridge_that_outlives_the_api(
    rooms: Rooms, settings: Settings
) -> None:
    rooms.service.ctx.runtime.bridges_outlive_api = True  # as start-up finds for a local bridge
    rooms.bridge.script = [
        Emit("thinking", "t"),
        Emit("answer_delta", "kept"),
        Emit("clarify_request", "", None, {"clarifyId": "c1", "question": "Which?"}),
        Hang(),
    ]
    started = await rooms.service.start(rooms.session_id, RunStart(message="hi"))
    await _until(lambda: _has_event(rooms, started.run_id, 3), "the clarify request")
    await rooms.service.shutdown()

    message = _message(rooms, started.run_id)
    assert (message.status, message.content, message.bridge_event_id) == ("RUNNING", "kept", 3)
    assert rooms.bridge.aborted == []
    async with _next_process(rooms, settings) as (service, bus):
        assert await service.recover() == []
        assert service.active_run_ids() == [started.run_id]
        state = await service.state(started.run_id)
        assert state.pending_clarify is not None and state.pending_clarify.clarify_id == "c1"
        await service.stop(started.run_id)
        replayed = [e async for e in bus.subscribe(started.run_id)]
    assert [e.id for e in replayed] == [1, 2, 3, 4]
    assert replayed[1].data["content"] == "kept" and replayed[-1].data["stopped"] is True
    assert _log_kinds(rooms, started.message_id) == [(0, "thinking"), (1, "clarify_request")]
    assert _message(rooms, started.run_id).status == "STOPPED"


async def test_reset_gives_the_session_a_new_agent_session(rooms: Rooms) -> None:
    started = await rooms.service.start(rooms.session_id, RunStart(message="hi"))
    await rooms.events(started.run_id)
    old = rooms.bridge.requests[0]["sessionId"]
    result = await rooms.service.reset(rooms.session_id, keep_history=True)
    assert result.hermes_session != old
    assert rooms.bridge.resets == [old]
    with rooms.database.session() as db:
        divider = db.get(ChatMessage, result.divider_message_id)
        assert divider is not None and divider.status == "RESET"


async def _has_event(rooms: Rooms, run_id: str, count: int) -> bool:
    return len(await rooms.bus.history(run_id)) >= count


async def test_state_reads_stored_logs_back_as_typed_events(rooms: Rooms) -> None:
    rooms.bridge.script = [
        Emit("tool_call", "search x", "web_search", {"toolCallId": "c1", "args": {"q": "x"}}),
        Emit("tool_result", "found", "web_search", {"toolCallId": "c1", "durationMs": 12}),
    ]
    started = await rooms.service.start(rooms.session_id, RunStart(message="hi"))
    await rooms.events(started.run_id)
    with rooms.database.session() as db:  # a line logged before tool calls had ids
        db.add(
            ChatMessageLog(
                message_id=started.message_id,
                seq=2,
                kind="tool_call",
                content="old",
                tool_name="web_search",
                meta_json='{"args": {}}',
            )
        )
    fresh = InProcessEventBus()  # a bus that never saw the run: logs come from the rows
    rooms.service.ctx.bus = fresh

    snapshot = await rooms.service.state(started.run_id)

    call, result, legacy = snapshot.logs
    assert isinstance(call.meta, ToolCallMeta) and call.meta.args == {"q": "x"}
    assert isinstance(result.meta, ToolResultMeta) and result.meta.duration_ms == 12
    assert legacy.meta == {"args": {}}
    body = snapshot.model_dump(mode="json", by_alias=True)
    assert body["logs"][0]["meta"] == {"toolCallId": "c1", "args": {"q": "x"}}
    await fresh.close()


REF = "#/components/schemas/"


def test_the_openapi_document_carries_the_event_contract(app: FastAPI) -> None:
    doc = app.openapi()
    for path in ("/api/chat/runs/{run_id}/stream", "/api/chat/stream"):
        ok = doc["paths"][path]["get"]["responses"]["200"]["content"]
        assert ok == {
            "text/event-stream": {"schema": {"$ref": "#/components/schemas/RunStreamEvent"}}
        }
    schemas = doc["components"]["schemas"]
    for name in ("ToolCall", "ToolResult", "ClarifyRequest", "WorkflowComplete", "WorkflowError"):
        assert name in schemas
    assert {"$ref": "#/components/schemas/ToolCallMeta"} in schemas["RunLog"]["properties"]["meta"][
        "anyOf"
    ]


async def test_memory_goes_through_the_sessions_bridge_typed(rooms: Rooms) -> None:
    view = await rooms.service.memory(rooms.session_id)
    assert (view.memory.content, view.memory.char_limit) == ("", 2200)
    saved = await rooms.service.put_memory(rooms.session_id, "a\n§\nb", None)
    assert saved.memory.entries == ["a", "b"]


async def test_memory_errors_of_the_bridge_become_api_errors(rooms: Rooms) -> None:
    rooms.bridge.memory_error = BridgeUnavailable("too long", status_code=422)
    with pytest.raises(Conflict) as invalid:
        await rooms.service.put_memory(rooms.session_id, "x" * 10, None)
    assert invalid.value.code == "memory_invalid"
    rooms.bridge.memory_error = BridgeUnavailable("refused")
    with pytest.raises(BadGateway):
        await rooms.service.memory(rooms.session_id)
