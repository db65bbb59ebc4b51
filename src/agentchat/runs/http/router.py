"""HTTP routes of runs: start, stream, state, clarify, stop, regenerate, reset, memory, stats."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends, Header, Query, Request, Response
from fastapi.responses import JSONResponse
from starlette.concurrency import run_in_threadpool

from agentchat.chat.deps import (
    ChatSessionDep,
    OwnedMessageId,
    OwnedRunId,
    OwnedSessionId,
    owned_run_ids,
)
from agentchat.core.deps import DatabaseDep, DbSession
from agentchat.principal import PrincipalDep
from agentchat.protocol.bridge_api import MemoryView
from agentchat.protocol.camel import ERROR_RESPONSES
from agentchat.protocol.errors import Invalid, ServiceUnavailable
from agentchat.protocol.sse import encode_event
from agentchat.protocol.status import RunStatus
from agentchat.runs.drive.endings import end_of_stored
from agentchat.runs.http.streaming import RunEventStream, multi_run_stream, run_stream
from agentchat.runs.schemas import (
    Accepted,
    ClarifyAnswer,
    MemoryUpdate,
    Regenerated,
    ResetRequest,
    ResetResult,
    RunSnapshot,
    RunStart,
    RunStarted,
    RunStreamEvent,
    SessionStats,
    SteerRequest,
)
from agentchat.runs.service import RunService
from agentchat.runs.views import stats as run_stats

router = APIRouter(tags=["runs"], responses=ERROR_RESPONSES)
MAX_MUX_RUNS = 50
STREAM_DESCRIPTION = "Server-sent events; each event's `data` is one `RunStreamEvent`."


class EventStreamDoc(JSONResponse):
    """Documents an SSE route's events in the OpenAPI document (`text/event-stream` with the
    event schema); the route itself answers with a RunEventStream."""

    media_type = "text/event-stream"


def get_runs(request: Request) -> RunService:
    service: RunService = request.app.state.runs
    return service


Runs = Annotated[RunService, Depends(get_runs)]


@router.post(
    "/api/chat/sessions/{session_id}/runs",
    status_code=201,
    operation_id="startRun",
    responses={429: ERROR_RESPONSES[409]},
)
async def start_run(session_id: OwnedSessionId, body: RunStart, runs: Runs) -> RunStarted:
    return await runs.start(session_id, body)


@router.post(
    "/api/chat/messages/{message_id}/regenerate", status_code=201, operation_id="regenerate"
)
async def regenerate(message_id: OwnedMessageId, runs: Runs) -> Regenerated:
    return await runs.regenerate(message_id)


def _last_id(query: int | None, header: str | None) -> int:
    raw = header if header not in (None, "") else query
    try:
        value = int(raw) if raw is not None else 0
    except ValueError as exc:
        raise Invalid("Last-Event-ID: must be an integer") from exc
    if value < 0:
        raise Invalid("Last-Event-ID: must not be negative")
    return value


@router.get(
    "/api/chat/runs/{run_id}/stream",
    operation_id="streamRun",
    response_class=EventStreamDoc,
    response_model=RunStreamEvent,
    response_description=STREAM_DESCRIPTION,
)
async def stream_run(
    run_id: OwnedRunId,
    runs: Runs,
    last_event_id: Annotated[int | None, Query(alias="lastEventId", ge=0)] = None,
    last_event_header: Annotated[str | None, Header(alias="Last-Event-ID")] = None,
) -> Response:
    last = _last_id(last_event_id, last_event_header)
    if await runs.bus.is_known(run_id):
        return run_stream(runs.bus, run_id, last, runs.is_running)
    state = await runs.state(run_id)  # 404 for a run that never existed
    if state.status == RunStatus.RUNNING:  # Redis lost it (restarted empty): being restored
        raise ServiceUnavailable(
            "This answer's events are being restored to the event bus; try again in a moment.",
            code="bus_unavailable",
        )
    return Response(_ended_run(state), media_type="text/event-stream")


def _ended_run(state: RunSnapshot) -> bytes:
    """A run the bus has forgotten: its end, rebuilt from the database."""
    end = end_of_stored(state.run_id, state.message_id, state.status, state.final_text, state.error)
    return encode_event(end)


@router.get(
    "/api/chat/stream",
    operation_id="streamRuns",
    response_class=EventStreamDoc,
    response_model=RunStreamEvent,
    response_description=STREAM_DESCRIPTION,
)
async def stream_runs(
    runs: Runs,
    database: DatabaseDep,
    who: PrincipalDep,
    run_ids: Annotated[str, Query(alias="runs", min_length=1, max_length=5000)],
    last_event_ids: Annotated[str | None, Query(alias="lastEventIds", max_length=5000)] = None,
) -> RunEventStream:
    ids = [r.strip() for r in run_ids.split(",") if r.strip()]
    lasts = [x.strip() for x in (last_event_ids or "").split(",")] if last_event_ids else []
    if not ids or len(ids) > MAX_MUX_RUNS:
        raise Invalid(f"runs: give between 1 and {MAX_MUX_RUNS} run ids")
    if lasts and len(lasts) != len(ids):
        raise Invalid("lastEventIds: give one id per run")
    try:
        numbers = [int(x or 0) for x in lasts] or [0] * len(ids)
    except ValueError as exc:
        raise Invalid("lastEventIds: must be integers") from exc
    if any(n < 0 for n in numbers):
        raise Invalid("lastEventIds: must not be negative")
    await run_in_threadpool(owned_run_ids, ids, database, who)
    return multi_run_stream(runs.bus, list(zip(ids, numbers, strict=True)), runs.is_running)


@router.get("/api/chat/runs/{run_id}/state", operation_id="runState")
async def run_state(run_id: OwnedRunId, runs: Runs) -> RunSnapshot:
    return await runs.state(run_id)


@router.post("/api/chat/runs/{run_id}/clarify", operation_id="answerClarify")
async def answer_clarify(
    run_id: OwnedRunId, body: ClarifyAnswer, runs: Runs, who: PrincipalDep
) -> RunSnapshot:
    return await runs.resume(run_id, body.clarify_id, body.answer, who.owner_id)


@router.post("/api/chat/runs/{run_id}/steer", operation_id="steerRun")
async def steer_run(
    run_id: OwnedRunId, body: SteerRequest, runs: Runs, who: PrincipalDep
) -> Accepted:
    """A message for the running agent, read with its next tool result (no interruption)."""
    await runs.steer(run_id, body.message, who.owner_id)
    return Accepted()


@router.post("/api/chat/runs/{run_id}/stop", operation_id="stopRun")
async def stop_run(run_id: OwnedRunId, runs: Runs, who: PrincipalDep) -> RunSnapshot:
    return await runs.stop(run_id, who.owner_id)


@router.post("/api/chat/sessions/{session_id}/reset", operation_id="resetSession")
async def reset_session(
    session_id: OwnedSessionId, runs: Runs, body: ResetRequest | None = None
) -> ResetResult:
    return await runs.reset(session_id, (body or ResetRequest()).keep_history)


@router.get("/api/chat/sessions/{session_id}/memory", operation_id="getMemory")
async def get_memory(session_id: OwnedSessionId, runs: Runs) -> MemoryView:
    return await runs.memory(session_id)


@router.put("/api/chat/sessions/{session_id}/memory", operation_id="putMemory")
async def put_memory(session_id: OwnedSessionId, body: MemoryUpdate, runs: Runs) -> MemoryView:
    return await runs.put_memory(session_id, body.memory, body.user)


@router.get("/api/memory", operation_id="getAgentMemory")
async def get_agent_memory(runs: Runs, who: PrincipalDep) -> MemoryView:
    """The agent's memory, shared by every chat of its person (the per-chat paths read the
    same files); with accounts the bridge is told whose (`userId`)."""
    return await runs.agent_memory(who.agent_key)


@router.put("/api/memory", operation_id="putAgentMemory")
async def put_agent_memory(body: MemoryUpdate, runs: Runs, who: PrincipalDep) -> MemoryView:
    return await runs.put_agent_memory(body.memory, body.user, who.agent_key)


@router.get("/api/chat/sessions/{session_id}/stats", operation_id="sessionStats")
def session_stats(chat: ChatSessionDep, db: DbSession) -> SessionStats:
    return run_stats.session_stats(db, chat.id)
