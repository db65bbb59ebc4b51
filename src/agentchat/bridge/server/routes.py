"""The Hermes Bridge HTTP routes (thin: parse, call the service, return)."""

from __future__ import annotations

import hmac
import os
from collections.abc import AsyncIterator
from typing import Annotated

from fastapi import APIRouter, Depends, Header, Query, Request
from fastapi.responses import JSONResponse, StreamingResponse
from pydantic import ValidationError

from agentchat.bridge.guards import request_policy
from agentchat.bridge.server import files
from agentchat.bridge.server.service import BridgeService
from agentchat.protocol.bridge_api import (
    Ack,
    ClarifyAnswer,
    HeldRun,
    MemoryUpdate,
    MemoryView,
    RunRequest,
    SteerMessage,
)
from agentchat.protocol.errors import Invalid, Unauthorized
from agentchat.protocol.mcp import McpCheck, McpProbe, McpServerStatus, McpServerWire, McpSetup
from agentchat.protocol.workspace_files import FileList, MissingFiles, WorkspaceFile


def get_service(request: Request) -> BridgeService:
    service: BridgeService = request.app.state.bridge
    return service


ServiceDep = Annotated[BridgeService, Depends(get_service)]


def require_secret(request: Request, service: ServiceDep) -> None:
    secret = service.settings.secret
    if secret is None or not secret.get_secret_value():
        raise Unauthorized("this bridge has no shared secret")
    header = request.headers.get("authorization", "")
    expected = f"Bearer {secret.get_secret_value()}"
    if not hmac.compare_digest(header.encode(), expected.encode()):
        raise Unauthorized("missing or wrong bridge secret")
    request.app.state.liveness.touch()  # an API is there (bridge/server/orphan.py)


public = APIRouter(tags=["bridge"])
router = APIRouter(tags=["bridge"], dependencies=[Depends(require_secret)])


@public.get("/health", operation_id="bridgeHealth")
def health(request: Request, service: ServiceDep) -> JSONResponse:
    """Public; with the secret (the API's pings) it is checked and counts as hearing from an
    API."""
    if "authorization" in request.headers:
        require_secret(request, service)
    if not service.ready:
        return JSONResponse({"status": "starting", "pid": os.getpid()}, status_code=503)
    return JSONResponse({"status": "ok", "pid": os.getpid(), **service.stats()})


@router.post("/run", operation_id="bridgeRun")
async def run(body: RunRequest, service: ServiceDep) -> StreamingResponse:
    """Start a turn; the response is its SSE stream, ending with exactly one run_end."""
    buffer = await service.start(body)
    return _sse(service.stream(buffer))


@router.get("/runs", operation_id="bridgeRuns")
def held_runs(service: ServiceDep) -> list[HeldRun]:
    return service.held_runs()


@router.get("/runs/{run_id}/events", operation_id="bridgeFollow")
async def follow(
    run_id: str,
    service: ServiceDep,
    after: Annotated[int | None, Query(ge=0)] = None,
    last_event_id: Annotated[str | None, Header(alias="Last-Event-ID")] = None,
) -> StreamingResponse:
    """The run's events after id `after` (or `Last-Event-ID`), then live, to `run_end`."""
    start = after if after is not None else _event_number(last_event_id)
    return _sse(service.follow(run_id, start))


@router.delete("/runs/{run_id}", operation_id="bridgeRelease")
def release(run_id: str, service: ServiceDep) -> Ack:
    """The API stored the run's end: the bridge may let the ended run go (an unknown run, or
    one still going, is no error: it goes once it ends)."""
    return service.release(run_id)


def _event_number(header: str | None) -> int:
    try:
        return max(int((header or "0").rsplit(":", 1)[-1]), 0)
    except ValueError:
        return 0


def _sse(body: AsyncIterator[bytes]) -> StreamingResponse:
    headers = {"Cache-Control": "no-cache", "X-Accel-Buffering": "no"}
    return StreamingResponse(body, media_type="text/event-stream", headers=headers)


