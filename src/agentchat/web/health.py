"""GET /api/health: the API is up and its database answers (503 `database_unavailable` when
the database file is gone or replaced, or the database does not answer). While the bridges do
not answer (the local one is being restarted, or no configured one answers) it is 200 with
`{"status": "degraded", "reason": ...}`: the API serves, runs cannot."""

from __future__ import annotations

from fastapi import APIRouter, Request

from agentchat.core.bridge_status import BridgeStatus
from agentchat.core.deps import DatabaseDep

router = APIRouter(tags=["health"])


@router.get("/api/health", operation_id="health")
def health(request: Request, database: DatabaseDep) -> dict[str, object]:
    database.check()
    body: dict[str, object] = {"status": "ok", "database": database.dialect}
    status: BridgeStatus | None = getattr(request.app.state, "bridge_status", None)
    if status is not None and (reason := status.reason) is not None:
        body.update(status="degraded", reason=reason)
    return body
