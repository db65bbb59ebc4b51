"""GET /api/health: the API is up and its database answers (503 `database_unavailable` when
the database file is gone or replaced, or the database does not answer). While the bridges do
not answer (the local one is being restarted, or no configured one answers) it is 200 with
`{"status": "degraded", "reason": ...}`: the API serves, runs cannot; so it is while the event
bus (Redis, with several API processes) does not answer. The page polls it to show
a banner while that lasts."""

from __future__ import annotations

from typing import Literal

from fastapi import APIRouter, Request
from pydantic import BaseModel

from agentchat.core.deps import DatabaseDep
from agentchat.runtime import Runtime

router = APIRouter(tags=["health"])


class Health(BaseModel):
    status: Literal["ok", "degraded"]
    database: str
    reason: str | None = None  # why runs cannot start now (degraded only)


@router.get("/api/health", operation_id="health", response_model_exclude_none=True)
def health(request: Request, database: DatabaseDep) -> Health:
    database.check()
    runtime: Runtime | None = getattr(request.app.state, "runtime", None)
    if runtime is not None and (reason := runtime.bridge_status.reason) is not None:
        return Health(status="degraded", database=database.dialect, reason=reason)
    if runtime is not None and (problem := runtime.bus_problem()):
        reason = f"answers cannot stream now: {problem}"
        return Health(status="degraded", database=database.dialect, reason=reason)
    return Health(status="ok", database=database.dialect)