@router.post("/runs/{run_id}/clarify", operation_id="bridgeClarify")
def clarify(run_id: str, body: ClarifyAnswer, service: ServiceDep) -> Ack:
    return service.clarify(run_id, body)


@router.post("/runs/{run_id}/steer", operation_id="bridgeSteer")
def steer(run_id: str, body: SteerMessage, service: ServiceDep) -> Ack:
    return service.steer(run_id, body)


@router.post("/runs/{run_id}/abort", operation_id="bridgeAbort")
def abort(run_id: str, service: ServiceDep) -> Ack:
    return service.abort(run_id)


@router.post("/sessions/{session_id}/reset", operation_id="bridgeReset")
def reset(session_id: str, service: ServiceDep) -> Ack:
    return service.reset(session_id)


UserId = Annotated[str | None, Query(alias="userId", max_length=200)]


@router.get("/sessions/{session_id}/memory", operation_id="bridgeGetMemory")
def get_memory(session_id: str, service: ServiceDep, user_id: UserId = None) -> MemoryView:
    """The long-term memory of the person `userId` (accounts), or the bridge's one."""
    return service.memory(user_id).read()


@router.put("/sessions/{session_id}/memory", operation_id="bridgePutMemory")
def put_memory(
    session_id: str, body: MemoryUpdate, service: ServiceDep, user_id: UserId = None
) -> MemoryView:
    return service.memory(user_id).write(body)


@router.delete("/people/{user_id}", operation_id="bridgeForgetPerson")
def forget_person(user_id: str, service: ServiceDep) -> Ack:
    """The person was deleted: their agents, memory and agent-made skills go."""
    return service.forget_person(user_id)


@router.get("/mcp/servers", operation_id="bridgeMcpStatus")
def mcp_status(service: ServiceDep) -> list[McpServerStatus]:
    """The MCP servers this bridge holds: connected, failed (why) or not used yet."""
    return service.mcp.statuses()


@router.post("/mcp/servers", operation_id="bridgeMcpConnect")
def mcp_connect(body: McpSetup, service: ServiceDep) -> list[McpServerStatus]:
    """Hold these servers (those switched on) and connect the ones not connected yet, as a
    turn would; then how each stands."""
    return service.mcp_connect(body)


@router.post("/mcp/check", operation_id="bridgeMcpCheck")
def mcp_check(body: McpServerWire, service: ServiceDep) -> McpCheck:
    """Whether this bridge could start the server (its command exists and may run here)."""
    return service.mcp.check(body)


@router.post("/mcp/probe", operation_id="bridgeMcpProbe")
def mcp_probe(body: McpServerWire, service: ServiceDep) -> McpProbe:
    """Connect to the server, list its tools, close the connection."""
    return service.mcp_probe(body)


@router.post("/sessions/{session_id}/files/missing", operation_id="bridgeMissingFiles")
def missing_files(session_id: str, body: FileList, service: ServiceDep) -> MissingFiles:
    """Which of these attachments the chat's workspace lacks (or holds changed)."""
    folder = request_policy.workspace(service.settings, session_id)
    return MissingFiles(missing=files.missing(folder, body.files))


@router.put("/sessions/{session_id}/files", operation_id="bridgePutFile")
async def put_file(
    session_id: str,
    request: Request,
    service: ServiceDep,
    path: Annotated[str, Query(max_length=260)],
    digest: Annotated[str, Query(pattern=r"^[0-9a-f]{64}$")],
    size: Annotated[int, Query(ge=0)],
) -> Ack:
    """One attachment's bytes (the body, streamed), into the chat's workspace."""
    try:
        file = WorkspaceFile(path=path, digest=digest, size=size)
    except ValidationError as exc:
        raise Invalid(f"path: {exc.errors()[0]['msg']}") from exc
    folder = request_policy.workspace(service.settings, session_id)
    await files.receive(folder, file, request.stream())
    return Ack()


@router.get("/openapi.json", include_in_schema=False)
def openapi_document(request: Request) -> JSONResponse:
    """The bridge's OpenAPI document, for those who hold its secret."""
    return JSONResponse(request.app.openapi())
