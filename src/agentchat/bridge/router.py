"""The Hermes Bridge HTTP routes (thin: parse, call the service, return)."""

from __future__ import annotations

import hmac
import os
from typing import Annotated

from fastapi import APIRouter, Depends, Request
from fastapi.responses import JSONResponse, StreamingResponse

from agentchat.bridge.schemas import (
    Ack,
    ClarifyAnswer,
    MemoryUpdate,
    MemoryView,
    RunRequest,
    SteerMessage,
)
from agentchat.bridge.service import BridgeService
from agentchat.core.errors import Unauthorized


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
    request.app.state.liveness.touch()  # an API is there (bridge/orphan.py)


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
    handle = await service.start(body)
    headers = {"Cache-Control": "no-cache", "X-Accel-Buffering": "no"}
    return StreamingResponse(
        service.stream(handle), media_type="text/event-stream", headers=headers
    )


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


@router.get("/sessions/{session_id}/memory", operation_id="bridgeGetMemory")
def get_memory(session_id: str, service: ServiceDep) -> MemoryView:
    return service.memory.read()


@router.put("/sessions/{session_id}/memory", operation_id="bridgePutMemory")
def put_memory(session_id: str, body: MemoryUpdate, service: ServiceDep) -> MemoryView:
    return service.memory.write(body)
